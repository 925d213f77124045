"""Sidecar records as JSON: contract actions and storage state changes (mirror-node shaped), and
every record of a transaction as stored, including types this HAPI version does not know."""

from __future__ import annotations

from typing import Any

from google.protobuf.unknown_fields import UnknownFieldSet

from hedera_history import hapi
from hedera_history.api.render import timestamp
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.store.decode import StoredSidecarRecord

EVM_ADDRESS_BYTES = 20
WORD_BYTES = 32

_RESULT_DATA_TYPES = {"output": "OUTPUT", "revert_reason": "REVERT_REASON", "error": "ERROR"}


def hex_data(data: bytes) -> str:
    return "0x" + data.hex()


def word(data: bytes) -> str:
    """A storage slot or value as the mirror node shows it: 32 bytes, left-padded with zeros.

    Sidecars store them with leading zero bytes stripped."""
    return hex_data(data.rjust(WORD_BYTES, b"\x00"))


def long_zero_address(shard: int, realm: int, num: int) -> str | None:
    """The EVM address of entity ``shard.realm.num`` (4 + 8 + 8 bytes), or None when it does not fit."""
    try:
        return hex_data(shard.to_bytes(4, "big") + realm.to_bytes(8, "big") + num.to_bytes(8, "big"))
    except OverflowError:
        return None


def _evm_bytes(data: bytes) -> str | None:
    return hex_data(data) if len(data) == EVM_ADDRESS_BYTES else None


def _numbered(shard: int, realm: int, num: int) -> tuple[str, str | None]:
    return f"{shard}.{realm}.{num}", long_zero_address(shard, realm, num)


def account_reference(account: Any) -> tuple[str | None, str | None]:
    """(entity id, EVM address) of an ``AccountID``; an alias gives no entity id."""
    if account.WhichOneof("account") == "alias":
        return None, _evm_bytes(account.alias)
    return _numbered(account.shardNum, account.realmNum, account.accountNum)


def contract_reference(contract: Any) -> tuple[str | None, str | None]:
    """(entity id, EVM address) of a ``ContractID``; an EVM address alone gives no entity id."""
    if contract.WhichOneof("contract") == "evm_address":
        return None, _evm_bytes(contract.evm_address)
    return _numbered(contract.shardNum, contract.realmNum, contract.contractNum)


def _enum_name(enum: Any, value: int, prefix: str = "") -> str:
    try:
        name = str(enum.Name(value))
    except ValueError:
        return "UNKNOWN"
    return name.removeprefix(prefix)


def render_action(action: Any, index: int, consensus_ns: int) -> dict[str, Any]:
    """One ``ContractAction`` at position ``index`` of its transaction's actions."""
    caller = caller_type = sender = None
    match action.WhichOneof("caller"):
        case "calling_account":
            (caller, sender), caller_type = account_reference(action.calling_account), "ACCOUNT"
        case "calling_contract":
            (caller, sender), caller_type = contract_reference(action.calling_contract), "CONTRACT"
    recipient = recipient_type = to = None
    match action.WhichOneof("recipient"):
        case "recipient_account":
            (recipient, to), recipient_type = account_reference(action.recipient_account), "ACCOUNT"
        case "recipient_contract":
            (recipient, to), recipient_type = contract_reference(action.recipient_contract), "CONTRACT"
        case "targeted_address":
            to = hex_data(action.targeted_address)
    result_kind = action.WhichOneof("result_data")
    return {
        "call_depth": int(action.call_depth),
        "call_operation_type": _enum_name(hapi.contract_action.CallOperationType, action.call_operation_type, "OP_"),
        "call_type": _enum_name(hapi.contract_action.ContractActionType, action.call_type),
        "caller": caller,
        "caller_type": caller_type,
        "from": sender,
        "gas": int(action.gas),
        "gas_used": int(action.gas_used),
        "index": index,
        "input": hex_data(action.input),
        "recipient": recipient,
        "recipient_type": recipient_type,
        "result_data": None if result_kind is None else hex_data(getattr(action, result_kind)),
        "result_data_type": _RESULT_DATA_TYPES.get(result_kind or "output", "OUTPUT"),
        "timestamp": timestamp(consensus_ns),
        "to": to,
        "value": int(action.value),
    }


def render_state_changes(sidecar_record: Any) -> list[dict[str, Any]]:
    """Every storage slot a ``state_changes`` sidecar record lists, contract by contract."""
    rendered = []
    for change in sidecar_record.state_changes.contract_state_changes:
        contract_id, address = contract_reference(change.contract_id)
        for storage in change.storage_changes:
            written = storage.value_written.value if storage.HasField("value_written") else None
            rendered.append(
                {
                    "address": address,
                    "contract_id": contract_id,
                    "slot": word(storage.slot),
                    "value_read": word(storage.value_read),
                    "value_written": None if written is None else word(written),
                }
            )
    return rendered


_ENVELOPE_FIELDS = (1, 2)
"""``consensus_timestamp`` and ``migration``: every other field is the record's payload."""


def render_sidecar_record(stored: StoredSidecarRecord, message: Any) -> dict[str, Any]:
    """One stored ``TransactionSidecarRecord``: its type, the field number of its payload, its
    bytes. A type this HAPI version does not know is ``UNKNOWN``; ``field`` then names the field
    the newer network wrote it in (the bytes are served as they were verified)."""
    kind = message.WhichOneof("sidecar_records")
    if kind is not None:
        field: int | None = message.DESCRIPTOR.fields_by_name[kind].number
    else:
        fields = UnknownFieldSet(message)
        numbers = (fields[i].field_number for i in range(len(fields)))
        unknown = [number for number in numbers if number not in _ENVELOPE_FIELDS]
        field = unknown[0] if unknown else None
    try:
        name = SidecarType(stored.type).name
    except ValueError:
        name = SidecarType.UNKNOWN.name
    return {
        "field": field,
        "index": stored.index,
        "migration": bool(message.migration),
        "raw": hex_data(stored.raw),
        "sidecar_id": stored.sidecar_id,
        "timestamp": timestamp(stored.consensus_ns),
        "type": name,
    }
