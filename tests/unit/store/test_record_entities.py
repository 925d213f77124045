"""The entities every record may name, read by the compiled core from the record's bytes: the same
numbers the message API gives, however the fields are spread over the wire."""

from __future__ import annotations

import pytest
from hedera_history import hapi, speedups
from hedera_history.formats.wire import length_delimited, varint_field
from hedera_history.store.accounts import touched_entities

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


@pytest.mark.parametrize("data", SHAPES.values(), ids=SHAPES.keys())
def test_the_compiled_numbers_are_the_messages(data: bytes) -> None:
    record = hapi.TransactionRecord.FromString(data)
    assert touched_entities(None, record, data) == touched_entities(None, record)
    assert speedups.record_entities is not None, "the compiled core did not build"
    assert speedups.record_entities(data) is not None


def test_a_record_of_every_common_field() -> None:
    record = hapi.TransactionRecord(transferList=transfer_list((1001, -5), (3, 1), (98, 4)))
    record.transactionID.accountID.CopyFrom(account(1001))
    record.receipt.accountID.CopyFrom(account(2002))
    record.receipt.contractID.contractNum = 3003
    data = record.SerializeToString()
    assert touched_entities(None, record, data) == {(0, 0, n) for n in (1001, 3, 98, 2002, 3003)}


@pytest.mark.parametrize("data", [b"\x0a", b"\x52\x05\x0a\x03\x0a\x01", b"\x07", b"\x0b\x0c"])
def test_bytes_that_do_not_parse_are_left_to_the_parser(data: bytes) -> None:
    assert speedups.record_entities is not None
    assert speedups.record_entities(data) is None
