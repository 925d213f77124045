"""A token as of a consensus time, from the history we keep: its TokenCreate and the updates,
deletion, pauses and fee schedule updates after it (``store.reader_entities``, which the token
index fills), folded oldest first as the reference's importer folds them into its token table, and
its supply from the newest mint, burn or wipe receipt (``newTotalSupply``). Rendered as the
reference's ``TokenInfo``.

A token whose creation is not in the history kept is not answered (``created_ns`` None): the fields
its creation sets are not nullable in the reference's answer.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hedera_history.api.entity_state import render_key
from hedera_history.api.render import timestamp
from hedera_history.errors import CorruptFileError, RowDecodeError
from hedera_history.formats.transactions import transaction_body
from hedera_history.store.accounts import entity_text
from hedera_history.store.decode import StoredTransaction
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import entity_changes
from hedera_history.store.reader_tokens import newest_supply
from hedera_history.store.token_index import token_text

_KEYS = (
    ("adminKey", "admin_key"),
    ("kycKey", "kyc_key"),
    ("freezeKey", "freeze_key"),
    ("wipeKey", "wipe_key"),
    ("supplyKey", "supply_key"),
    ("fee_schedule_key", "fee_schedule_key"),
    ("pause_key", "pause_key"),
    ("metadata_key", "metadata_key"),
)
"""Key fields of TokenCreate and TokenUpdate -> the answer's names."""
_TYPES = {0: "FUNGIBLE_COMMON", 1: "NON_FUNGIBLE_UNIQUE"}
_SUPPLY_TYPES = {0: "INFINITE", 1: "FINITE"}


@dataclass
class TokenState:
    token: str
    created_ns: int | None = None
    modified_ns: int | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    """The answer's fields history set."""
    keys: dict[str, bytes] = field(default_factory=dict)
    """Answer name -> the ``Key`` protobuf bytes in force."""
    fees: list[Any] = field(default_factory=list)
    fees_ns: int | None = None
    paused: bool = False
    deleted: bool = False
    total_supply: int | None = None
    errors: tuple[RowDecodeError, ...] = ()

    @property
    def decimals(self) -> int | None:
        value = self.fields.get("decimals")
        return None if value is None else int(value)

    @property
    def fungible(self) -> bool:
        return self.fields.get("type") != "NON_FUNGIBLE_UNIQUE"


def token_state(reader: HistoryReader, token: str, at_ns: int | None = None) -> TokenState:
    """The token as of ``at_ns`` (None: now)."""
    changes = entity_changes(reader, token, at_ns)
    state = folded_token(token, changes.transactions, changes.errors)
    supply = newest_supply(reader, token, at_ns)
    if supply is not None:
        state.total_supply, supply_ns = supply
        state.modified_ns = max(state.modified_ns or 0, supply_ns)
    return state


def folded_token(token: str, changes: Sequence[StoredTransaction], errors: Sequence[RowDecodeError] = ()) -> TokenState:
    """The token its creation and changes (newest first) leave, its supply not read."""
    state = TokenState(token, errors=tuple(errors))
    for change in reversed(changes):
        _apply(state, change)
    return state


def _apply(state: TokenState, change: StoredTransaction) -> None:
    try:
        body: Any = transaction_body(change.transaction_bytes)
    except CorruptFileError:
        return
    case = body.WhichOneof("data")
    data: Any = getattr(body, case) if case is not None else None
    state.modified_ns = change.consensus_ns
    if case == "tokenCreation":
        _create(state, data, change.consensus_ns)
    elif case == "tokenUpdate":
        _update(state, data)
    elif case == "tokenDeletion":
        state.deleted = True
    elif case in ("token_pause", "token_unpause"):
        state.paused = case == "token_pause"
    elif case == "token_fee_schedule_update":
        state.fees, state.fees_ns = list(data.custom_fees), change.consensus_ns


def _create(state: TokenState, data: Any, consensus_ns: int) -> None:
    state.created_ns = state.fees_ns = consensus_ns
    state.total_supply = data.initialSupply
    state.fees = list(data.custom_fees)
    state.fields.update(
        name=data.name,
        symbol=data.symbol,
        decimals=str(data.decimals),
        initial_supply=str(data.initialSupply),
        treasury_account_id=entity_text(data.treasury),
        freeze_default=data.freezeDefault,
        memo=data.memo,
        type=_TYPES.get(data.tokenType, "FUNGIBLE_COMMON"),
        supply_type=_SUPPLY_TYPES.get(data.supplyType, "INFINITE"),
        max_supply=str(data.maxSupply if data.supplyType == 1 else 2**63 - 1),
        metadata=base64.b64encode(data.metadata).decode(),
        auto_renew_account=entity_text(data.autoRenewAccount) if data.HasField("autoRenewAccount") else None,
        auto_renew_period=data.autoRenewPeriod.seconds if data.HasField("autoRenewPeriod") else None,
        expiry_timestamp=_ns(data.expiry) if data.HasField("expiry") else None,
    )
    _set_keys(state, data)


