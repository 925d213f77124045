"""The reference's ``/api/v1/tokens`` from the history we keep: every token whose creation history
holds, as of now, lowest id first unless ``order=desc``, paged with ``token.id``.

The ids come from the token list (``store.reader_token_list``: one ``tokenlist/`` row per token, in
the reference's encoded-id order, carrying its type), or with ``account.id`` from the tokens the
account is associated with now (its ``tokenrel/`` events, ``api.tokens.relationships``). A page's
tokens are folded from their creations and changes, read together (``store.reader_entities``).

Filters as the reference takes them: ``token.id`` (``eq:`` any of, ``ne:``, ranges), ``type``
(``ALL``, ``FUNGIBLE_COMMON``, ``NON_FUNGIBLE_UNIQUE``), ``name`` (a part of the name as it is now,
any case, 3 to 100 bytes; not with ``token.id`` or ``account.id``; no paging). ``publickey`` is
not taken (keys are not indexed). A page reads at most ``MAX_SCANNED`` ids: a page the bound cut
short still links to the next (from the last id read); a ``name`` search that passes it is a 501.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import Any
from urllib.parse import urlencode

from hedera_history.api.entity_bounds import Bounds, bounds, entity_code, entity_id
from hedera_history.api.entity_state import render_key
from hedera_history.api.errors import InvalidParamsError, NotServedError
from hedera_history.api.query import Query, only, operator, order, page_limit, single
from hedera_history.api.token_state import TokenState, folded_token
from hedera_history.api.tokens import relationships
from hedera_history.errors import RowDecodeError
from hedera_history.store.keys import decode_entity, encode_entity_text
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import entities_changes
from hedera_history.store.reader_token_list import listed_tokens
from hedera_history.store.reader_tokens import account_relationships

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]
MAX_SCANNED = 5000
"""Token ids one page reads at most."""
_BATCH = 100
"""Tokens whose changes are read in one request while a filter on their state leaves some out."""
_TYPES = {"FUNGIBLE_COMMON": False, "NON_FUNGIBLE_UNIQUE": True}
_NAME_BYTES = (3, 100)

Candidate = tuple[int, bool | None]
"""An encoded token id, and whether it is non-fungible when the listing knows (None: read it)."""


def list_tokens(get_reader: Reader, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"account.id", "limit", "name", "order", "publickey", "token.id", "type"})
    name = _name(query)
    if "publickey" in query:
        raise NotServedError("publickey: keys are not indexed")
    limit = page_limit(query)
    descending = order(query) == "desc"
    wanted, ids = _token_ids(query.get("token.id", []))
    types = _types(query.get("type", []))
    account = _account(query)
    reader = get_reader()
    errors: list[RowDecodeError] = []
    if account is None:
        low, high = ids.low or 0, ids.high
        if wanted:
            low, high = max(low, min(wanted)), min(max(wanted), high if high is not None else max(wanted))
        candidates: Iterable[Candidate] = (
            (t.token, t.non_fungible) for t in listed_tokens(reader, low, high, errors, descending=descending)
        )
    else:
        candidates = _associated(reader, account, descending, errors)

    def kept(token: int, non_fungible: bool | None) -> bool:
        in_ids = ids.holds(token) and (not wanted or token in wanted)
        return in_ids and (non_fungible is None or types is None or non_fungible in types)

    found, last, cut = _collect(
        reader, (c for c in candidates if kept(*c)), types, name, limit + (0 if name else 1), errors
    )
    skipped(errors)
    if name is not None and cut:
        raise NotServedError("name: more tokens than a name search reads from history")
    page = found[:limit]
    more = name is None and (len(found) > limit or cut)
    after = (encode_entity_text(page[-1].token) if len(found) > limit else last) if more else None
    return {
        "tokens": [render_listed(state) for state in page],
        "links": {"next": None if after is None else _next_link(query, limit, descending, after)},
    }


def _collect(
    reader: HistoryReader,
    candidates: Iterator[Candidate],
    types: frozenset[bool] | None,
    name: str | None,
    wanted: int,
    errors: list[RowDecodeError],
) -> tuple[list[TokenState], int | None, bool]:
    """Up to ``wanted`` tokens the filters keep, folded; the last id read, and whether
    ``MAX_SCANNED`` ids were read before ``wanted`` were found."""
    found: list[TokenState] = []
    scanned, last = 0, None
    while len(found) < wanted:
        size = _BATCH if name is not None or types is not None else wanted - len(found)
        batch = [token for token, _ in islice(candidates, min(size, MAX_SCANNED - scanned))]
        if not batch:
            return found, last, scanned >= MAX_SCANNED
        scanned, last = scanned + len(batch), batch[-1]
        texts = [decode_entity(token) for token in batch]
        changes, read_errors = entities_changes(reader, texts)
        errors.extend(read_errors)
        for text in texts:
            state = folded_token(text, changes[text])
            if state.created_ns is not None and _matches(state, types, name) and len(found) < wanted:
                found.append(state)
    return found, last, False


def _matches(state: TokenState, types: frozenset[bool] | None, name: str | None) -> bool:
    if types is not None and (not state.fungible) not in types:
        return False
    return name is None or name.casefold() in str(state.fields.get("name", "")).casefold()


def _associated(
    reader: HistoryReader, account: str, descending: bool, errors: list[RowDecodeError]
) -> Iterator[Candidate]:
    held = account_relationships(reader, account, None)
    errors.extend(held.errors)
    if not held.whole:
        raise NotServedError("account.id: more token relationship rows than one answer reads from history")
    tokens = sorted((encode_entity_text(token) for token in relationships(held.values)), reverse=descending)
    return ((token, None) for token in tokens)


def render_listed(state: TokenState) -> dict[str, Any]:
    """The reference's ``Token`` (an item of ``/tokens``)."""
    decimals = state.decimals
    return {
        "admin_key": render_key(state.keys.get("admin_key")),
        "decimals": 0 if decimals is None else decimals,
        "metadata": state.fields.get("metadata", ""),
        "name": state.fields.get("name"),
        "symbol": state.fields.get("symbol"),
        "token_id": state.token,
        "type": state.fields.get("type"),
    }


