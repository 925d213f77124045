"""Small hand-built block items for the block-to-record tests."""

from __future__ import annotations

from typing import Any

from hedera_history import hapi
from hedera_history.formats.block_protos import (
    BlockItem,
    StateChanges,
    TraceData,
    TransactionOutput,
    TransactionResult,
    state_changes,
)

SUCCESS = hapi.ResponseCodeEnum.Value("SUCCESS")
BASE_NS = 1_770_000_000_000_000_000


def timestamp(ns: int) -> hapi.Timestamp:
    return hapi.Timestamp(seconds=ns // 1_000_000_000, nanos=ns % 1_000_000_000)


def account(num: int) -> hapi.AccountID:
    return hapi.AccountID(shardNum=0, realmNum=0, accountNum=num)


def contract(num: int) -> Any:
    return hapi.basic_types.ContractID(contractNum=num)


def body(
    payer: int = 1001, start_ns: int = BASE_NS - 5_000_000_000, memo: str = "", **data: Any
) -> hapi.TransactionBody:
    """A body paid by ``payer``: ``data`` is its one case, e.g. ``cryptoTransfer={}``."""
    result = hapi.TransactionBody(memo=memo, nodeAccountID=account(3), transactionFee=100_000_000)
    result.transactionID.accountID.CopyFrom(account(payer))
    result.transactionID.transactionValidStart.CopyFrom(timestamp(start_ns))
    for case, value in data.items():
        _set(result, case, value)
    return result


def _set(message: Any, name: str, value: Any) -> None:
    """Set one field: a list extends it, a message is copied, a dict fills the sub-message."""
    if isinstance(value, dict):
        sub = getattr(message, name)
        sub.SetInParent()
        for sub_name, sub_value in value.items():
            _set(sub, sub_name, sub_value)
    elif isinstance(value, list):
        for element in value:
            if isinstance(element, dict):
                sub = getattr(message, name).add()
                for sub_name, sub_value in element.items():
                    _set(sub, sub_name, sub_value)
            else:
                getattr(message, name).append(element)
    elif hasattr(value, "DESCRIPTOR"):
        getattr(message, name).CopyFrom(value)
    else:
        setattr(message, name, value)


def signed_bytes(transaction_body: hapi.TransactionBody, *, legacy: bool = False) -> bytes:
    signed = hapi.SignedTransaction(bodyBytes=transaction_body.SerializeToString())
    pair = signed.sigMap.sigPair.add()
    pair.pubKeyPrefix = b"\x01"
    pair.ed25519 = b"\x02" * 64
    signed.use_serialized_tx_message_hash_algorithm = legacy
    data: bytes = signed.SerializeToString()
    return data


def signed_item(transaction_body: hapi.TransactionBody, *, legacy: bool = False) -> BlockItem:
    return BlockItem(signed_transaction=signed_bytes(transaction_body, legacy=legacy))


def result_item(
    ns: int,
    status: int = SUCCESS,
    *,
    parent_ns: int | None = None,
    transfers: tuple[tuple[int, int], ...] = ((1001, -10), (3, 10)),
    **fields: Any,
) -> BlockItem:
    result = TransactionResult(status=status, transaction_fee_charged=10)
    result.consensus_timestamp.CopyFrom(timestamp(ns))
    if parent_ns is not None:
        result.parent_consensus_timestamp.CopyFrom(timestamp(parent_ns))
    for num, amount in transfers:
        result.transfer_list.accountAmounts.add(accountID=account(num), amount=amount)
    for name, value in fields.items():
        _set(result, name, value)
    return BlockItem(transaction_result=result)


def output_item(**case: Any) -> BlockItem:
    """A ``TransactionOutput`` of one case, e.g. ``account_create={"created_account_id": ...}``."""
    output = TransactionOutput()
    for name, value in case.items():
        _set(output, name, value)
    return BlockItem(transaction_output=output)


def trace_item(**case: Any) -> BlockItem:
    trace = TraceData()
    for name, value in case.items():
        _set(trace, name, value)
    return BlockItem(trace_data=trace)


def state_item(ns: int, *changes: Any) -> BlockItem:
    item = StateChanges(state_changes=list(changes))
    item.consensus_timestamp.CopyFrom(timestamp(ns))
    return BlockItem(state_changes=item)


def map_update(state_id: int, *, key: dict[str, Any] | None = None, value: dict[str, Any] | None = None) -> Any:
    """A ``StateChange`` updating one map entry: ``key`` and ``value`` name one case each."""
    change = state_changes.StateChange(state_id=state_id)
    change.map_update.SetInParent()
    for name, field_value in (key or {}).items():
        _set(change.map_update.key, name, field_value)
    for name, field_value in (value or {}).items():
        _set(change.map_update.value, name, field_value)
    return change


def event_header() -> BlockItem:
    item = BlockItem()
    item.event_header.SetInParent()
    return item


def round_header(number: int) -> BlockItem:
    item = BlockItem()
    item.round_header.round_number = number
    return item