def _update(state: TokenState, data: Any) -> None:
    for name in ("name", "symbol"):
        if getattr(data, name):
            state.fields[name] = getattr(data, name)
    if data.HasField("treasury"):
        state.fields["treasury_account_id"] = entity_text(data.treasury)
    if data.HasField("memo"):
        state.fields["memo"] = data.memo.value
    if data.HasField("metadata"):
        state.fields["metadata"] = base64.b64encode(data.metadata.value).decode()
    if data.HasField("autoRenewAccount"):
        state.fields["auto_renew_account"] = entity_text(data.autoRenewAccount)
    if data.HasField("autoRenewPeriod"):
        state.fields["auto_renew_period"] = data.autoRenewPeriod.seconds
    if data.HasField("expiry"):
        state.fields["expiry_timestamp"] = _ns(data.expiry)
    _set_keys(state, data)


def _set_keys(state: TokenState, data: Any) -> None:
    for proto_name, name in _KEYS:
        if data.HasField(proto_name):
            state.keys[name] = bytes(getattr(data, proto_name).SerializeToString())


def _ns(stamp: Any) -> int:
    return int(stamp.seconds) * 1_000_000_000 + int(stamp.nanos)


def render_token(state: TokenState) -> dict[str, Any]:
    """The reference's ``TokenInfo``."""
    fields = state.fields
    keys = {name: render_key(state.keys.get(name)) for _, name in _KEYS}
    pause_status = "NOT_APPLICABLE" if keys["pause_key"] is None else ("PAUSED" if state.paused else "UNPAUSED")
    return {
        **keys,
        "auto_renew_account": fields.get("auto_renew_account"),
        "auto_renew_period": fields.get("auto_renew_period"),
        "created_timestamp": None if state.created_ns is None else timestamp(state.created_ns),
        "custom_fees": render_fees(state),
        "decimals": fields.get("decimals"),
        "deleted": state.deleted,
        "expiry_timestamp": fields.get("expiry_timestamp"),
        "freeze_default": fields.get("freeze_default", False),
        "initial_supply": fields.get("initial_supply"),
        "max_supply": fields.get("max_supply"),
        "memo": fields.get("memo", ""),
        "metadata": fields.get("metadata", ""),
        "modified_timestamp": None if state.modified_ns is None else timestamp(state.modified_ns),
        "name": fields.get("name"),
        "pause_status": pause_status,
        "supply_type": fields.get("supply_type"),
        "symbol": fields.get("symbol"),
        "token_id": state.token,
        "total_supply": None if state.total_supply is None else str(state.total_supply),
        "treasury_account_id": fields.get("treasury_account_id"),
        "type": fields.get("type"),
    }


def render_fees(state: TokenState) -> dict[str, Any]:
    """The reference's ``CustomFees``: fixed fees, and fractional fees of a fungible token or royalty
    fees of a non-fungible one."""
    fixed, fractional, royalty = [], [], []
    for fee in state.fees:
        common = {
            "all_collectors_are_exempt": fee.all_collectors_are_exempt,
            "collector_account_id": entity_text(fee.fee_collector_account_id),
        }
        kind = fee.WhichOneof("fee")
        if kind == "fixed_fee":
            fixed.append({**common, **_fixed(fee.fixed_fee, state.token)})
        elif kind == "fractional_fee":
            part = fee.fractional_fee
            amount = part.fractional_amount
            fractional.append(
                {
                    **common,
                    "amount": {"numerator": amount.numerator, "denominator": amount.denominator},
                    "denominating_token_id": state.token,
                    "maximum": part.maximum_amount or None,
                    "minimum": part.minimum_amount,
                    "net_of_transfers": part.net_of_transfers,
                }
            )
        elif kind == "royalty_fee":
            part = fee.royalty_fee
            amount = part.exchange_value_fraction
            fallback = _fixed(part.fallback_fee, state.token) if part.HasField("fallback_fee") else None
            royalty.append(
                {
                    **common,
                    "amount": {"numerator": amount.numerator, "denominator": amount.denominator},
                    "fallback_fee": fallback,
                }
            )
    fees: dict[str, Any] = {"created_timestamp": timestamp(state.fees_ns or 0), "fixed_fees": fixed}
    if state.fungible:
        fees["fractional_fees"] = fractional
    else:
        fees["royalty_fees"] = royalty
    return fees


def _fixed(fee: Any, token: str) -> dict[str, Any]:
    denominating = None
    if fee.HasField("denominating_token_id"):  # 0.0.0: the token the fee is set on
        denominating = token_text(fee.denominating_token_id) or token
    return {"amount": fee.amount, "denominating_token_id": denominating}
