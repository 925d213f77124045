"""A block transaction's common record, parsed from its result's and body's fields renumbered by the
compiled core: the record a copy of each field gives, whatever the result holds or lacks."""

from __future__ import annotations

import pytest
from hedera_history import hapi, speedups
from hedera_history.formats.block_protos import BlockItem
from hedera_history.formats.block_records import _common_record, _copied_record
from hedera_history.formats.block_transactions import BlockTransaction, block_transactions
from hedera_history.formats.wire import length_delimited, varint_field

from tests.unit.formats.block_builders import BASE_NS, account, body, result_item, signed_item, timestamp

RESULTS = {
    "a transfer": result_item(BASE_NS),
    "status 0, no fee, nothing else": BlockItem(transaction_result={"status": 0}),
    "a child": result_item(BASE_NS + 1, parent_ns=BASE_NS),
    "every repeated field": BlockItem(
        transaction_result={
            "status": 22,
            "consensus_timestamp": timestamp(BASE_NS),
            "transaction_fee_charged": 7,
            "token_transfer_lists": [{"token": {"tokenNum": 5}}, {"token": {"tokenNum": 6}}],
            "automatic_token_associations": [{"account_id": account(1003)}],
            "paid_staking_rewards": [{"accountID": account(800), "amount": 3}],
            "assessed_custom_fees": [{"amount": 1, "fee_collector_account_id": account(98)}],
            "schedule_ref": {"scheduleNum": 9},
            "congestion_pricing_multiplier": 4,
        }
    ),
}


def _transaction(result: BlockItem, memo: str = "a memo") -> BlockTransaction:
    transaction_body = body(cryptoTransfer={})
    transaction_body.memo = memo
    (transaction,) = block_transactions([signed_item(transaction_body), result])
    return transaction


@pytest.mark.parametrize("result", RESULTS.values(), ids=RESULTS.keys())
@pytest.mark.parametrize("memo", ["a memo", ""])
def test_the_renumbered_record_is_the_copied_one(result: BlockItem, memo: str) -> None:
    transaction = _transaction(result, memo)
    assert _common_record(transaction).SerializeToString() == _copied_record(transaction).SerializeToString()


def test_fields_of_other_wire_types_and_unknown_fields_are_left_out() -> None:
    assert speedups.renumbered_fields is not None, "the compiled core did not build"
    data = varint_field(7, 3) + length_delimited(99, b"x") + length_delimited(2, b"\x08\x01") + varint_field(6, 300)
    mapping = bytes((2, 3, 2, 6, 6, 0, 7, 10, 2))
    assert speedups.renumbered_fields(data, mapping) == length_delimited(3, b"\x08\x01") + varint_field(6, 300)
    assert (
        speedups.renumbered_fields(length_delimited(2, b"y") * 2, bytes((2, 18, 2))) == length_delimited(18, b"y") * 2
    )
    assert speedups.renumbered_fields(b"", mapping) == b""


@pytest.mark.parametrize("data", [b"\x12\x05ab", b"\x0b\x0c", b"\x80"])
def test_bytes_that_do_not_parse_are_left_to_the_copy(data: bytes) -> None:
    assert speedups.renumbered_fields is not None
    assert speedups.renumbered_fields(data, bytes((2, 3, 2))) is None


def test_a_mapping_to_numbers_past_one_byte_tags_is_refused() -> None:
    assert speedups.renumbered_fields is not None
    with pytest.raises(ValueError, match="1 to 127"):
        speedups.renumbered_fields(b"", bytes((2, 200, 2)))
    with pytest.raises(TypeError):
        speedups.renumbered_fields(b"", b"\x02\x03")


def test_the_record_keeps_the_payer_and_hash() -> None:
    transaction = _transaction(RESULTS["a transfer"])
    record = _common_record(transaction)
    assert record.transactionID.accountID.accountNum > 0 and len(record.transactionHash) == 48
    assert isinstance(record, hapi.TransactionRecord)
