"""Generated block streams and streams that cross the cutover: every block goes through the
verifier real blocks go through (RSA for wrapped blocks, TSS for native ones, the chain links),
native blocks give back the ground truth of every transaction through the block transformer, and
a tampered block fails with a typed reason."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
from hedera_history import hapi
from hedera_history.books.parse import parse_address_book
from hedera_history.errors import (
    BrokenChainError,
    ConfigError,
    NoConsensusError,
    RunningHashMismatchError,
    SidecarMismatchError,
    TssAggregateSignatureError,
    TssOpeningError,
    TssStateProofError,
)
from hedera_history.formats.block import parse_block, parse_block_file, serialize_block
from hedera_history.formats.block_protos import BlockItem
from hedera_history.formats.block_record_file import native_block_files
from hedera_history.formats.block_state import STATE_ID_ACCOUNTS
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream
from hedera_history.gen.block_tamper import BlockTamper, tamper_block
from hedera_history.gen.blocks import zstd_compress
from hedera_history.gen.config_and_output import PeriodKind
from hedera_history.gen.truth import account
from hedera_history.store.accounts import accounts_touched
from hedera_history.verify.block_chain import Link
from hedera_history.verify.block_tss import LedgerTssCheck
from hedera_history.verify.blocks import BlockCheckOptions, BlockReport, verify_blocks
from hedera_history.verify.tss import TssTrust, find_publication

from tests.helpers.block_files import block_sources

BLOCKS = GeneratorConfig(nodes=4, periods=6, transactions=24, seed=5, cutover_after=0, sign_every=3)
"""Native blocks 0-5: 2 and 5 signed, 0-1 and 3-4 proven through them."""


@pytest.fixture(scope="module")
def block_stream() -> GeneratedStream:
    return generate_stream(BLOCKS)


@pytest.fixture(scope="module")
def cutover_stream(generated_cutover_stream: GeneratedStream) -> GeneratedStream:
    """Record files 0-2, wrapped blocks 3-4, native blocks 5-7; the key rotation in block 4."""
    return generated_cutover_stream


def _record_publication(stream: GeneratedStream) -> TssTrust:
    """The ledger's roster as block 0's record file (or wrapped record file) publishes it: its first
    transaction. The verifier reads a native block 0's publication itself; this one is handed to it."""
    zero = stream.periods[0] if stream.periods else stream.block(0).record
    assert zero is not None
    record = parse_record_file(zero.record_bytes, str(zero.record_name).removesuffix(".gz"))
    signed = (hapi.Transaction.FromString(item.transaction_bytes).signedTransactionBytes for item in record.items)
    publication = find_publication(signed)
    assert publication is not None
    return TssTrust(publication)


def _verify(
    stream: GeneratedStream, objects: Mapping[str, bytes] | None = None, trust: TssTrust | None = None
) -> list[BlockReport]:
    first = stream.blocks[0].block_number
    book = parse_address_book(stream.book_for_block(first).book)
    options = BlockCheckOptions(tss=LedgerTssCheck(trust=trust))
    return list(verify_blocks(block_sources(stream, objects), book, options))


def _items(data: bytes, name: str) -> list[bytes]:
    return [item.data for item in parse_block_file(data, name).items]


def _rewritten(stream: GeneratedStream, number: int, edit: Any) -> dict[str, bytes]:
    """The stream's objects with block ``number``'s items edited by ``edit(items) -> items``."""
    path = stream.block(number).path
    items = edit(_items(stream.objects[path], path))
    return {**stream.objects, path: zstd_compress(serialize_block(items))}


def _flip_in_first(kind: str) -> Any:
    """An edit flipping the last byte of the first item of ``kind``."""

    def edit(items: list[bytes]) -> list[bytes]:
        for position, data in enumerate(items):
            if BlockItem.FromString(data).WhichOneof("item") == kind:
                items[position] = data[:-1] + bytes([data[-1] ^ 1])
                return items
        raise AssertionError(f"no {kind} item")

    return edit


# ---- a block stream --------------------------------------------------------------------------------


