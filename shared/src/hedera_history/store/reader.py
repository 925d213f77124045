"""Read paths of the long-term history. Only complete blocks are visible, on every path.

A block is complete once its completion cell exists (written last). Everything found through an
index (a transaction by hash or id, an account's history, sidecar records) is checked against
its block's completion, so a half-written block stays invisible everywhere. Completion is
remembered (it never goes back). Multi-row reads report undecodable rows in ``errors`` and go on;
single-row reads raise RowDecodeError. Every call is bounded by the gateway's timeout; large key
sets are read in chunks.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from hedera_history.errors import RowDecodeError
from hedera_history.store import schema as s
from hedera_history.store.decode import (
    AccountHistoryEntry,
    BlockFile,
    HashResult,
    StoredBlock,
    StoredSidecarRecord,
    StoredTransaction,
    TransactionIdResult,
    decode_account_history_row,
    decode_block_row,
    decode_items_row,
    decode_sidecar_row,
    decode_transaction_row,
    decode_tx_hash_row,
    decode_tx_id_row,
    guarded,
)
from hedera_history.store.encoding import decode_value
from hedera_history.store.gateway import BigtableGateway, KeyRange, RowQuery, StoredRow
from hedera_history.store.keys import (
    MAX_U64,
    account_history_range,
    block_number_from_key,
    hex16,
    row_key_for_block,
    row_key_for_sidecar,
    row_key_for_transaction,
    row_key_for_tx_hash,
    row_key_for_tx_id,
)
from hedera_history.store.values import decode_u64

MAX_BLOCK_RANGE = 10_000
"""``get_blocks`` looks at most this many block numbers per call."""
MAX_HISTORY_LIMIT = 1000
DEFAULT_HISTORY_LIMIT = 100
KEY_CHUNK = 500
"""Row keys per ReadRows request."""
COMPLETION_CACHE_SIZE = 100_000

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class AccountHistoryPage:
    entries: tuple[AccountHistoryEntry, ...]
    """Newest first."""
    next_before: int | None
    """Pass as ``before`` for the next page; None when this page reached the end."""
    errors: tuple[RowDecodeError, ...] = ()


@dataclass(frozen=True, slots=True)
class TransactionStatuses:
    statuses: dict[bytes, HashResult | None]
    """By transaction hash: the first complete result, or None when not (yet) stored."""
    errors: tuple[RowDecodeError, ...] = ()


class HistoryReader:
    def __init__(self, gateway: BigtableGateway, *, completion_cache_size: int = COMPLETION_CACHE_SIZE) -> None:
        self.gateway = gateway
        self._complete: OrderedDict[int, None] = OrderedDict()
        self._cache_size = completion_cache_size

    # ---- completion ------------------------------------------------------------------------------

    def complete_blocks(self, numbers: Iterable[int]) -> set[int]:
        """The subset of ``numbers`` whose blocks are complete."""
        wanted = set(numbers)
        known = {n for n in wanted if n in self._complete}
        unknown = sorted(wanted - known)
        for chunk in _chunks(unknown, KEY_CHUNK):
            query = RowQuery(
                keys=tuple(row_key_for_block(n) for n in chunk),
                families=(s.BLOCK_COMPLETION_FAMILY,),
                key_only=True,
                cells_per_row=1,
            )
            for row in self.gateway.read_rows(s.BLOCKS, query):
                number = block_number_from_key(row.key)
                known.add(number)
                self._remember(number)
        return known

    def _remember(self, number: int) -> None:
        self._complete[number] = None
        self._complete.move_to_end(number)
        while len(self._complete) > self._cache_size:
            self._complete.popitem(last=False)

    # ---- blocks ----------------------------------------------------------------------------------

    def get_block(self, number: int) -> StoredBlock | None:
        """The block's header and signatures, or None when it is not complete."""
        row = self._one(s.BLOCKS, row_key_for_block(number))
        if row is None or row.cell(s.BLOCK_COMPLETION_FAMILY, s.Q_COMPLETE) is None:
            return None
        self._remember(number)
        return guarded(s.BLOCKS, row, decode_block_row)

    def block_transactions(self, number: int) -> tuple[list[StoredTransaction], list[RowDecodeError]]:
        """The block's transactions in consensus order (empty when the block is not complete)."""
        block = self.get_block(number)
        if block is None or block.item_count == 0:
            return [], []
        end = hex16(block.consensus_end + 1) if block.consensus_end < MAX_U64 else None
        query = RowQuery(ranges=(KeyRange(row_key_for_transaction(block.consensus_start), end),))
        rows = self.gateway.read_rows(s.TRANSACTIONS, query)
        transactions, errors = _decode_all(s.TRANSACTIONS, rows, decode_transaction_row)
        return [t for t in transactions if t.block_number == number], errors

    def block_file(self, number: int) -> BlockFile | None:
        """The record file's signed bytes (or item list) as stored in the items table."""
        if not self.complete_blocks([number]):
            return None
        row = self._one(s.ITEMS, row_key_for_block(number))
        return None if row is None else guarded(s.ITEMS, row, decode_items_row)

    def get_blocks(self, start: int, end: int | None = None, limit: int = MAX_BLOCK_RANGE) -> list[int]:
        """Complete block numbers from ``start`` to ``end`` inclusive, ascending.

        The range is capped at MAX_BLOCK_RANGE numbers and the answer at ``limit`` blocks.
        """
        if start < 0 or limit <= 0:
            return []
        last = start + MAX_BLOCK_RANGE - 1 if end is None else min(end, start + MAX_BLOCK_RANGE - 1)
        if last < start:
            return []
        stop = hex16(last + 1) if last < MAX_U64 else None
        query = RowQuery(
            ranges=(KeyRange(row_key_for_block(start), stop),),
            families=(s.BLOCK_COMPLETION_FAMILY,),
            key_only=True,
            cells_per_row=1,
            limit=min(limit, MAX_BLOCK_RANGE),
        )
        numbers = [block_number_from_key(row.key) for row in self.gateway.read_rows(s.BLOCKS, query)]
        for number in numbers:
            self._remember(number)
        return numbers

    def first_available_block(self) -> int | None:
        """The lowest complete block number, or None when there is none."""
        query = RowQuery(
            ranges=(KeyRange(),),
            families=(s.BLOCK_COMPLETION_FAMILY,),
            key_only=True,
            cells_per_row=1,
            limit=1,
        )
        for row in self.gateway.read_rows(s.BLOCKS, query):
            return block_number_from_key(row.key)
        return None

    def block_time(self, number: int) -> int | None:
        """Consensus time (ns) of the block's first transaction, or None when not complete."""
        query = RowQuery(
            keys=(row_key_for_block(number),),
            families=(s.BLOCK_HEADER_FAMILY, s.BLOCK_COMPLETION_FAMILY),
            qualifier_regex=b"^(?:consensus_start|complete)$",
        )
        for row in self.gateway.read_rows(s.BLOCKS, query):
            if row.cell(s.BLOCK_COMPLETION_FAMILY, s.Q_COMPLETE) is None:
                return None
            return guarded(s.BLOCKS, row, _decode_consensus_start)
        return None

    # ---- transactions ----------------------------------------------------------------------------

    def transaction(self, consensus_ns: int) -> StoredTransaction | None:
        """The transaction at ``consensus_ns``, if its block is complete."""
        row = self._one(s.TRANSACTIONS, row_key_for_transaction(consensus_ns))
        if row is None:
            return None
        transaction = guarded(s.TRANSACTIONS, row, decode_transaction_row)
        return transaction if self.complete_blocks([transaction.block_number]) else None

    def transaction_by_hash(self, transaction_hash: bytes) -> StoredTransaction | None:
        """The first complete transaction with this ``transactionHash`` (later ones are duplicates)."""
        if not transaction_hash:
            return None
        row = self._one(s.TX_BY_HASH, row_key_for_tx_hash(transaction_hash))
        if row is None:
            return None
        results = guarded(s.TX_BY_HASH, row, decode_tx_hash_row)
        complete = self.complete_blocks(r.block_number for r in results)
        for result in results:
            if result.block_number in complete:
                return self.transaction(result.consensus_ns)
        return None

    def transactions_by_id(self, payer: str, valid_start_ns: int) -> list[TransactionIdResult]:
        """Every complete result of the transaction id, oldest first (the user transaction, its
        children with their nonces, a scheduled execution, duplicates)."""
        row = self._one(s.TX_BY_ID, row_key_for_tx_id(payer, valid_start_ns))
        if row is None:
            return []
        results = guarded(s.TX_BY_ID, row, decode_tx_id_row)
        complete = self.complete_blocks(r.block_number for r in results)
        return [r for r in results if r.block_number in complete]

    def transaction_statuses(self, hashes: Sequence[bytes]) -> TransactionStatuses:
        """The status of many transaction hashes at once."""
        statuses: dict[bytes, HashResult | None] = {h: None for h in hashes}
        found: dict[bytes, list[HashResult]] = {}
        errors: list[RowDecodeError] = []
        by_key = {row_key_for_tx_hash(h): h for h in statuses if h}
        for chunk in _chunks(sorted(by_key), KEY_CHUNK):
            for row in self.gateway.read_rows(s.TX_BY_HASH, RowQuery(keys=tuple(chunk))):
                try:
                    found[by_key[row.key]] = guarded(s.TX_BY_HASH, row, decode_tx_hash_row)
                except RowDecodeError as e:
                    errors.append(e)
        complete = self.complete_blocks(r.block_number for results in found.values() for r in results)
        for transaction_hash, results in found.items():
            statuses[transaction_hash] = next((r for r in results if r.block_number in complete), None)
        return TransactionStatuses(statuses, tuple(errors))

    # ---- accounts --------------------------------------------------------------------------------

    def account_history(
        self,
        account: str,
        *,
        before: int | None = None,
        until: int | None = None,
        limit: int = DEFAULT_HISTORY_LIMIT,
    ) -> AccountHistoryPage:
        """Transactions touching ``account`` with ``until < consensus < before``, newest first.

        Cursors are consensus timestamps (ns), so one that was never stored works as well.
        ``limit`` is capped at MAX_HISTORY_LIMIT.
        """
        limit = max(1, min(limit, MAX_HISTORY_LIMIT))
        start, end = account_history_range(account, before, until)
        entries: list[AccountHistoryEntry] = []
        errors: list[RowDecodeError] = []
        while len(entries) < limit and start < end:
            want = limit - len(entries)
            rows = list(self.gateway.read_rows(s.ACCOUNT_HISTORY, RowQuery(ranges=(KeyRange(start, end),), limit=want)))
            decoded, row_errors = _decode_all(s.ACCOUNT_HISTORY, rows, decode_account_history_row)
            errors.extend(row_errors)
            complete = self.complete_blocks(e.block_number for e in decoded)
            entries.extend(e for e in decoded if e.block_number in complete)
            if len(rows) < want:
                break
            start = rows[-1].key + b"\x00"
        next_before = entries[-1].consensus_ns if len(entries) == limit else None
        return AccountHistoryPage(tuple(entries), next_before, tuple(errors))

    # ---- sidecars --------------------------------------------------------------------------------

    def sidecar_records(self, consensus_ns: int, types: Iterable[int] | None = None) -> list[StoredSidecarRecord]:
        """Sidecar records of the transaction at ``consensus_ns`` (optionally of some types only)."""
        row = self._one(s.SIDECARS, row_key_for_sidecar(consensus_ns))
        if row is None:
            return []
        decoded = guarded(s.SIDECARS, row, decode_sidecar_row)
        if not self.complete_blocks([decoded.block_number]):
            return []
        wanted = None if types is None else {int(t) for t in types}
        return [r for r in decoded.records if wanted is None or r.type in wanted]

    # ---- helpers ---------------------------------------------------------------------------------

    def _one(self, table: str, key: bytes) -> StoredRow | None:
        for row in self.gateway.read_rows(table, RowQuery(keys=(key,))):
            return row
        return None


def _decode_consensus_start(row: StoredRow) -> int:
    cell = row.cell(s.BLOCK_HEADER_FAMILY, s.Q_CONSENSUS_START)
    if cell is None:
        raise RowDecodeError("missing cell h:consensus_start")
    return decode_u64(decode_value(cell.value))


def _decode_all(
    table: str, rows: Iterable[StoredRow], decoder: Callable[[StoredRow], T]
) -> tuple[list[T], list[RowDecodeError]]:
    values: list[T] = []
    errors: list[RowDecodeError] = []
    for row in rows:
        try:
            values.append(guarded(table, row, decoder))
        except RowDecodeError as e:
            errors.append(e)
    return values, errors


def _chunks(items: Sequence[T], size: int) -> Iterator[list[T]]:
    for i in range(0, len(items), size):
        yield list(items[i : i + size])
