"""The reference's token routes from the history we keep (``store.token_index``):

- ``/tokens/{tokenId}``: the token as of ``timestamp`` (``api.token_state``).
- ``/tokens/{tokenId}/balances``: every account's balance of the token as of ``timestamp``, the sum
  of its changes in the records' token transfer lists; newest account first unless ``order=asc``,
  ``account.id`` and ``account.balance`` filters, paged by ``links.next`` with ``account.id``.
- ``/accounts/{id}/tokens``: the account's token relationships (associations, automatic ones, the
  treasury of a token it created, and any token it holds), with balance, freeze and KYC status;
  oldest token first unless ``order=desc``, ``token.id`` filters, paged with ``token.id``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import eq, ge, gt, le, lt, ne
from typing import Any

from hedera_history.api.entity_bounds import entity_bounds, entity_id
from hedera_history.api.entity_lookup import resolve_entity
from hedera_history.api.entity_pages import page_of
from hedera_history.api.errors import InvalidParamsError, NotFoundError, NotServedError
from hedera_history.api.parse import MAX_I64, parse_int, parse_timestamp
from hedera_history.api.query import Query, only, operator, order, page_limit
from hedera_history.api.render import timestamp
from hedera_history.api.token_state import TokenState, render_token, token_state
from hedera_history.api.transaction_filters import entity_key, entity_reference
from hedera_history.errors import RowDecodeError
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_tokens import (
    MAX_TOKEN_ROWS,
    Rows,
    account_balances,
    account_relationships,
    holder_balances,
    token_holders,
)
from hedera_history.store.token_index import HELD, Held

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]
_TOO_MANY = "more balance changes than one answer sums from history"
MAX_BALANCE_TOKENS = 50
"""Tokens an account's ``balance.tokens`` lists at most (the reference's default)."""
MAX_BALANCE_ROWS = 10_000
"""Relationship rows ``balance.tokens`` reads at most (``/accounts/{id}/tokens`` reads more)."""
_COMPARISONS: dict[str, Callable[[int, int], bool]] = {"eq": eq, "ne": ne, "gt": gt, "gte": ge, "lt": lt, "lte": le}


def get_token(get_reader: Reader, token_text_in: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"timestamp"})
    token = entity_id(token_text_in, "tokenId")
    at_ns = as_of(query)
    state = token_state(get_reader(), token, at_ns)
    skipped(state.errors)
    if state.created_ns is None:  # not created by then, or created before the history kept
        raise NotFoundError("Not found")
    return render_token(state)


def token_balances(get_reader: Reader, token_text_in: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"account.balance", "account.id", "account.publickey", "limit", "order", "timestamp"})
    token = entity_id(token_text_in, "tokenId")
    if "account.publickey" in query:
        raise NotServedError("account.publickey: keys are not indexed")
    limit = page_limit(query)
    descending = order(query, default="desc") == "desc"
    low, high = entity_bounds(query, "account.id")
    balance_filter = _balance_filter(query.get("account.balance", []))
    at_ns = as_of(query, ("lt", "lte", "eq"))
    reader = get_reader()
    holders = token_holders(reader, token, at_ns)
    skipped(holders.errors)
    if not holders.whole:
        raise NotServedError(_TOO_MANY)
    decimals = token_state(reader, token, at_ns).decimals
    kept = [(a, b) for a, b in holder_balances(holders).items() if low <= entity_key(a) <= high and balance_filter(b)]
    repeated = [(name, value) for name in ("timestamp", "account.balance") for value in query.get(name, [])]
    page, next_link = page_of(
        kept,
        cursor=lambda held: held[0],
        name="account.id",
        limit=limit,
        descending=descending,
        path=f"/api/v1/tokens/{token}/balances",
        kept=repeated,
    )
    return {
        "timestamp": _newest(holders),
        "balances": [{"account": account, "balance": balance, "decimals": decimals} for account, balance in page],
        "links": {"next": next_link},
    }


def _newest(holders: Rows[Held]) -> str | None:
    times = [consensus_ns for _, consensus_ns in holders.values]
    return timestamp(max(times)) if times else None


@dataclass
class Relationship:
    token: str
    associated: bool = False
    automatic: bool | None = None
    created_ns: int | None = None
    balance: int = 0
    frozen: bool | None = None
    kyc: bool | None = None
    since_ns: int = 0
    """Its newest dissociation: the balance is the sum of the changes from then on."""


def relationships(held: Sequence[tuple[Held, int]]) -> dict[str, Relationship]:
    """Token -> the relationship its events (oldest first) leave, its balance not yet read
    (:func:`with_balances`). A ``held`` marker (a block changed the balance) associates the token."""
    found: dict[str, Relationship] = {}
    # A transaction's association comes before the transfer it made possible.
    for event, consensus_ns in sorted(held, key=lambda pair: (pair[1], pair[0].event == HELD)):
        relation = found.setdefault(event.token, Relationship(event.token))
        if event.event in ("associate", "auto", "treasury"):
            if not relation.associated:
                relation.created_ns = event.consensus_ns
                relation.automatic = event.event == "auto"
            relation.associated = True
            if event.event == "treasury":  # the treasury is unfrozen and granted KYC at creation
                relation.frozen, relation.kyc = False, True
        elif event.event == "dissociate":
            found[event.token] = Relationship(event.token, since_ns=consensus_ns)
        else:
            relation.associated = True
            if event.event in ("frozen", "unfrozen"):
                relation.frozen = event.event == "frozen"
            elif event.event in ("kyc", "nokyc"):
                relation.kyc = event.event == "kyc"
    return {token: relation for token, relation in found.items() if relation.associated}


def with_balances(
    reader: HistoryReader, account: str, related: Sequence[Relationship], at_ns: int | None, limit: int
) -> tuple[list[Relationship], Rows[Held]]:
    """``related`` with each balance by then, from the tokens' ``holder/`` rows (one ReadRows): a
    transaction's dissociation comes before the transfer in it."""
    balances, rows = account_balances(reader, account, {r.token: r.since_ns for r in related}, at_ns, limit)
    for relation in related:
        relation.balance = balances[relation.token]
    return list(related), rows


