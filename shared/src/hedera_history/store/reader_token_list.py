"""Read path of the token list (``store.token_index``'s ``tokenlist/`` rows): the tokens whose
creation history holds, by encoded id, each with its type, from an id up (or down). As on every
read path, only complete blocks count and rows an errata removed do not exist."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from hedera_history.errors import RowDecodeError
from hedera_history.store.decode import AccountHistoryEntry
from hedera_history.store.gateway import StoredRow
from hedera_history.store.index_scan import id_groups
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import pointed_value
from hedera_history.store.token_index import decode_token_list_key, token_list_range


@dataclass(frozen=True, slots=True)
class ListedToken:
    token: int
    """The encoded token id."""
    non_fungible: bool
    created_ns: int


def listed_tokens(
    reader: HistoryReader, low: int, high: int | None, errors: list[RowDecodeError], *, descending: bool = False
) -> Iterator[ListedToken]:
    """The tokens with encoded ids in ``[low, high]`` (None: no end) whose creation history holds, in
    id order (highest first when ``descending``), read lazily."""
    for token, rows in id_groups(reader, token_list_range, _decode, low, high, errors, descending=descending):
        non_fungible, entry = rows[0]
        yield ListedToken(token, non_fungible, entry.consensus_ns)


def _decode(row: StoredRow) -> tuple[tuple[int, bool], AccountHistoryEntry] | None:
    token, consensus_ns, non_fungible = decode_token_list_key(row.key)
    return pointed_value(row, (token, non_fungible), consensus_ns)
