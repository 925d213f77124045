"""One transaction's rows put by the compiled core (``speedups.transaction_rows``, from the record's
and transaction's bytes) are the Python path's (``rows.python_transaction_rows``, through the
message API), cell for cell; and whole blocks built either way, or with every transaction sent
through the indexes, are the same rows."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hedera_history import hapi, speedups
from hedera_history.block import VerifiedBlock
from hedera_history.books.registered_nodes import NODE_CASES
from hedera_history.config import Settings
from hedera_history.errors import CorruptFileError, RowLayoutError
from hedera_history.formats.transactions import transaction_body
from hedera_history.formats.wire import length_delimited, varint_field
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.store import entity_index, rows, schedule_index, token_index
from hedera_history.store.accounts import case_entities, decode_transaction_body
from hedera_history.store.airdrop_index import AIRDROP_CASES
from hedera_history.store.file_index import FILE_CASES
from hedera_history.store.keys import MAX_U64, TIME_SPAN_BITS
from hedera_history.store.rows import block_to_rows, python_transaction_rows, range_rows, split_block
from hedera_history.store.stake_index import STAKE_CASE
from hedera_history.store.topic_index import TOPIC_CASES

from .builders import account, contract
from .test_record_entities import _random_summary_record
from .test_rows_golden import MIXED, crafted_block, verified_blocks

SETTINGS = Settings()
_CASES = ("cryptoTransfer", "contractCall", "cryptoUpdateAccount", "tokenAssociate", "cryptoApproveAllowance", None)


def _random_body(rng: random.Random) -> Any:
    body = hapi.TransactionBody()
    if rng.random() < 0.9:
        payer = body.transactionID.accountID
        payer.shardNum, payer.realmNum = rng.choice([(0, 0), (0, 0), (1, 2)])
        if rng.random() < 0.85:
            payer.accountNum = rng.choice([2, 98, 1000, 1001, 2**40, 0, -4])
        else:
            payer.alias = rng.randbytes(33)
        body.transactionID.transactionValidStart.seconds = rng.choice([0, 1_700_000_000, -2])
        body.transactionID.nonce = rng.choice([0, 3])
    case = rng.choice(_CASES)
    if case == "cryptoTransfer":
        body.cryptoTransfer.transfers.accountAmounts.add(accountID=account(5), amount=1, is_approval=rng.random() < 0.3)
    elif case == "contractCall":
        body.contractCall.contractID.CopyFrom(contract(rng.choice([7, 0, 3000])))
    elif case == "cryptoUpdateAccount":
        body.cryptoUpdateAccount.accountIDToUpdate.CopyFrom(account(rng.choice([9, 900])))
    elif case == "tokenAssociate":
        body.tokenAssociate.account.CopyFrom(account(11))
        body.tokenAssociate.tokens.add(tokenNum=12)
    elif case == "cryptoApproveAllowance":
        body.cryptoApproveAllowance.cryptoAllowances.add(owner=account(13), spender=account(14), amount=1)
    return body


def _transaction_bytes(rng: random.Random, body: Any) -> bytes:
    """The body in one of the three forms a Transaction carries it, sometimes over two occurrences."""
    form = rng.choice(["signed", "signed", "body_bytes", "body"])
    data: bytes
    if form == "signed":
        signed = hapi.SignedTransaction(bodyBytes=body.SerializeToString()).SerializeToString()
        data = hapi.Transaction(signedTransactionBytes=signed).SerializeToString()
    elif form == "body_bytes":
        data = hapi.Transaction(bodyBytes=body.SerializeToString()).SerializeToString()
    else:
        data = hapi.Transaction(body=body).SerializeToString()
    if rng.random() < 0.2:  # a second occurrence: bytes fields replaced, the deprecated body merged
        other = hapi.TransactionBody()
        other.transactionID.accountID.realmNum = 3
        data += hapi.Transaction(body=other).SerializeToString()
    return data


def _place(rng: random.Random) -> tuple[int, int, int, int, int, bytes, bytes | None]:
    cell = rng.choice([0, 3, 300])
    suffix = bytes([cell]) if cell < 256 else cell.to_bytes(2, "big")
    part = rng.choice([None, b"\x00\x01"])
    return rng.choice([0, 7, 2**40]), rng.randrange(5000), cell, rng.randrange(2000), rng.choice([0, 2]), suffix, part


def _consensus(rng: random.Random) -> int:
    return rng.choice(
        [0, 1, MAX_U64, (1 << TIME_SPAN_BITS) - 1, 1 << TIME_SPAN_BITS, 1_700_000_000_123_456_789, rng.randrange(2**64)]
    )


def _targets() -> rows._Targets:
    return {}, {}, {}, {}


def _both(record_bytes: bytes, transaction: bytes, consensus: int, place: Any) -> tuple[Any, Any, Any, Any]:
    record = hapi.TransactionRecord.FromString(record_bytes)
    try:
        body = decode_transaction_body(transaction)
    except CorruptFileError:
        body = None
    case = None if body is None else body.WhichOneof("data")
    assert speedups.transaction_rows is not None, "the compiled core did not build"
    compiled_targets, python_targets = _targets(), _targets()
    entities = [] if body is None else case_entities(body, case)
    compiled = speedups.transaction_rows(
        record_bytes,
        None if body is None else transaction,
        consensus,
        entities,
        compiled_targets,
        rows._CELL_NAMES,
        place,
    )
    python = python_transaction_rows(record, body, case, consensus, python_targets, place)
    return compiled, python, compiled_targets, python_targets


def test_random_transactions_put_the_python_paths_cells() -> None:
    rng = random.Random(41)
    for _ in range(1500):
        record_bytes = _random_summary_record(rng).SerializeToString()
        if rng.random() < 0.2:  # two records back to back parse as one of both merged
            record_bytes += _random_summary_record(rng).SerializeToString()
        transaction = _transaction_bytes(rng, _random_body(rng))
        if rng.random() < 0.05:
            transaction = b"\xff\xff"  # a body that does not decode
        consensus, place = _consensus(rng), _place(rng)
        try:
            compiled, python, compiled_targets, python_targets = _both(record_bytes, transaction, consensus, place)
        except RowLayoutError:  # an id the keys refuse: the compiled core left it to the Python path
            continue
        assert compiled == python
        assert compiled_targets == python_targets


@pytest.mark.parametrize(
    ("record_bytes", "consensus", "index"),
    [
        (b"\x0a", 5, 0),  # malformed
        (b"\x0b\x0c", 5, 0),  # a group: the parser decides
        (hapi.TransactionRecord().SerializeToString(), MAX_U64 + 1, 0),
        (hapi.TransactionRecord().SerializeToString(), 5, 2**32),
    ],
)
def test_what_the_core_does_not_take_is_left_to_the_python_path(
    record_bytes: bytes, consensus: int, index: int
) -> None:
    assert speedups.transaction_rows is not None
    targets = _targets()
    place = (1, index, 0, 0, 0, b"\x00", None)
    assert speedups.transaction_rows(record_bytes, None, consensus, [], targets, rows._CELL_NAMES, place) is None
    assert targets == _targets()


def test_an_entity_the_keys_refuse_is_left_to_the_python_path() -> None:
    record = hapi.TransactionRecord()
    record.receipt.accountID.CopyFrom(hapi.AccountID(shardNum=-1, accountNum=5))
    targets = _targets()
    place = (1, 0, 0, 0, 0, b"\x00", None)
    data = record.SerializeToString()
    assert speedups.transaction_rows is not None
    assert speedups.transaction_rows(data, None, 5, [], targets, rows._CELL_NAMES, place) is None
    assert speedups.transaction_rows(b"", None, 5, [(-1, 0, 5)], targets, rows._CELL_NAMES, place) is None
    assert targets == _targets()


def test_no_index_reads_the_cases_row_building_lets_pass() -> None:
    """A transaction of these cases reaches the indexes only through its record's fields
    (``rows.record_index_fields``) or an approved transfer; no index reads them by case."""
    by_case = (
        set(entity_index._BODY_CHANGES) | {"cryptoCreateAccount"},
        TOPIC_CASES,
        FILE_CASES,
        {STAKE_CASE},
        {"scheduleCreate", *schedule_index._CHANGES},
        AIRDROP_CASES,
        token_index._TOKEN_CASES | token_index._ALLOWANCE_CASES,
        NODE_CASES,
    )
    for cases in by_case:
        assert not rows._UNINDEXED_CASES & set(cases)


@pytest.fixture(scope="module")
def blocks(hedera_data: Path, tmp_path_factory: pytest.TempPathFactory) -> list[VerifiedBlock]:
    folder = tmp_path_factory.mktemp("transaction-rows")
    write_stream(generate_stream(MIXED), folder / "mixed")
    config = GeneratorConfig(nodes=4, periods=2, transactions=400, seed=5)
    write_stream(generate_stream(config), folder / "mainnet")
    v6 = hedera_data / "v6"
    return [
        crafted_block(),
        *verified_blocks(folder / "mixed", (folder / "mixed" / "address-book.bin").read_bytes()),
        *verified_blocks(folder / "mainnet", (folder / "mainnet" / "address-book.bin").read_bytes()),
        *verified_blocks(v6, (hedera_data / "addressbook" / "test-v6-sidecar-4n.bin").read_bytes()),
    ]


def _all_rows(block: VerifiedBlock) -> tuple[Any, ...]:
    built = block_to_rows(block, SETTINGS)
    split = split_block(block, SETTINGS, max_items=37)
    return built.rows, built.completion, built.undecodable_records, [range_rows(r) for r in split.ranges]


def test_blocks_built_by_the_python_path_are_the_same_rows(
    blocks: list[VerifiedBlock], monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled = [_all_rows(block) for block in blocks]
    monkeypatch.setattr(rows, "compiled_transaction_rows", None)
    assert [_all_rows(block) for block in blocks] == compiled


def test_blocks_with_every_transaction_sent_through_the_indexes_are_the_same_rows(
    blocks: list[VerifiedBlock], monkeypatch: pytest.MonkeyPatch
) -> None:
    passed = [_all_rows(block) for block in blocks]
    assert any(row.key.startswith(b"holder/") for built in passed for row in built[0]), "no token transfers"
    monkeypatch.setattr(rows, "_UNINDEXED_CASES", frozenset())
    assert [_all_rows(block) for block in blocks] == passed


def _odd_transaction(rng: random.Random) -> bytes:
    """A transaction in one of its forms with, often, something the common shape does not have."""
    data = _transaction_bytes(rng, _random_body(rng))
    pair = length_delimited(1, length_delimited(1, rng.randbytes(4)) + length_delimited(3, rng.randbytes(64)))
    extras = [
        length_delimited(3, pair),  # a signature map
        length_delimited(3, length_delimited(1, b"\x0a\x05ab")),  # a pair that does not parse
        length_delimited(5, length_delimited(2, pair)),  # signed bytes of a map, no body bytes
        varint_field(5, 1),  # a known field of another wire type: an unknown field
        length_delimited(2, b""),  # a signature list
        b"\xf8\xff\xff\xff\x0f\x01",  # field 2^29 - 1
        b"\x80\x80\x80\x80\x10\x01",  # field 2^29: does not parse
        b"\x0b\x0c",  # a group
        length_delimited(9, rng.randbytes(5)),  # an unknown field
    ]
    if rng.random() < 0.6:
        data += rng.choice(extras)
    if rng.random() < 0.1:
        data = data[: rng.randrange(len(data) + 1)]
    return data


def _decoded(decode: Any, data: bytes) -> Any:
    try:
        return decode(data)
    except CorruptFileError:
        return CorruptFileError


def test_the_body_found_by_the_core_is_the_decoders() -> None:
    assert speedups.transaction_body_bytes is not None, "the compiled core did not build"
    rng = random.Random(59)
    found = 0
    for _ in range(3000):
        data = _odd_transaction(rng)
        found += speedups.transaction_body_bytes(data) is not None
        assert _decoded(decode_transaction_body, data) == _decoded(transaction_body, data), data
    assert found > 1000
