"""Read paths of the token index (``store.token_index``): a token's supply, its holders' balances,
an account's relationships, NFTs and allowance transactions, each as of a consensus time. As on
every read path, only complete blocks count and rows an errata removed do not exist.

Balances and relationships are range reads whose keys carry what they say (a balance is the sum of
its changes' keys): one ReadRows and the completion of the blocks it names, no transaction read.
A listing reads at most ``MAX_TOKEN_ROWS`` rows; ``whole`` says whether it read them all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from hedera_history.errors import RowDecodeError
from hedera_history.store.decode import AccountHistoryEntry, StoredTransaction
from hedera_history.store.gateway import StoredRow
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import index_rows_over, pointed_value
from hedera_history.store.token_index import (
    Held,
    allowance_range,
    decode_allowance_key,
    decode_holder_key,
    decode_nft_key,
    decode_nft_owner_key,
    decode_relation_key,
    decode_supply_key,
    holder_prefix,
    nft_owner_prefix,
    nft_prefix,
    prefix_range,
    relation_prefix,
    supply_range,
)

T = TypeVar("T")
MAX_TOKEN_ROWS = 200_000
"""Rows one listing reads at most (a token's balance changes, an account's relationship rows)."""
_SUPPLY_ROWS = 16
"""Supply rows read to find the newest complete one (the newest may be in a block being written)."""
MAX_ALLOWANCE_TRANSACTIONS = 1000


@dataclass(frozen=True, slots=True)
class Rows(Generic[T]):
    values: list[tuple[T, int]]
    """What each row's key says, with its consensus time, in key order, in complete blocks only."""
    whole: bool
    errors: list[RowDecodeError]


def keyed_rows(
    reader: HistoryReader,
    key_range: tuple[bytes, bytes],
    decode: Callable[[bytes], tuple[T, int]],
    at_ns: int | None,
    limit: int = MAX_TOKEN_ROWS,
) -> Rows[T]:
    """The rows of ``[start, end)`` at or before ``at_ns`` (None: all) in complete blocks, not
    removed by an errata, decoded from their keys (``decode``: the key -> its value and time)."""
    return keyed_rows_over(reader, (key_range,), decode, at_ns, limit)


def keyed_rows_over(
    reader: HistoryReader,
    key_ranges: Sequence[tuple[bytes, bytes]],
    decode: Callable[[bytes], tuple[T, int]],
    at_ns: int | None,
    limit: int = MAX_TOKEN_ROWS,
) -> Rows[T]:
    """:func:`keyed_rows` of several ranges, in one ReadRows."""

    def row_value(row: StoredRow) -> tuple[T, AccountHistoryEntry] | None:
        value, consensus_ns = decode(row.key)
        return pointed_value(row, value, consensus_ns)

    found, read, errors = index_rows_over(reader, key_ranges, limit, row_value)
    kept = [(v, e) for v, e in found if at_ns is None or e.consensus_ns <= at_ns]
    complete = reader.complete_blocks(e.block_number for _, e in kept)
    values = [(v, e.consensus_ns) for v, e in kept if e.block_number in complete]
    return Rows(values, read < limit, errors)


def _held(key: bytes, decode: Callable[[bytes], Held]) -> tuple[Held, int]:
    held = decode(key)
    return held, held.consensus_ns


def token_holders(reader: HistoryReader, token: str, at_ns: int | None) -> Rows[Held]:
    """Every balance change of ``token`` by then, by holder."""
    return keyed_rows(reader, prefix_range(holder_prefix(token)), lambda k: _held(k, decode_holder_key), at_ns)


def holder_balances(holders: Rows[Held]) -> dict[str, int]:
    """Holder -> balance, from its changes."""
    balances: dict[str, int] = {}
    for held, _ in holders.values:
        balances[held.account] = balances.get(held.account, 0) + (held.change or 0)
    return balances


def account_balances(
    reader: HistoryReader, account: str, since: Mapping[str, int], at_ns: int | None, limit: int = MAX_TOKEN_ROWS
) -> tuple[dict[str, int], Rows[Held]]:
    """``account``'s balance of each token of ``since`` by then: the sum of its changes at or after
    the time given (its newest dissociation, 0 for none), read in one ReadRows of one range per token."""
    ranges = sorted(prefix_range(holder_prefix(token, account)) for token in since)
    rows = keyed_rows_over(reader, ranges, lambda k: _held(k, decode_holder_key), at_ns, limit)
    balances = dict.fromkeys(since, 0)
    for held, consensus_ns in rows.values:
        if consensus_ns >= since[held.token]:
            balances[held.token] += held.change or 0
    return balances, rows