def test_every_native_block_verifies_with_block_0s_ledger(block_stream: GeneratedStream) -> None:
    reports = _verify(block_stream)
    assert [r.error for r in reports] == [None] * 6
    assert [r.signature.proof for r in reports if r.signature] == [
        "block_state_proof",
        "block_state_proof",
        "signed_block_proof",
    ] * 2
    for report in reports:
        assert report.links is not None and report.links.ok
        assert report.signature is not None and report.signature.verified
        assert (report.signature.stake, report.signature.total_stake) == (4, 4)
    assert [b.proven_by for b in block_stream.blocks] == [2, 2, 2, 5, 5, 5]


def test_block_0_publishes_the_ledger_its_blocks_are_signed_under(block_stream: GeneratedStream) -> None:
    zero = parse_block_file(block_stream.objects[block_stream.blocks[0].path], "0")
    published = find_publication(item.payload for item in zero.items if item.name == "signed_transaction")
    assert published is not None and block_stream.ledger_publication is not None
    tss = block_stream.truth["tss"]
    assert published.ledger_id.hex() == tss["ledger_id"] and tss["publication_block"] == 0
    assert [(e.node_id, e.weight) for e in published.roster] == [(r["node_id"], r["weight"]) for r in tss["roster"]]
    first = block_stream.truth["transactions"][0]
    assert (first["type"], first["status"], first["fee"], first["node"]) == (
        "ledger_id_publication",
        "SUCCESS",
        0,
        None,
    )


def test_native_blocks_are_hapi_0_78_blocks_of_every_item_kind(block_stream: GeneratedStream) -> None:
    block = parse_block_file(block_stream.objects[block_stream.blocks[1].path], "1")
    assert block.number == 1 and str(block.hapi_version) == "0.78.0" and not block.wrapped
    kinds = block.item_counts()
    for kind in ("block_header", "round_header", "event_header", "signed_transaction", "transaction_result"):
        assert kinds[kind] >= 1
    for kind in ("transaction_output", "trace_data", "state_changes", "block_footer", "block_proof"):
        assert kinds.get(kind, 0) >= 1, kind
    assert kinds["signed_transaction"] == kinds["transaction_result"] == BLOCKS.transactions
    assert block_stream.blocks[1].path == "demo/block/0000/0000/0000/0000/001.blk.zstd"


def _truth_by_time(stream: GeneratedStream) -> dict[int, dict[str, Any]]:
    return {entry["consensus_ns"]: entry for entry in stream.truth["transactions"]}


def _native_records(stream: GeneratedStream) -> Iterator[tuple[int, int, Any, Any]]:
    """(block number, index, record, transaction body) of every native block's transaction, as the
    block transformer gives them."""
    for block in stream.blocks:
        if block.kind is not PeriodKind.NATIVE:
            continue
        record_file, sidecars = native_block_files(parse_block_file(stream.objects[block.path], block.path))
        assert record_file.block_number == block.block_number and record_file.file_hash == block.root_hash
        assert sum(len(s.records) for s in sidecars) == block.sidecar_records
        for index, item in enumerate(record_file.items):
            transaction = hapi.Transaction.FromString(item.transaction_bytes)
            signed = hapi.SignedTransaction.FromString(transaction.signedTransactionBytes)
            body = hapi.TransactionBody.FromString(signed.bodyBytes)
            yield block.block_number, index, hapi.TransactionRecord.FromString(item.record_bytes), body


