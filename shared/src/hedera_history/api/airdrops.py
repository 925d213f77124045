"""The reference's pending-airdrop routes from the history we keep (``store.reader_airdrops``):
``/accounts/{id}/airdrops/outstanding`` (airdrops the account sent that are still pending) and
``/accounts/{id}/airdrops/pending`` (airdrops it received that are still pending).

An airdrop is pending from a successful TokenAirdrop whose record lists it in
``new_pending_airdrops`` until a successful TokenClaimAirdrop or TokenCancelAirdrop names it; a
fungible one's amount is what the newest airdrop's record says is pending (the network's total
after it, which the reference takes as is), ``timestamp.from`` that airdrop's time.
As the reference: ordered by the other account, the token and the serial number (``order=desc``
reverses it), ``limit`` 25 (at most 100), the other account's, ``token.id`` and ``serialnumber``
filters as keyset bounds, ``links.next`` carrying the last airdrop as those bounds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from hedera_history.api.entity_bounds import Bounds, bounds, encoded, keyset_holds
from hedera_history.api.entity_lookup import resolve_entity
from hedera_history.api.errors import InvalidParamsError
from hedera_history.api.query import Query, only, order, page_limit
from hedera_history.api.render import timestamp
from hedera_history.errors import RowDecodeError
from hedera_history.store.airdrop_index import OUTSTANDING, PENDING, AirdropId
from hedera_history.store.keys import decode_entity
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_airdrops import PendingAirdrop, pending_airdrops

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]
_OTHER = {OUTSTANDING: "receiver.id", PENDING: "sender.id"}
_ROUTE = {OUTSTANDING: "outstanding", PENDING: "pending"}


def outstanding_airdrops(get_reader: Reader, account_text: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    return _airdrops(get_reader, OUTSTANDING, account_text, query, skipped)


def received_airdrops(get_reader: Reader, account_text: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    return _airdrops(get_reader, PENDING, account_text, query, skipped)


def _airdrops(get_reader: Reader, side: bytes, account_text: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    other_name = _OTHER[side]
    only(query, {"limit", "order", other_name, "serialnumber", "token.id"})
    limit = page_limit(query)
    descending = order(query) == "desc"
    fields = (
        _field(query, other_name, entity=True),
        _field(query, "token.id", entity=True),
        _field(query, "serialnumber", entity=False),
    )
    reader = get_reader()
    account = resolve_entity(reader, account_text, "idOrAliasOrEvmAddress")
    found: tuple[PendingAirdrop, ...] = ()
    more = False
    if not any(f.empty for f in fields):

        def accept(airdrop: AirdropId) -> bool:
            return keyset_holds(_sort_key(side, airdrop), fields)

        others = (fields[0].low or 0, fields[0].high)
        listed = encoded(account, "idOrAliasOrEvmAddress")
        page = pending_airdrops(reader, side, listed, others, accept, limit, descending=descending)
        skipped(page.errors)
        found, more = page.airdrops, page.more
    next_link = None
    if more and found:
        next_link = _next_link(side, account, query, limit, descending, found[-1].airdrop)
    return {"airdrops": [_render(a) for a in found], "links": {"next": next_link}}


def _field(query: Query, name: str, *, entity: bool) -> Bounds:
    conditions = list(query.get(name, []))
    if len(conditions) > 2:
        raise InvalidParamsError(f"Invalid parameter: {name}")
    return bounds(conditions, name, entity=entity)


def _sort_key(side: bytes, airdrop: AirdropId) -> tuple[int, int, int]:
    return airdrop.side(side)[1], airdrop.token, airdrop.serial


def _next_link(side: bytes, account: str, query: Query, limit: int, descending: bool, last: AirdropId) -> str | None:
    """The page after ``last``: its keys as the bounds on this side of the order (inclusive, the
    last key field's exclusive), the asked bounds on the other side kept. A field asked with ``eq``
    keeps that and takes no bound, as the reference's links leave it (a ``gt`` beside it would
    leave nothing); None when every key field is asked with ``eq`` (nothing can follow)."""
    other_name = _OTHER[side]
    forward, inclusive, kept = ("lt", "lte", ("gt", "gte")) if descending else ("gt", "gte", ("lt", "lte"))
    params: list[tuple[str, Any]] = [("limit", limit), ("order", "desc" if descending else "asc")]
    for name in (other_name, "token.id", "serialnumber"):
        for value in query.get(name, []):
            op, sep, _ = value.partition(":")
            if op in kept or op == "eq" or not sep:
                params.append((name, value))
    other, token, serial = _sort_key(side, last)
    keys = [(other_name, decode_entity(other)), ("token.id", decode_entity(token)), ("serialnumber", str(serial))]
    bounded = [(name, value) for name, value in keys[: 3 if serial else 2] if not _asked_equal(query, name)]
    if not bounded:
        return None
    params += [(name, f"{inclusive}:{value}") for name, value in bounded[:-1]]
    params.append((bounded[-1][0], f"{forward}:{bounded[-1][1]}"))
    return f"/api/v1/accounts/{account}/airdrops/{_ROUTE[side]}?" + urlencode(params)


def _asked_equal(query: Query, name: str) -> bool:
    return any(op == "eq" or not sep for op, sep, _ in (value.partition(":") for value in query.get(name, [])))


def _render(pending: PendingAirdrop) -> dict[str, Any]:
    airdrop = pending.airdrop
    return {
        "amount": pending.amount,
        "receiver_id": decode_entity(airdrop.receiver),
        "sender_id": decode_entity(airdrop.sender),
        "serial_number": airdrop.serial or None,
        "timestamp": {"from": timestamp(pending.since_ns), "to": None},
        "token_id": decode_entity(airdrop.token),
    }