def account_relationships(
    reader: HistoryReader, account: str, at_ns: int | None, limit: int = MAX_TOKEN_ROWS
) -> Rows[Held]:
    """Every relationship event of ``account``'s tokens by then (and a ``held`` marker for each
    block that changed a balance), by token."""
    return keyed_rows(reader, prefix_range(relation_prefix(account)), _relation_value, at_ns, limit)


def _relation_value(key: bytes) -> tuple[Held, int]:
    return _held(key, decode_relation_key)


def newest_supply(reader: HistoryReader, token: str, at_ns: int | None) -> tuple[int, int] | None:
    """``(total supply, consensus ns)`` the newest mint, burn or wipe by then left, None without one."""

    def decode(key: bytes) -> tuple[None, int]:
        return None, decode_supply_key(key)

    rows = keyed_rows(reader, supply_range(token, at_ns), decode, at_ns, _SUPPLY_ROWS)
    for _, consensus_ns in rows.values:
        stored = reader.transaction(consensus_ns)
        if stored is not None:
            return int(stored.record().receipt.newTotalSupply), consensus_ns
    return None


@dataclass(slots=True)
class NftState:
    token: str
    serial: int
    owner: str | None
    """None: burnt or wiped."""
    modified_ns: int
    """Its newest row by then."""
    first_ns: int
    """Its oldest row: its mint, when the history kept holds it."""


def token_nfts(
    reader: HistoryReader, token: str, serial: int | None, at_ns: int | None
) -> tuple[dict[int, NftState], bool]:
    """The token's NFTs (one serial, when given) as of then, by serial, and whether every row was read."""
    rows = keyed_rows(reader, prefix_range(nft_prefix(token, serial)), _nft_value, at_ns)
    nfts: dict[int, NftState] = {}
    for (serial_number, owner), consensus_ns in rows.values:  # by serial, newest first
        state = nfts.get(serial_number)
        if state is None:
            state = nfts[serial_number] = NftState(token, serial_number, owner, consensus_ns, consensus_ns)
        state.first_ns = consensus_ns
    return nfts, rows.whole


def _nft_value(key: bytes) -> tuple[tuple[int, str | None], int]:
    _, serial, consensus_ns, owner = decode_nft_key(key)
    return (serial, owner), consensus_ns


def account_nft_serials(reader: HistoryReader, account: str, at_ns: int | None) -> tuple[list[tuple[str, int]], bool]:
    """``(token, serial)`` of every NFT ``account`` held then, and whether every row was read."""

    def decode(key: bytes) -> tuple[tuple[str, int, bool], int]:
        token, serial, consensus_ns, came = decode_nft_owner_key(key)
        return (token, serial, came), consensus_ns

    rows = keyed_rows(reader, prefix_range(nft_owner_prefix(account)), decode, at_ns)
    newest: dict[tuple[str, int], tuple[int, bool]] = {}
    for (token, serial, came), consensus_ns in rows.values:
        seen = newest.get((token, serial))
        if seen is None or consensus_ns > seen[0]:
            newest[(token, serial)] = (consensus_ns, came)
    return [held for held, (_, came) in newest.items() if came], rows.whole


def allowance_transactions(
    reader: HistoryReader, owner: str, at_ns: int | None
) -> tuple[list[StoredTransaction], bool, list[RowDecodeError]]:
    """The transactions that granted, deleted or spent ``owner``'s allowances by then, oldest first,
    and whether all were read."""

    def decode(key: bytes) -> tuple[None, int]:
        return None, decode_allowance_key(key)

    rows = keyed_rows(reader, allowance_range(owner, at_ns), decode, at_ns, MAX_ALLOWANCE_TRANSACTIONS)
    transactions, errors = reader.transactions([consensus_ns for _, consensus_ns in reversed(rows.values)])
    return transactions, rows.whole, [*rows.errors, *errors]


def nft_history(reader: HistoryReader, token: str, serial: int, low_ns: int, high_ns: int | None) -> Rows[str | None]:
    """The NFT's mint, transfers and burn or wipe in ``[low_ns, high_ns]``, newest first: the owner
    each left it with (None: burnt or wiped) and its consensus time."""
    rows = keyed_rows(reader, prefix_range(nft_prefix(token, serial)), _nft_owner_value, high_ns)
    return Rows([(owner, ns) for owner, ns in rows.values if ns >= low_ns], rows.whole, rows.errors)


def _nft_owner_value(key: bytes) -> tuple[str | None, int]:
    _, _, consensus_ns, owner = decode_nft_key(key)
    return owner, consensus_ns