def _as_truth(block_number: int, index: int, record: Any, body: Any) -> dict[str, Any]:
    """The truth's fields of a transaction, read from the record the transformer built."""
    transaction_id = record.transactionID
    receipt = record.receipt
    created = [account(receipt.accountID.accountNum)] if receipt.HasField("accountID") else []
    kind = body.WhichOneof("data")
    if kind == "contractCreateInstance":
        created = [account(receipt.contractID.contractNum)]
    token_list = [t for t in record.tokenTransferLists]
    return {
        "hash": record.transactionHash.hex(),
        "block_number": block_number,
        "index": index,
        "type": kind,
        "status": hapi.ResponseCodeEnum.Name(receipt.status),
        "payer": account(transaction_id.accountID.accountNum),
        "transaction_id": {
            "payer": account(transaction_id.accountID.accountNum),
            "valid_start_ns": transaction_id.transactionValidStart.seconds * 10**9
            + transaction_id.transactionValidStart.nanos,
            "nonce": transaction_id.nonce,
            "scheduled": transaction_id.scheduled,
        },
        "fee": record.transactionFee,
        "memo": record.memo,
        "hbar_transfers": [
            {"account": account(a.accountID.accountNum), "amount": a.amount} for a in record.transferList.accountAmounts
        ],
        "token_transfers": [
            {"token": account(t.token.tokenNum), "account": account(a.accountID.accountNum), "amount": a.amount}
            for t in token_list
            for a in t.transfers
        ],
        "nft_transfers": [
            {
                "token": account(t.token.tokenNum),
                "sender": account(n.senderAccountID.accountNum),
                "receiver": account(n.receiverAccountID.accountNum),
                "serial": n.serialNumber,
            }
            for t in token_list
            for n in t.nftTransfers
        ],
        "created": created,
        "contract": account(receipt.contractID.contractNum) if receipt.HasField("contractID") else None,
        "parent_consensus_ns": record.parent_consensus_timestamp.seconds * 10**9
        + record.parent_consensus_timestamp.nanos
        if record.HasField("parent_consensus_timestamp")
        else None,
    }


@pytest.mark.parametrize("which", ["block_stream", "cutover_stream"])
def test_the_transformer_gives_back_the_truth_of_every_native_transaction(
    which: str, request: pytest.FixtureRequest
) -> None:
    stream: GeneratedStream = request.getfixturevalue(which)
    truth = _truth_by_time(stream)
    seen = set()
    for block_number, index, record, body in _native_records(stream):
        consensus_ns = record.consensusTimestamp.seconds * 10**9 + record.consensusTimestamp.nanos
        expected = truth[consensus_ns]
        found = _as_truth(block_number, index, record, body)
        assert {key: expected[key] for key in found} == found, expected["type"]
        # The store's account history rule reads the same accounts from the transformed record.
        assert accounts_touched(body, record) == set(expected["accounts_touched"])
        seen.add(consensus_ns)
    native = {n for b in stream.truth["blocks"] if b["kind"] == "native" for n in [b["number"]]}
    assert seen == {ns for ns, entry in truth.items() if entry["block_number"] in native}


def test_native_sidecars_come_back_from_trace_data_and_state_changes(block_stream: GeneratedStream) -> None:
    truth = _truth_by_time(block_stream)
    for block in block_stream.blocks:
        _, sidecars = native_block_files(parse_block_file(block_stream.objects[block.path], block.path))
        found: dict[int, set[int]] = {}
        for sidecar in sidecars:
            for record in sidecar.records:
                found.setdefault(record.consensus_ns, set()).add(int(record.type))
        expected = {ns: set(t["sidecar_types"]) for ns, t in truth.items() if t["block_number"] == block.block_number}
        assert found == {ns: types for ns, types in expected.items() if types}


def test_account_state_changes_end_at_the_truths_balances(cutover_stream: GeneratedStream) -> None:
    """Balances the native blocks' state changes state carry on from the record files before them."""
    last: dict[str, int] = {}
    for block in cutover_stream.blocks:
        if block.kind is not PeriodKind.NATIVE:
            continue
        for item in parse_block_file(cutover_stream.objects[block.path], block.path).items:
            if item.name == "state_changes":
                for change in item.message().state_changes.state_changes:
                    if change.state_id == STATE_ID_ACCOUNTS:
                        value = change.map_update.value.account_value
                        last[account(value.account_id.accountNum)] = value.tinybar_balance
    final = cutover_stream.truth["balances"]["final"]
    assert last and {a: final.get(a, 0) for a in last} == last


# ---- across the cutover --------------------------------------------------------------------------------