def account_tokens(get_reader: Reader, account_text: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"limit", "order", "token.id"})
    entity_reference(account_text, "idOrAliasOrEvmAddress")  # a bad name is a 400 before any read
    limit = page_limit(query)
    descending = order(query) == "desc"
    low, high = entity_bounds(query, "token.id")
    reader = get_reader()
    account = resolve_entity(reader, account_text, "idOrAliasOrEvmAddress")
    held = account_relationships(reader, account, None)
    skipped(held.errors)
    if not held.whole:
        raise NotServedError(_TOO_MANY)
    page, next_link = page_of(
        (r for r in relationships(held.values).values() if low <= entity_key(r.token) <= high),
        cursor=lambda r: r.token,
        name="token.id",
        limit=limit,
        descending=descending,
        path=f"/api/v1/accounts/{account}/tokens",
    )
    page, balances = with_balances(reader, account, page, None, MAX_TOKEN_ROWS)
    skipped(balances.errors)
    if not balances.whole:
        raise NotServedError(_TOO_MANY)
    return {
        "tokens": [render_relationship(r, token_state(reader, r.token)) for r in page],
        "links": {"next": next_link},
    }


def account_token_balances(reader: HistoryReader, account: str, at_ns: int | None) -> list[dict[str, Any]]:
    """The reference's ``balance.tokens`` of an account: each token it is associated with then and
    its balance, lowest token first, at most ``MAX_BALANCE_TOKENS`` (empty when it has more than
    ``MAX_BALANCE_ROWS`` rows: every ``/accounts/{id}`` reads them)."""
    held = account_relationships(reader, account, at_ns, MAX_BALANCE_ROWS)
    if not held.whole:
        return []
    related = sorted(relationships(held.values).values(), key=lambda r: entity_key(r.token))
    listed, balances = with_balances(reader, account, related[:MAX_BALANCE_TOKENS], at_ns, MAX_BALANCE_ROWS)
    if not balances.whole:
        return []
    return [{"token_id": r.token, "balance": r.balance} for r in listed]


def render_relationship(relation: Relationship, token: TokenState) -> dict[str, Any]:
    """The reference's ``TokenRelationship``: freeze and KYC status ``NOT_APPLICABLE`` when the token
    has no such key, else as the events left them (freeze from the token's default until one)."""
    frozen = relation.frozen if relation.frozen is not None else token.fields.get("freeze_default", False)
    freeze_status = "NOT_APPLICABLE" if "freeze_key" not in token.keys else ("FROZEN" if frozen else "UNFROZEN")
    kyc_status = "NOT_APPLICABLE" if "kyc_key" not in token.keys else ("GRANTED" if relation.kyc else "REVOKED")
    return {
        "automatic_association": relation.automatic,
        "balance": relation.balance,
        "created_timestamp": None if relation.created_ns is None else timestamp(relation.created_ns),
        "decimals": token.decimals,
        "freeze_status": freeze_status,
        "kyc_status": kyc_status,
        "token_id": relation.token,
    }


def as_of(query: Query, allowed: tuple[str, ...] = ("lt", "lte", "eq")) -> int | None:
    """The consensus time ``timestamp`` asks the state as of (None: now)."""
    at_ns: int | None = None
    for condition in query.get("timestamp", []):
        op, value = operator(condition, "timestamp")
        if op not in allowed:
            raise InvalidParamsError("Invalid parameter: timestamp")
        ns = parse_timestamp(value, "timestamp") - (1 if op == "lt" else 0)
        at_ns = ns if at_ns is None else min(at_ns, ns)
    return None if at_ns is None else max(at_ns, 0)


def _balance_filter(conditions: Sequence[str]) -> Callable[[int], bool]:
    tests: list[tuple[Callable[[int, int], bool], int]] = []
    for condition in conditions:
        op, value = operator(condition, "account.balance")
        if op not in _COMPARISONS:
            raise InvalidParamsError("Invalid parameter: account.balance")
        tests.append((_COMPARISONS[op], parse_int(value, "account.balance", maximum=MAX_I64)))
    return lambda balance: all(compare(balance, number) for compare, number in tests)