def _name(query: Query) -> str | None:
    text = single(query, "name")
    if text is None:
        return None
    if "token.id" in query:
        raise InvalidParamsError("token.id and name can not be used together. Use a more specific name instead.")
    if "account.id" in query:
        raise InvalidParamsError("account.id and name cannot be used together")
    op, value = operator(text, "name")
    if op != "eq" or not _NAME_BYTES[0] <= len(value.encode()) <= _NAME_BYTES[1]:
        raise InvalidParamsError("Invalid parameter: name")
    return value


def _token_ids(conditions: Sequence[str]) -> tuple[frozenset[int], Bounds]:
    """``eq:`` ids (any of them, as the reference takes them) and the bounds the others leave."""
    equal = [c for c in conditions if _operator(c) == "eq"]
    wanted = frozenset(entity_code(c.removeprefix("eq:"), "token.id") for c in equal)
    return wanted, bounds([c for c in conditions if c not in equal], "token.id", entity=True, allow_ne=True)


def _operator(condition: str) -> str:
    """A condition's operator (a bare value: ``eq``), checked by whoever reads its value."""
    op, sep, _ = condition.partition(":")
    return op if sep else "eq"


def _types(values: Sequence[str]) -> frozenset[bool] | None:
    """Whether each kept token is non-fungible (None: any type)."""
    kept: frozenset[bool] | None = None
    for value in values:
        kind = operator(value, "type")[1].upper()
        if kind != "ALL" and kind not in _TYPES:
            raise InvalidParamsError("Invalid parameter: type")
        if kind != "ALL":
            kept = (kept if kept is not None else frozenset(_TYPES.values())) & {_TYPES[kind]}
    return kept


def _account(query: Query) -> str | None:
    text = single(query, "account.id")
    if text is None:
        return None
    op, value = operator(text, "account.id")
    if op != "eq":
        raise InvalidParamsError("Invalid parameter: account.id")
    return entity_id(value, "account.id")


def _next_link(query: Query, limit: int, descending: bool, after: int) -> str:
    """The same query from after ``after`` (``token.id=gt:`` it, ``lt:`` newest first)."""
    params: list[tuple[str, Any]] = [("limit", limit), ("order", "desc" if descending else "asc")]
    params += [(name, value) for name in ("account.id", "type") for value in query.get(name, [])]
    replaced = ("gt", "gte") if not descending else ("lt", "lte")
    params += [("token.id", c) for c in query.get("token.id", []) if _operator(c) not in replaced]
    params.append(("token.id", f"{'lt' if descending else 'gt'}:{decode_entity(after)}"))
    return "/api/v1/tokens?" + urlencode(params)