def test_wrapped_and_native_blocks_after_record_files_verify(cutover_stream: GeneratedStream) -> None:
    reports = _verify(cutover_stream, trust=_record_publication(cutover_stream))
    assert [(r.block.number if r.block else None, r.error) for r in reports] == [(n, None) for n in range(3, 8)]
    assert [r.signature.scheme for r in reports if r.signature] == ["rsa", "rsa", "tss", "tss", "tss"]
    wrapped = reports[0]
    assert wrapped.wrapped is not None and wrapped.signature is not None
    assert wrapped.wrapped.record.file_hash == cutover_stream.block(3).record.file_hash  # type: ignore[union-attr]
    assert wrapped.signature.node_ids == (0, 1, 2, 3)
    assert [r.links.previous_root for r in reports[1:] if r.links] == [Link.OK] * 4


def test_the_cutover_links_as_a_chain_wrapped_from_genesis(cutover_stream: GeneratedStream) -> None:
    """The same network with every record period wrapped: its blocks 0-7 link from genesis, and
    from block 3 on they are the cutover stream's, byte for byte (the first wrapped block names
    the root the last record file has as a block, the all-block-hashes tree covers the record
    files too)."""
    config = replace(cutover_stream.config, periods=6)
    cutover = generate_stream(config)
    wrapped = generate_stream(replace(config, cutover_after=0, wrapped_periods=5))
    assert [b.kind.value for b in wrapped.blocks] == ["wrapped"] * 5 + ["native"]
    for block in cutover.blocks:
        assert cutover.objects[block.path] == wrapped.objects[block.path]
    reports = _verify(wrapped, trust=_record_publication(wrapped))
    assert [r.error for r in reports] == [None] * 6
    assert all(r.links is not None and r.links.ok for r in reports)
    roots = [b["root_hash"] for b in cutover.truth["blocks"]]
    assert roots == [block.root_hash.hex() for block in wrapped.blocks]


def test_the_truth_says_where_the_cutover_is(cutover_stream: GeneratedStream) -> None:
    truth = cutover_stream.truth
    assert truth["cutover"] == {"record_periods": 3, "first_wrapped_block": 3, "first_native_block": 5}
    kinds = [(b["number"], b["kind"], b["version"]) for b in truth["blocks"]]
    assert kinds == [(0, "record", 6), (1, "record", 6), (2, "record", 6), (3, "wrapped", 6), (4, "wrapped", 6)] + [
        (n, "native", 7) for n in (5, 6, 7)
    ]
    assert [b["previous_hash"] for b in truth["blocks"][6:]] == [b["hash"] for b in truth["blocks"][5:7]]
    assert truth["blocks"][5]["previous_root_hash"] == truth["blocks"][4]["root_hash"]
    assert len(cutover_stream.periods) == 3 and len(cutover_stream.blocks) == 5
    assert truth["counts"]["blocks"] == 8 and truth["counts"]["transactions"] == 8 * 24


def test_the_rotated_key_signs_the_wrapped_block_after_it(cutover_stream: GeneratedStream) -> None:
    """The book the 0.0.102 update in block 4 puts in force is the one later wrapped blocks verify
    under (here none: block 5 is native, whose TSS signature no book change touches)."""
    assert cutover_stream.truth["address_books"][1]["first_block"] == 5
    assert cutover_stream.truth["blocks"][4]["signers"] == ["0.0.3", "0.0.4", "0.0.5", "0.0.6"]


# ---- tampered blocks --------------------------------------------------------------------------------


def test_a_changed_transaction_breaks_the_signature_and_the_next_link(block_stream: GeneratedStream) -> None:
    reports = _verify(block_stream, tamper_block(block_stream, 2).objects)
    assert [type(r.error) for r in reports[2:4]] == [TssAggregateSignatureError, BrokenChainError]
    # Blocks 0 and 1 walk to block 2's root as it was signed: their state proofs still hold.
    assert reports[0].ok and reports[1].ok


def test_a_block_proven_through_a_later_one_fails_when_it_changes(block_stream: GeneratedStream) -> None:
    reports = _verify(block_stream, tamper_block(block_stream, 0).objects)
    assert isinstance(reports[0].error, TssStateProofError)
    assert isinstance(reports[1].error, BrokenChainError)


@pytest.mark.parametrize("number", [1, 2])
def test_a_changed_signature_is_refused(number: int, block_stream: GeneratedStream) -> None:
    """Block 1's state proof carries block 2's signature, block 2 its own: either changed fails."""
    reports = _verify(block_stream, tamper_block(block_stream, number, BlockTamper.SIGNATURE).objects)
    assert isinstance(reports[number].error, TssOpeningError)
    assert [r.ok for r in reports] == [n != number for n in range(6)]


