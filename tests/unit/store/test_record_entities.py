"""What the compiled core reads of a record's bytes (``speedups.transaction_rows``): the entities it
names, its status, hash and transaction id, the same as the message API gives however the fields are
spread over the wire, so the rows put are the Python path's."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hedera_history import hapi, speedups
from hedera_history.formats.wire import length_delimited, varint_field
from hedera_history.store import rows
from hedera_history.store.accounts import touched_entities
from hedera_history.store.keys import entity_id

from .builders import account, transfer_list


def _id(num: int, *, shard: int = 0, realm: int = 0) -> bytes:
    return varint_field(1, shard) + varint_field(2, realm) + varint_field(3, num)


def _alias(alias: bytes) -> bytes:
    return length_delimited(4, alias)


def _amount(account_id: bytes, amount: int = 1) -> bytes:
    return length_delimited(1, account_id) + varint_field(2, amount)


def _transfers(*amounts: bytes) -> bytes:
    return length_delimited(10, b"".join(length_delimited(1, a) for a in amounts))


SHAPES = {
    "plain": _transfers(_amount(_id(3)), _amount(_id(1001)), _amount(_id(98)))
    + length_delimited(4, length_delimited(2, _id(1001))),
    "two transfer lists merge": _transfers(_amount(_id(3))) + _transfers(_amount(_id(2002))),
    "an alias after the number": _transfers(_amount(_id(7) + _alias(b"\x01" * 33))),
    "a number after the alias": _transfers(_amount(_alias(b"\x01" * 33) + _id(8))),
    "an account id given twice merges": _transfers(
        length_delimited(1, length_delimited(1, _id(9)) + length_delimited(1, varint_field(1, 2)))
    ),
    "the payer over two transaction ids": length_delimited(4, length_delimited(2, _id(1001)))
    + length_delimited(4, length_delimited(2, varint_field(2, 5))),
    "the receipt's account and contract": length_delimited(
        1, varint_field(1, 22) + length_delimited(2, _id(4004, shard=1)) + length_delimited(4, _id(5005))
    ),
    "a contract by EVM address": length_delimited(1, length_delimited(4, _id(6006) + _alias(b"\x02" * 20))),
    "negative and zero numbers": _transfers(_amount(_id(0)), _amount(varint_field(3, (1 << 64) - 5))),
    "unknown fields and other wire types": _transfers(_amount(_id(11)) + varint_field(15, 3))
    + varint_field(10, 4)
    + length_delimited(99, b"\x0a\x02\x18\x05"),
}


_PLACE = (7, 3, 0, 3, 0, b"\x00", None)
_CONSENSUS = 1_700_000_000_123_456_789


def _compiled_rows(data: bytes) -> tuple[object, rows._Targets]:
    assert speedups.transaction_rows is not None, "the compiled core did not build"
    targets: rows._Targets = ({}, {}, {}, {})
    return speedups.transaction_rows(data, None, _CONSENSUS, [], targets, rows._CELL_NAMES, _PLACE), targets


def _python_rows(data: bytes) -> tuple[object, rows._Targets]:
    targets: rows._Targets = ({}, {}, {}, {})
    record = hapi.TransactionRecord.FromString(data)
    return rows.python_transaction_rows(record, None, None, _CONSENSUS, targets, _PLACE), targets


def _history_entities(targets: rows._Targets) -> set[str]:
    return {key.decode().split("/")[0] for key in targets[3]}


@pytest.mark.parametrize("data", SHAPES.values(), ids=SHAPES.keys())
def test_the_compiled_numbers_are_the_messages(data: bytes) -> None:
    record = hapi.TransactionRecord.FromString(data)
    compiled, targets = _compiled_rows(data)
    assert compiled is not None and (compiled, targets) == _python_rows(data)
    assert _history_entities(targets) == {entity_id(*numbers) for numbers in touched_entities(None, record)}


def test_a_record_of_every_common_field() -> None:
    record = hapi.TransactionRecord(transferList=transfer_list((1001, -5), (3, 1), (98, 4)))
    record.transactionID.accountID.CopyFrom(account(1001))
    record.receipt.accountID.CopyFrom(account(2002))
    record.receipt.contractID.contractNum = 3003
    assert touched_entities(None, record) == {(0, 0, n) for n in (1001, 3, 98, 2002, 3003)}
    _, targets = _compiled_rows(record.SerializeToString())
    assert _history_entities(targets) == {f"0.0.{n}" for n in (1001, 3, 98, 2002, 3003)}


@pytest.mark.parametrize("data", [b"\x0a", b"\x52\x05\x0a\x03\x0a\x01", b"\x07", b"\x0b\x0c"])
def test_bytes_that_do_not_parse_are_left_to_the_parser(data: bytes) -> None:
    assert _compiled_rows(data) == (None, ({}, {}, {}, {}))


def _fill(rng: random.Random, entity: Any, number_field: str, other_field: str) -> None:
    entity.shardNum, entity.realmNum = rng.choice([(0, 0), (0, 0), (1, 2)])
    choice = rng.random()
    if choice < 0.6:
        setattr(entity, number_field, rng.choice([3, 98, 1001, 2**40, 0, -7]))
    elif choice < 0.8:
        setattr(entity, other_field, rng.randbytes(20))


def _account(rng: random.Random, entity: Any) -> None:
    _fill(rng, entity, "accountNum", "alias")


def _random_record(rng: random.Random) -> Any:
    """A record with every field the entities are read from, each present or not."""
    record = hapi.TransactionRecord()
    for _ in range(rng.randint(0, 3)):
        _account(rng, record.transferList.accountAmounts.add(amount=1).accountID)
    if rng.random() < 0.8:
        _account(rng, record.transactionID.accountID)
    if rng.random() < 0.5:
        _account(rng, record.receipt.accountID)
    if rng.random() < 0.3:
        _fill(rng, record.receipt.contractID, "contractNum", "evm_address")
    for _ in range(rng.randint(0, 2)):
        token_list = record.tokenTransferLists.add()
        for _ in range(rng.randint(0, 2)):
            _account(rng, token_list.transfers.add(amount=1).accountID)
        for _ in range(rng.randint(0, 2)):
            nft = token_list.nftTransfers.add(serialNumber=1)
            _account(rng, nft.senderAccountID)
            _account(rng, nft.receiverAccountID)
    for _ in range(rng.randint(0, 1)):
        _account(rng, record.paid_staking_rewards.add(amount=1).accountID)
    for _ in range(rng.randint(0, 1)):
        fee = record.assessed_custom_fees.add(amount=1)
        _account(rng, fee.fee_collector_account_id)
        for _ in range(rng.randint(0, 2)):
            _account(rng, fee.effective_payer_account_id.add())
    for _ in range(rng.randint(0, 1)):
        _account(rng, record.automatic_token_associations.add().account_id)
    for _ in range(rng.randint(0, 1)):
        pending = record.new_pending_airdrops.add().pending_airdrop_id
        _account(rng, pending.sender_id)
        _account(rng, pending.receiver_id)
    if rng.random() < 0.4:
        result = record.contractCallResult if rng.random() < 0.5 else record.contractCreateResult
        result.gasUsed = 1
        if rng.random() < 0.7:
            _fill(rng, result.contractID, "contractNum", "evm_address")
        for _ in range(rng.randint(0, 2)):
            _fill(rng, result.createdContractIDs.add(), "contractNum", "evm_address")
        if rng.random() < 0.7:
            _account(rng, result.sender_id)
    return record


def test_random_records_and_their_merges_read_as_the_messages_do() -> None:
    """Two serialised records back to back parse as one record of both merged: singular fields
    merged, repeated ones joined, the contract result's oneof taken by the later member."""
    rng = random.Random(29)
    records = [_random_record(rng).SerializeToString() for _ in range(400)]
    for data in [*records, *(records[i] + records[i + 1] for i in range(0, len(records) - 1))]:
        compiled = _compiled_rows(data)
        assert compiled[0] is not None and compiled == _python_rows(data), data


def _random_summary_record(rng: random.Random) -> Any:
    record = _random_record(rng)
    if rng.random() < 0.8:
        record.receipt.status = rng.choice([0, 22, 7, 400, 2**31 - 1])
    if rng.random() < 0.8:
        record.transactionHash = rng.randbytes(rng.choice([0, 48]))
    if rng.random() < 0.7:
        transaction_id = record.transactionID
        transaction_id.transactionValidStart.seconds = rng.choice([0, 1_700_000_000, -5, 2**40])
        transaction_id.transactionValidStart.nanos = rng.choice([0, 999_999_999, -1])
        transaction_id.scheduled = rng.random() < 0.3
        transaction_id.nonce = rng.choice([0, 1, -3, 2**31 - 1])
    return record


def test_the_status_hash_and_id_are_the_messages_of_random_records_and_their_merges() -> None:
    rng = random.Random(15)
    records = [_random_summary_record(rng).SerializeToString() for _ in range(400)]
    for data in [*records, *(records[i] + records[i + 1] for i in range(0, len(records) - 1)), b""]:
        compiled = _compiled_rows(data)
        assert compiled[0] is not None and compiled == _python_rows(data), data
    assert _compiled_rows(b"\x22\x05\x0a")[0] is None
