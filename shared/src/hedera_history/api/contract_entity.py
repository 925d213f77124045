"""``GET /api/v1/contracts/{contractIdOrAddress}`` from the history we keep: the contract named by
id or EVM address (``api.entity_lookup``), its admin key, memo, EVM address, creation, file and
deletion from its creation and changes (``api.entity_state``), its bytecode from the bytecode
sidecar record of its creation, all as of ``timestamp`` (the reference's as-of filter).

``timestamp.from`` is when the contract took the state answered: its newest change in history, or,
when history holds none (created before the first block kept), the newest transaction touching it.
Fields history does not carry as state (expiry, auto-renew, nonce, obtainer, proxy) are null.
A contract history shows nothing of, or an entity it shows created as an account, is a 404.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hedera_history.api.accounts import long_zero_address
from hedera_history.api.entity_lookup import resolve_entity
from hedera_history.api.entity_state import entity_state, render_key
from hedera_history.api.errors import NotFoundError
from hedera_history.api.parse import MAX_I64
from hedera_history.api.query import Query, only
from hedera_history.api.render import timestamp
from hedera_history.api.render_contracts import contract_reference, hex_data
from hedera_history.api.transaction_filters import entity_reference
from hedera_history.api.transactions_list import parse_filters
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.store.decode import decode_sidecar_message
from hedera_history.store.reader import HistoryReader

Reader = Callable[[], HistoryReader]
_NOT_KEPT = (
    "auto_renew_account",
    "auto_renew_period",
    "expiration_timestamp",
    "max_automatic_token_associations",
    "nonce",
    "obtainer_id",
    "permanent_removal",
    "proxy_account_id",
)


def get_contract(get_reader: Reader, contract_text: str, query: Query) -> dict[str, Any]:
    only(query, {"timestamp"})
    entity_reference(contract_text, "contractIdOrAddress")  # a bad name is a 400 before any read
    filters = parse_filters({"timestamp": list(query.get("timestamp", []))})
    at_ns = filters.high_ns if filters.high_ns < MAX_I64 else None
    reader = get_reader()
    contract = resolve_entity(reader, contract_text, "contractIdOrAddress")
    state = entity_state(reader, contract, at_ns)
    if state.contract is False:
        raise NotFoundError(f"{contract} is an account, not a contract")
    since = state.changed_ns
    if since is None:
        touched = reader.account_history(contract, before=None if at_ns is None else at_ns + 1, limit=1).entries
        if not touched:
            raise NotFoundError(f"contract {contract} not found")
        since = touched[0].consensus_ns
    initcode, runtime = _bytecode(reader, contract, state.created_ns)
    return {
        **dict.fromkeys(_NOT_KEPT),
        "admin_key": render_key(state.key),
        "bytecode": initcode,
        "contract_id": contract,
        "created_timestamp": None if state.created_ns is None else timestamp(state.created_ns),
        "deleted": bool(state.deleted),
        "evm_address": hex_data(state.evm_address) if state.evm_address else long_zero_address(contract),
        "file_id": state.file_id,
        "memo": state.memo or "",
        "runtime_bytecode": runtime,
        "timestamp": {"from": timestamp(since), "to": None},
    }


def _bytecode(reader: HistoryReader, contract: str, created_ns: int | None) -> tuple[str | None, str | None]:
    """(initcode, runtime bytecode) from the bytecode sidecar record of the contract's creation."""
    if created_ns is None:
        return None, None
    for stored in reader.sidecar_records(created_ns, [SidecarType.CONTRACT_BYTECODE]):
        bytecode = decode_sidecar_message(stored).bytecode
        if contract_reference(bytecode.contract_id)[0] == contract:
            return _hex_or_none(bytes(bytecode.initcode)), _hex_or_none(bytes(bytecode.runtime_bytecode))
    return None, None


def _hex_or_none(data: bytes) -> str | None:
    return hex_data(data) if data else None