def test_a_signature_of_another_block_is_refused(block_stream: GeneratedStream) -> None:
    def proof_of_block_5(items: list[bytes]) -> list[bytes]:
        other = _items(block_stream.objects[block_stream.block(5).path], "5")
        proof = BlockItem.FromString(other[-1])
        proof.block_proof.block = 2
        return [*items[:-1], proof.SerializeToString()]

    reports = _verify(block_stream, _rewritten(block_stream, 2, proof_of_block_5))
    assert isinstance(reports[2].error, TssAggregateSignatureError)


@pytest.mark.parametrize(
    ("signers", "error"),
    [((0,), NoConsensusError), ((0, 1, 2), None)],
)
def test_a_wrapped_block_needs_the_nodes_signatures(
    signers: Sequence[int], error: type[Exception] | None, cutover_stream: GeneratedStream
) -> None:
    stream = generate_stream(replace(cutover_stream.config, periods=6, signers={3: tuple(signers)}))
    reports = _verify(stream, trust=_record_publication(stream))
    assert type(reports[0].error) is (error or type(None))
    assert stream.truth["blocks"][3]["signers"] == [account(3 + n) for n in signers]


def test_a_changed_wrapped_record_file_is_refused(cutover_stream: GeneratedStream) -> None:
    trust = _record_publication(cutover_stream)
    reports = _verify(cutover_stream, tamper_block(cutover_stream, 3).objects, trust)
    assert isinstance(reports[0].error, RunningHashMismatchError)
    assert isinstance(reports[1].error, BrokenChainError)
    reports = _verify(cutover_stream, _rewritten(cutover_stream, 3, _flip_in_first("record_file")), trust)
    assert isinstance(reports[0].error, SidecarMismatchError)  # the item's last bytes are its sidecar's


def test_one_nodes_changed_signature_leaves_a_wrapped_block_to_the_others(cutover_stream: GeneratedStream) -> None:
    damaged = tamper_block(cutover_stream, 3, BlockTamper.SIGNATURE)
    (report, *_) = _verify(cutover_stream, damaged.objects, _record_publication(cutover_stream))
    assert report.ok and report.signature is not None
    assert report.signature.node_ids == (1, 2, 3) and dict(report.signature.outcomes)["0.0.3"] != "ok"


# ---- determinism, layout, configuration ------------------------------------------------------------


def test_the_same_config_gives_the_same_block_files(block_stream: GeneratedStream) -> None:
    again = generate_stream(BLOCKS)
    assert again.objects == block_stream.objects and again.truth == block_stream.truth


def test_flat_block_files() -> None:
    stream = generate_stream(GeneratorConfig(nodes=2, periods=2, transactions=8, cutover_after=0, flat_blocks=True))
    assert [b.path for b in stream.blocks] == [
        "demo/block/0000000000000000000.blk.zstd",
        "demo/block/0000000000000000001.blk.zstd",
    ]
    parse_block(serialize_block(_items(stream.objects[stream.blocks[1].path], "1")), "1")


@pytest.mark.parametrize(
    "fields",
    [
        {"wrapped_periods": 2},
        {"cutover_after": 1, "eras": ((5, 1), (6, 3))},
        {"cutover_after": 1, "duplicate_block_at": 2},
        {"cutover_after": 1, "sign_every": 0},
        {"cutover_after": -1},
        {"cutover_after": 0, "block_hapi_version": (0, 73, 0)},
    ],
)
def test_configs_that_make_no_sense_are_refused(fields: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        GeneratorConfig(nodes=2, periods=4, transactions=8, **fields)


def test_a_record_stream_is_unchanged_by_the_block_options() -> None:
    """No cutover: no ledger publication, no block file, the truth without block sections."""
    stream = generate_stream(GeneratorConfig(nodes=2, periods=2, transactions=8))
    assert stream.ledger_publication is None and not stream.blocks
    assert "cutover" not in stream.truth and "kind" not in stream.truth["blocks"][0]
