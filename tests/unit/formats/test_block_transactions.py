"""Grouping a native block's items into transactions, as the reference's block reader groups them."""

from __future__ import annotations

import pytest
from hedera_history.errors import BlockTransactionError, CorruptFileError
from hedera_history.formats.block import ItemKind, parse_block, serialize_block
from hedera_history.formats.block_protos import BlockItem
from hedera_history.formats.block_transactions import BlockTransaction, block_file_transactions, block_transactions

from tests.unit.formats.block_builders import (
    BASE_NS,
    body,
    event_header,
    output_item,
    result_item,
    round_header,
    signed_bytes,
    signed_item,
    state_item,
    trace_item,
)
from tests.unit.formats.block_files import footer_item, header_item, item, tss_proof_item

FAILED = 7  # INVALID_SIGNATURE


def test_a_transaction_takes_its_result_outputs_trace_and_own_state_changes() -> None:
    items = [
        BlockItem(),  # stands for the header: no transaction starts here
        round_header(1),
        event_header(),
        state_item(BASE_NS - 1),  # end of the round before: of no transaction
        signed_item(body(cryptoCreateAccount={})),
        result_item(BASE_NS),
        output_item(account_create={}),
        trace_item(submit_message_trace_data={"sequence_number": 1}),
        state_item(BASE_NS),
        state_item(BASE_NS + 99),  # stamped with another time: consumed, of no transaction
        signed_item(body(cryptoTransfer={})),
        result_item(BASE_NS + 1),
    ]
    first, second = block_transactions(items)
    assert first.consensus_ns == BASE_NS
    assert first.body.WhichOneof("data") == "cryptoCreateAccount"
    assert first.output("account_create") is not None and first.output("contract_call") is None
    assert len(first.trace_data) == 1 and len(first.state_changes) == 1
    assert first.item_indexes == (4, 5, 6, 7, 8)
    assert first.parent is None and not first.in_batch
    assert second.consensus_ns == BASE_NS + 1 and second.state_changes == ()
    assert second.signed_transaction_bytes == items[10].signed_transaction


def test_a_signed_transaction_without_a_result_is_a_system_transaction_and_makes_none() -> None:
    items = [
        signed_item(body(state_signature_transaction={})),
        state_item(BASE_NS - 5),
        signed_item(body(cryptoTransfer={})),
        result_item(BASE_NS),
        event_header(),
        signed_item(body(state_signature_transaction={})),
    ]
    (transaction,) = block_transactions(items)
    assert transaction.body.WhichOneof("data") == "cryptoTransfer"


def test_children_name_their_parent_as_the_reference_resolves_it() -> None:
    items = [
        signed_item(body(contractCall={})),
        result_item(BASE_NS),
        signed_item(body(cryptoTransfer={})),
        result_item(BASE_NS + 1, parent_ns=BASE_NS),
        signed_item(body(cryptoTransfer={})),
        result_item(BASE_NS + 2, parent_ns=BASE_NS),  # the previous one's parent
        signed_item(body(cryptoTransfer={})),
        result_item(BASE_NS + 3, parent_ns=BASE_NS + 77),  # a parent not before it: none
    ]
    parents = [t.parent for t in block_transactions(items)]
    assert parents == [None, 0, 0, None]


def test_an_atomic_batch_takes_its_inner_transactions_from_its_body_until_one_fails() -> None:
    inner = [signed_bytes(body(payer=2000 + n, cryptoTransfer={})) for n in range(3)]
    batch = body(atomic_batch={"transactions": inner})
    items = [
        signed_item(batch),
        result_item(BASE_NS),
        result_item(BASE_NS + 1, parent_ns=BASE_NS),
        signed_item(body(cryptoTransfer={})),  # the batch's own child, between inner transactions
        result_item(BASE_NS + 2, parent_ns=BASE_NS + 1),
        result_item(BASE_NS + 3, FAILED, parent_ns=BASE_NS),
        event_header(),  # the third inner transaction never ran: no result
        signed_item(body(cryptoTransfer={})),
        result_item(BASE_NS + 4),
    ]
    transactions = block_transactions(items)
    assert [t.in_batch for t in transactions] == [False, True, False, True, False]
    assert transactions[1].signed_transaction_bytes == inner[0]
    assert transactions[3].signed_transaction_bytes == inner[1]
    assert [t.parent for t in transactions] == [None, 0, 1, 0, None]
    assert transactions[1].item_indexes == (2,)


def test_items_of_kinds_newer_than_the_protobufs_are_stepped_over() -> None:
    unknown = BlockItem.FromString(bytes([0xA2, 0x06, 0x01, 0x00]))  # field 100, length 1
    items = [unknown, signed_item(body(cryptoTransfer={})), result_item(BASE_NS), unknown]
    assert len(block_transactions(items)) == 1


def test_a_signed_transaction_that_does_not_decode_is_a_typed_error() -> None:
    items = [BlockItem(signed_transaction=b"\xff\xff"), result_item(BASE_NS)]
    with pytest.raises(BlockTransactionError, match="transaction 0"):
        block_transactions(items)


def _as_read(transaction: BlockTransaction) -> tuple[object, ...]:
    return (
        transaction.signed_transaction_bytes,
        transaction.body.SerializeToString(),
        transaction.result.SerializeToString(),
        [m.SerializeToString() for m in (*transaction.outputs, *transaction.trace_data, *transaction.state_changes)],
        transaction.parent,
        transaction.in_batch,
        transaction.item_indexes,
    )


def test_a_block_files_items_read_from_their_wire_bytes_group_as_their_messages_do() -> None:
    inner = [signed_bytes(body(payer=2000 + n, cryptoTransfer={})) for n in range(2)]
    middle = [
        round_header(1),
        event_header(),
        state_item(BASE_NS - 1),
        signed_item(body(atomic_batch={"transactions": inner})),
        result_item(BASE_NS),
        result_item(BASE_NS + 1, parent_ns=BASE_NS),
        signed_item(body(cryptoCreateAccount={})),
        result_item(BASE_NS + 2, parent_ns=BASE_NS + 1),
        output_item(account_create={}),
        trace_item(submit_message_trace_data={"sequence_number": 1}),
        state_item(BASE_NS + 2),
        result_item(BASE_NS + 3, parent_ns=BASE_NS),
        BlockItem.FromString(bytes([0xA2, 0x06, 0x01, 0x00])),  # a kind newer than the protobufs
        signed_item(body(cryptoTransfer={})),
        result_item(BASE_NS + 4),
        state_item(BASE_NS + 4),
    ]
    data = serialize_block([header_item(3), *(i.SerializeToString() for i in middle), footer_item(), tss_proof_item(3)])
    block = parse_block(data, "3.blk")
    from_messages = block_transactions([i.message() for i in block.items])
    assert len(from_messages) == 5
    assert [_as_read(t) for t in block_file_transactions(block)] == [_as_read(t) for t in from_messages]


def test_a_block_file_item_that_does_not_parse_is_corrupt() -> None:
    middle = [signed_item(body(cryptoTransfer={})).SerializeToString(), item(ItemKind.TRANSACTION_RESULT, b"\xff")]
    block = parse_block(serialize_block([header_item(3), *middle, footer_item(), tss_proof_item(3)]), "3.blk")
    with pytest.raises(CorruptFileError, match="transaction_result item"):
        block_file_transactions(block)
