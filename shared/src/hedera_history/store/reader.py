"""Read paths of the long-term history. Only complete blocks are visible, on every path.

A block is complete once its completion cell exists (written last). Everything found through an
index (a transaction by hash or id, an account's history, sidecar records) is checked against
its block's completion, so a half-written block stays invisible everywhere. Completion is
remembered (it never goes back). Multi-row reads report undecodable rows in ``errors`` and go on;
single-row reads raise RowDecodeError. Every call is bounded by the gateway's timeout; large key
sets are read in chunks.

Errata (docs/errata.md): a cell holding a tombstone does not exist, so an entry an errata removed
is not found, its index cells and account-history rows are skipped (a page of them is not the end
of a history), and a corrected entry carries its errata marker (``StoredTransaction.errata_marker``).

Newest first without a reverse scan (the emulator has none): block keys are fixed-width hex, so
"the first complete block at or after N" is one key-only ReadRows returning at most one row.
``latest_block`` searches with such probes (see there); ``blocks_descending`` scans backwards in
windows that grow from the page size, with a bounded look-back per call.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

from hedera_history.errors import RowDecodeError, RowLayoutError
from hedera_history.store import schema as s
from hedera_history.store.account_rows import AccountPaces, newest_rows
from hedera_history.store.block_items import ItemBytes, cells_regex, decode_items_cells, file_item_bytes
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
    decode_items_parts,
    decode_items_row,
    decode_sidecar_row,
    decode_transaction_row,
    decode_tx_hash_row,
    decode_tx_id_row,
    guarded,
)
from hedera_history.store.encoding import decode_value
from hedera_history.store.gateway import BigtableGateway, KeyRange, RowQuery, StoredRow, chunks
from hedera_history.store.keys import (
    MAX_U64,
    block_number_from_key,
    decode_account_history_key,
    hex16,
    row_key_for_block,
    row_key_for_block_hash,
    row_key_for_tx_id,
    tx_hash_key_range,
    tx_hash_row_matches,
)
from hedera_history.store.time_rows import read_at, read_between, read_one
from hedera_history.store.values import EntryPointer, decode_block_proof, decode_u64

MAX_BLOCK_RANGE = 10_000
"""``get_blocks`` looks at most this many block numbers per call."""
MAX_HISTORY_LIMIT = 1000
DEFAULT_HISTORY_LIMIT = 100
KEY_CHUNK = 500
"""Row keys per ReadRows request."""
COMPLETION_CACHE_SIZE = 100_000
FILE_CACHE_SIZE = 8
"""Blocks whose items (parsed from the whole items row) a reader keeps, for pointers naming no cell."""
CELL_CACHE_SIZE = 256
"""Items cells (parsed) a reader keeps, for the pointers of layout 2 (about 64 KiB each)."""
LATEST_SCAN_WINDOW = 256
"""``latest_block`` ends with one key-only scan of at most this many block numbers."""
DESC_LOOKBACK = 100_000
"""``blocks_descending`` looks at most this many block numbers per call (then says where to resume)."""

T = TypeVar("T")
K = TypeVar("K")


@dataclass(frozen=True, slots=True)
class AccountHistoryPage:
    entries: tuple[AccountHistoryEntry, ...]
    """Newest first."""
    next_before: int | None
    """Pass as ``before`` for the next page; None when this page reached the end."""
    errors: tuple[RowDecodeError, ...] = ()


@dataclass(frozen=True, slots=True)
class BlockPage:
    numbers: tuple[int, ...]
    """Complete block numbers, newest first."""
    resume_below: int | None
    """Exclusive upper bound for the next page; None when the requested range is exhausted."""


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
        self._highest_seen: int | None = None
        """The highest complete block seen so far: where ``latest_block`` starts looking."""
        self._files: OrderedDict[tuple[int, int], tuple[ItemBytes, ...]] = OrderedDict()
        """(block, part) -> its items, most recently used last."""
        self._cells: OrderedDict[tuple[int, int, int], tuple[int, tuple[ItemBytes, ...]]] = OrderedDict()
        """(block, part, cell) -> (index of its first item, its items), most recently used last."""
        self._signed: OrderedDict[int, bool] = OrderedDict()
        """Block number -> False when it was stored unsigned (``unsigned_blocks``)."""
        self._paces = AccountPaces()
        """How fast each system account's history came when last read: the window of its next page."""

    # ---- completion ------------------------------------------------------------------------------

    def complete_blocks(self, numbers: Iterable[int]) -> set[int]:
        """The subset of ``numbers`` whose blocks are complete."""
        wanted = set(numbers)
        known = {n for n in wanted if n in self._complete}
        unknown = sorted(wanted - known)
        for chunk in chunks(unknown, KEY_CHUNK):
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
        if self._highest_seen is None or number > self._highest_seen:
            self._highest_seen = number
        _keep(self._complete, number, None, self._cache_size)

    def shown_hashes(self, numbers: Iterable[int]) -> dict[int, bytes]:
        """The hash each complete block among ``numbers`` shows (its end running hash, else its file
        hash: what the next block names, a native block's root), by number; only those cells read."""
        found: dict[int, bytes] = {}
        qualifiers = b"|".join((s.Q_END_RUNNING_HASH, s.Q_FILE_HASH, s.Q_COMPLETE))
        for chunk in chunks(sorted(set(numbers)), KEY_CHUNK):
            query = RowQuery(
                keys=tuple(row_key_for_block(n) for n in chunk),
                families=(s.BLOCK_HEADER_FAMILY, s.BLOCK_COMPLETION_FAMILY),
                qualifier_regex=b"^(" + qualifiers + b")$",
            )
            for row in self.gateway.read_rows(s.BLOCKS, query):
                shown = row.cell(s.BLOCK_HEADER_FAMILY, s.Q_END_RUNNING_HASH) or row.cell(
                    s.BLOCK_HEADER_FAMILY, s.Q_FILE_HASH
                )
                if shown is not None and row.cell(s.BLOCK_COMPLETION_FAMILY, s.Q_COMPLETE) is not None:
                    found[block_number_from_key(row.key)] = decode_value(shown.value)
        return found

    def unsigned_blocks(self, numbers: Iterable[int]) -> set[int]:
        """The subset of ``numbers`` whose blocks were stored unsigned (``StoredBlock.unsigned``):
        one read of their ``h:block_proof`` cells for the numbers not seen before (a block's proof
        cell is written with it and never changes)."""
        wanted = set(numbers)
        unknown = sorted(n for n in wanted if n not in self._signed)
        for chunk in chunks(unknown, KEY_CHUNK):
            query = RowQuery(
                keys=tuple(row_key_for_block(n) for n in chunk),
                families=(s.BLOCK_HEADER_FAMILY,),
                qualifier_regex=b"^" + s.Q_BLOCK_PROOF + b"$",
            )
            proven: dict[int, bool] = dict.fromkeys(chunk, True)
            for row in self.gateway.read_rows(s.BLOCKS, query):
                cell = row.cell(s.BLOCK_HEADER_FAMILY, s.Q_BLOCK_PROOF)
                if cell is not None:
                    proven[block_number_from_key(row.key)] = guarded(s.BLOCKS, row, _signed_flag)
            for number, signed in proven.items():
                _keep(self._signed, number, signed, self._cache_size)
        return {n for n in wanted if not self._signed.get(n, True)}

    # ---- blocks ----------------------------------------------------------------------------------

    def get_block(self, number: int) -> StoredBlock | None:
        """The block's header and signatures, or None when it is not complete."""
        row = self._one(s.BLOCKS, row_key_for_block(number))
        if row is None or row.cell(s.BLOCK_COMPLETION_FAMILY, s.Q_COMPLETE) is None:
            return None
        self._remember(number)
        return guarded(s.BLOCKS, row, decode_block_row)

    def block_number_for_hash(self, hash_prefix: bytes) -> int | None:
        """The number of the block whose shown hash (end running hash, else file hash) starts with
        ``hash_prefix`` (32 or 48 bytes, as the mirror node takes them); None when none does."""
        start = row_key_for_block_hash(hash_prefix)
        query = RowQuery(ranges=(KeyRange(start, start + b"\xff"),), families=(s.BLOCK_HEADER_FAMILY,), limit=1)
        for row in self.gateway.read_rows(s.BLOCKS, query):
            return guarded(s.BLOCKS, row, _decode_hash_index)
        return None

    def get_many_blocks(self, numbers: Sequence[int]) -> tuple[list[StoredBlock], list[RowDecodeError]]:
        """The complete blocks among ``numbers``, in the order asked, read in one request per chunk."""
        found: dict[int, StoredBlock] = {}
        errors: list[RowDecodeError] = []
        for chunk in chunks(sorted(set(numbers)), KEY_CHUNK):
            rows = self.gateway.read_rows(s.BLOCKS, RowQuery(keys=tuple(row_key_for_block(n) for n in chunk)))
            for row in rows:
                if row.cell(s.BLOCK_COMPLETION_FAMILY, s.Q_COMPLETE) is None:
                    continue
                try:
                    block = guarded(s.BLOCKS, row, decode_block_row)
                except RowDecodeError as e:
                    errors.append(e)
                    continue
                self._remember(block.number)
                found[block.number] = block
        return [found[n] for n in numbers if n in found], errors

    def block_transactions(
        self, number: int, also: Iterable[int] = ()
    ) -> tuple[list[StoredTransaction], list[RowDecodeError]]:
        """The block's transactions in consensus order (empty when the block is not complete).

        ``also``: consensus times of entries placed in the block outside its span (an entry an
        errata inserted after the block's last item: ``errata.read.inserted_entries``).
        """
        block = self.get_block(number)
        if block is None:
            return [], []
        found: dict[int, StoredTransaction] = {}
        errors: list[RowDecodeError] = []
        if block.item_count:
            rows = read_between(self.gateway, s.TRANSACTIONS, block.consensus_start, block.consensus_end + 1)
            transactions, errors = _decode_all(s.TRANSACTIONS, rows, decode_transaction_row)
            found.update((t.consensus_ns, t) for t in transactions)
        outside = sorted({ns for ns in also if ns not in found})
        if outside:
            extra, extra_errors = self.transactions(outside)
            found.update((t.consensus_ns, t) for t in extra)
            errors.extend(extra_errors)
        filled, fill_errors = self._filled([found[ns] for ns in sorted(found) if found[ns].block_number == number])
        return self._indexed(filled), errors + fill_errors

    def block_file(self, number: int) -> BlockFile | None:
        """The record file's signed bytes (or item list) as stored in the items table (of a
        duplicate block: the first file's; ``block_files`` gives both)."""
        if not self.complete_blocks([number]):
            return None
        row = self._one(s.ITEMS, row_key_for_block(number))
        return None if row is None else guarded(s.ITEMS, row, decode_items_row)

    def block_files(self, number: int) -> tuple[BlockFile, ...] | None:
        """Every record file of the block in order: one, or the two of a duplicate block."""
        if not self.complete_blocks([number]):
            return None
        row = self._one(s.ITEMS, row_key_for_block(number))
        return None if row is None else guarded(s.ITEMS, row, decode_items_parts)

    def _indexed(self, transactions: list[StoredTransaction]) -> list[StoredTransaction]:
        """Indexes as the mirror node gives them: an entry of a duplicate block's second file
        follows the first file's items (``store.duplicates``)."""
        if all(t.part == 0 for t in transactions):
            return transactions
        return [self._shifted(t) if t.part == 1 else t for t in transactions]

    def _shifted(self, transaction: StoredTransaction) -> StoredTransaction:
        block = self.get_block(transaction.block_number)
        first = block.parts[0].item_count if block is not None and block.parts else 0
        return replace(transaction, index=transaction.index + first, part=0)

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
        return self._complete_in(start, stop, limit)

    def _complete_in(self, start: int, stop: bytes | None, limit: int) -> list[int]:
        """Complete block numbers from ``start`` up to the key ``stop`` (exclusive), at most ``limit``."""
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

    def latest_block(self) -> int | None:
        """The highest complete block number, or None when there is none.

        Warm (this reader has seen a complete block): one key-only scan of at most
        LATEST_SCAN_WINDOW rows from that block, which ends the search unless more blocks than
        that were added since. Otherwise, from the highest complete block known (or the first
        available one): gallop upward with probes at +1, +2, +4, ... until one finds nothing, then
        ``_last_complete_below`` the gap. A probe is one key-only ReadRows returning at most one
        row, so a cold search over N blocks costs about 2 * log2(N / LATEST_SCAN_WINDOW) + 10 reads.
        """
        low: int | None = None
        if self._highest_seen is not None:
            recent = self._complete_from(self._highest_seen, LATEST_SCAN_WINDOW)
            if recent and len(recent) < LATEST_SCAN_WINDOW:
                return recent[-1]
            low = recent[-1] if recent else None  # empty: the known block aged out; start over
        if low is None:
            low = self.first_available_block()
            if low is None:
                return None
        step = 1
        while low + step <= MAX_U64:
            found = self._complete_from(low + step, 1)
            if not found:
                return self._last_complete_below(low, low + step)
            low, step = found[0], step * 2
        return self._last_complete_below(low, MAX_U64 + 1)

    def blocks_descending(self, end: int | None, start: int = 0, limit: int = 25) -> BlockPage:
        """Complete block numbers from ``end`` (None: the latest block) down to ``start``, newest
        first, at most ``limit``.

        Scans backwards in windows of ``limit`` numbers, growing fourfold up to MAX_BLOCK_RANGE.
        After DESC_LOOKBACK empty-handed numbers it jumps the gap once, with probes
        (``_last_complete_below``), and scans on from the block found; ``resume_below`` says where
        the next page goes on. So every page holds at least one block while any is left.
        """
        if end is None:
            end = self.latest_block()
        if end is None or limit <= 0 or end < start:
            return BlockPage((), None)
        found: list[int] = []
        top, window, looked, jumped = end, limit, 0, False
        while top >= start and len(found) < limit:
            if looked >= DESC_LOOKBACK:
                if jumped:
                    break
                jumped = True
                first = self._complete_from(start, 1)
                if not first or first[0] > top:
                    top = start - 1
                    break
                top, window, looked = self._last_complete_below(first[0], top + 1), limit, 0
            bottom = max(start, top - window + 1)
            found.extend(reversed(self.get_blocks(bottom, top)))
            looked += top - bottom + 1
            top = bottom - 1
            window = min(window * 4, MAX_BLOCK_RANGE)
        if len(found) > limit:
            return BlockPage(tuple(found[:limit]), found[limit - 1])
        return BlockPage(tuple(found), top + 1 if top >= start else None)

    def _last_complete_below(self, low: int, high: int) -> int:
        """The highest complete block below ``high``, given a complete block ``low`` below it.

        Bisects with probes (a probe finding a block at or above ``high`` counts as finding
        nothing) and ends with one key-only scan once at most LATEST_SCAN_WINDOW numbers are left.
        """
        while high - low > LATEST_SCAN_WINDOW:
            middle = (low + high) // 2
            found = self._complete_from(middle, 1)
            if found and found[0] < high:
                low = found[0]
            else:
                high = middle
        rest = self.get_blocks(low + 1, high - 1) if high - low > 1 else []
        last = rest[-1] if rest else low
        self._remember(last)
        return last

    def blocks_ascending(self, start: int, end: int | None = None, limit: int = 25) -> list[int]:
        """Complete block numbers from ``start`` to ``end`` inclusive (None: no end), ascending, at
        most ``limit`` (capped at MAX_BLOCK_RANGE): one key-only scan bounded by its row limit, so
        gaps between stored blocks cost nothing."""
        if start < 0 or limit <= 0 or (end is not None and end < start) or start > MAX_U64:
            return []
        stop = hex16(end + 1) if end is not None and end < MAX_U64 else None
        return self._complete_in(start, stop, limit)

    def _complete_from(self, number: int, count: int) -> list[int]:
        """Up to ``count`` complete block numbers at or after ``number``, ascending."""
        return self.blocks_ascending(number, None, count)

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

    def transaction(self, at: int | IndexEntry) -> StoredTransaction | None:
        """The transaction at a consensus time, if its block is complete. Given the index entry
        that found it, the entry's pointer goes straight to the items row (no ``transactions`` read)."""
        consensus_ns = _consensus_of(at)
        transaction = _from_pointer(at)
        if transaction is None:
            row = read_one(self.gateway, s.TRANSACTIONS, consensus_ns)
            if row is None:
                return None
            transaction = guarded(s.TRANSACTIONS, row, decode_transaction_row)
        if transaction is None or not self.complete_blocks([transaction.block_number]):
            return None
        filled, errors = self._filled([transaction])
        if errors:
            raise errors[0]
        return self._indexed(filled)[0]

    def transactions(self, wanted: Sequence[int | IndexEntry]) -> tuple[list[StoredTransaction], list[RowDecodeError]]:
        """The transactions at these consensus times (or found by these index entries, whose
        pointers skip the ``transactions`` rows) whose blocks are complete, in the order asked,
        read in one request per chunk."""
        consensus_times = [_consensus_of(at) for at in wanted]
        found: dict[int, StoredTransaction] = {}
        errors: list[RowDecodeError] = []
        for at in wanted:
            pointed = _from_pointer(at)
            if pointed is not None:
                found[pointed.consensus_ns] = pointed
        rows = read_at(self.gateway, s.TRANSACTIONS, set(consensus_times) - set(found)).values()
        decoded, row_errors = _decode_all(s.TRANSACTIONS, rows, decode_transaction_row)
        errors.extend(row_errors)
        found.update((t.consensus_ns, t) for t in decoded)
        complete = self.complete_blocks(t.block_number for t in found.values())
        kept = [found[ns] for ns in consensus_times if ns in found and found[ns].block_number in complete]
        filled, fill_errors = self._filled(kept)
        return self._indexed(filled), errors + fill_errors

    def _filled(self, transactions: list[StoredTransaction]) -> tuple[list[StoredTransaction], list[RowDecodeError]]:
        """``transactions`` with the bytes of pointer rows (``in_items``) taken from their blocks'
        items rows: the cells they name (one request for those not cached), or the whole row for a
        pointer naming no cell. An entry whose item cannot be found is left out and reported."""
        pointers = [t for t in transactions if t.in_items]
        # What this call needs, taken from the caches first (reading more may push them out).
        wanted_files = {(t.block_number, t.part) for t in pointers if t.cell is None}
        wanted_cells = {(t.block_number, t.part, t.cell) for t in pointers if t.cell is not None}
        files = {key: self._files[key] for key in wanted_files if key in self._files}
        cells = {key: self._cells[key] for key in wanted_cells if key in self._cells}
        errors = self._read_whole_items(wanted_files - set(files), files)
        errors += self._read_cells(wanted_cells - set(cells), cells)
        out: list[StoredTransaction] = []
        for transaction in transactions:
            if not transaction.in_items:
                out.append(transaction)
                continue
            found = self._item(transaction, files, cells)
            if found is None:
                errors.append(
                    RowDecodeError(
                        f"transactions row {transaction.consensus_ns}: block {transaction.block_number} holds no item "
                        f"{transaction.index} (part {transaction.part}, cell {transaction.cell})"
                    )
                )
                continue
            index, (body, record) = found
            out.append(
                replace(
                    transaction, index=index, record_bytes=record, transaction_bytes=body, in_items=False, offset=None
                )
            )
        return out, errors

    def _item(
        self,
        transaction: StoredTransaction,
        files: dict[tuple[int, int], tuple[ItemBytes, ...]],
        cells: dict[tuple[int, int, int], tuple[int, tuple[ItemBytes, ...]]],
    ) -> tuple[int, ItemBytes] | None:
        """The item's index in its block and the item, from the files and cells this call gathered."""
        number, part, index = transaction.block_number, transaction.part, transaction.index
        if transaction.cell is None:
            items = files.get((number, part))
            return (index, items[index]) if items is not None and index < len(items) else None
        cached = cells.get((number, part, transaction.cell))
        if cached is None:
            return None
        first, cell_items = cached
        offset = index - first if transaction.offset is None else transaction.offset
        return (first + offset, cell_items[offset]) if 0 <= offset < len(cell_items) else None

    def _read_whole_items(
        self, wanted: set[tuple[int, int]], files: dict[tuple[int, int], tuple[ItemBytes, ...]]
    ) -> list[RowDecodeError]:
        errors: list[RowDecodeError] = []
        for chunk in chunks(sorted({number for number, _ in wanted}), KEY_CHUNK):
            for row in self.gateway.read_rows(s.ITEMS, RowQuery(keys=tuple(row_key_for_block(n) for n in chunk))):
                number = block_number_from_key(row.key)
                try:
                    for part, file in enumerate(guarded(s.ITEMS, row, decode_items_parts)):
                        files[(number, part)] = file_item_bytes(file, f"items row of block {number}")
                        _keep(self._files, (number, part), files[(number, part)], FILE_CACHE_SIZE)
                except RowDecodeError as e:
                    errors.append(e)
        return errors

    def _read_cells(
        self, wanted: set[tuple[int, int, int]], cells: dict[tuple[int, int, int], tuple[int, tuple[ItemBytes, ...]]]
    ) -> list[RowDecodeError]:
        """The cells ``(block, part, cell)``, with cell 0 of each file, in one request per chunk of
        blocks: the filter is the union of the cells wanted, so a row may bring a cell asked for
        another block too (kept as well)."""
        errors: list[RowDecodeError] = []
        blocks = sorted({number for number, _, _ in wanted})
        for chunk in chunks(blocks, KEY_CHUNK):
            in_chunk = set(chunk)
            regex = cells_regex((part, cell) for number, part, cell in wanted if number in in_chunk)
            query = RowQuery(keys=tuple(row_key_for_block(n) for n in chunk), qualifier_regex=regex)
            for row in self.gateway.read_rows(s.ITEMS, query):
                number = block_number_from_key(row.key)
                what = f"items row of block {number}"
                try:
                    for part, file in guarded(s.ITEMS, row, decode_items_cells).items():
                        numbers = [*file.cells, *([0] if (number, part, 0) in wanted else [])]
                        for cell in numbers:
                            cells[(number, part, cell)] = file.items(cell, what)
                            _keep(self._cells, (number, part, cell), cells[(number, part, cell)], CELL_CACHE_SIZE)
                except RowDecodeError as e:
                    errors.append(e)
        return errors

    def transaction_by_hash(self, transaction_hash: bytes) -> StoredTransaction | None:
        """The first complete transaction with this ``transactionHash`` (later ones are duplicates)."""
        if not transaction_hash:
            return None
        return self._first_with_hash(transaction_hash, limit=None)

    def transaction_by_hash_prefix(self, prefix: bytes) -> StoredTransaction | None:
        """The first complete transaction whose ``transactionHash`` starts with ``prefix`` (the
        mirror node names a transaction by the first 32 bytes of its hash on EVM routes)."""
        if not prefix:
            return None
        return self._first_with_hash(prefix, limit=2)

    def _first_with_hash(self, hash_prefix: bytes, limit: int | None) -> StoredTransaction | None:
        """The first complete transaction whose ``transactionHash`` starts with ``hash_prefix``:
        one prefix scan finds this layout's short key and a whole-hash key written before; the
        record read tells a (128-bit) collision of short keys apart."""
        start, end = tx_hash_key_range(hash_prefix)
        query = RowQuery(ranges=(KeyRange(start, end),), limit=limit)
        for row in self.gateway.read_rows(s.TX_BY_HASH, query):
            if not tx_hash_row_matches(row.key, hash_prefix):
                continue
            results = guarded(s.TX_BY_HASH, row, decode_tx_hash_row)
            complete = self.complete_blocks(r.block_number for r in results)
            for result in results:
                if result.block_number in complete:
                    found = self.transaction(result)
                    if found is not None and found.record().transactionHash.startswith(hash_prefix):
                        return found
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
        by_range: dict[tuple[bytes, bytes], list[bytes]] = {}
        for transaction_hash in statuses:
            if transaction_hash:
                by_range.setdefault(tx_hash_key_range(transaction_hash), []).append(transaction_hash)
        by_start = {start: hashes for (start, _), hashes in by_range.items()}
        lengths = sorted({len(start) for start in by_start})
        for chunk in chunks(sorted(by_range), KEY_CHUNK):
            query = RowQuery(ranges=tuple(KeyRange(start, end) for start, end in chunk))
            for row in self.gateway.read_rows(s.TX_BY_HASH, query):
                # A short key of this layout, or a whole-hash key written before (see keys).
                candidates = [h for n in lengths for h in by_start.get(row.key[:n], ())]
                wanted = [h for h in candidates if tx_hash_row_matches(row.key, h)]
                if not wanted:
                    continue
                try:
                    results = guarded(s.TX_BY_HASH, row, decode_tx_hash_row)
                except RowDecodeError as e:
                    errors.append(e)
                    continue
                for transaction_hash in wanted:
                    merged = found.get(transaction_hash, []) + results
                    found[transaction_hash] = sorted(merged, key=lambda r: r.consensus_ns)
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
        ``limit`` is capped at MAX_HISTORY_LIMIT. Rows an errata removed are skipped and reading
        goes on past them, so a page is short only at the end of the history. A system account's
        rows are one request a page once this reader has read a page of it (``store.account_rows``).
        """
        limit = max(1, min(limit, MAX_HISTORY_LIMIT))
        entries: list[AccountHistoryEntry] = []
        errors: list[RowDecodeError] = []
        while len(entries) < limit:
            want = limit - len(entries)
            rows = newest_rows(self.gateway, account, before, until, want, self._paces)
            decoded, row_errors = _decode_all(s.ACCOUNT_HISTORY, rows, decode_account_history_row)
            errors.extend(row_errors)
            complete = self.complete_blocks(e.block_number for e in decoded)
            for entry in decoded:
                if entry.block_number in complete:
                    entries.append(entry)
            older = _oldest_time(rows)
            if len(rows) < want or older is None:
                break
            before = older
        next_before = entries[-1].consensus_ns if len(entries) == limit else None
        return AccountHistoryPage(tuple(entries), next_before, tuple(errors))

    # ---- sidecars --------------------------------------------------------------------------------

    def sidecar_records(self, consensus_ns: int, types: Iterable[int] | None = None) -> list[StoredSidecarRecord]:
        """Sidecar records of the transaction at ``consensus_ns`` (optionally of some types only),
        ordered by sidecar file and position in it."""
        wanted = None if types is None else sorted({int(t) for t in types})
        regex = None
        if wanted is not None:
            # Only the wanted records travel (bytecode can be large), and the block cell.
            kinds = b"|".join(b"%d" % t for t in wanted)
            regex = b"^(?:" + s.Q_BLOCK + b"|(?:" + kinds + b")/.*)$"
        row = read_one(self.gateway, s.SIDECARS, consensus_ns, qualifier_regex=regex)
        if row is None:
            return []
        decoded = guarded(s.SIDECARS, row, decode_sidecar_row)
        if decoded is None or not self.complete_blocks([decoded.block_number]):
            return []
        records = [r for r in decoded.records if wanted is None or r.type in wanted]
        return sorted(records, key=lambda r: (r.sidecar_id, r.index))

    # ---- helpers ---------------------------------------------------------------------------------

    def _one(self, table: str, key: bytes, qualifier_regex: bytes | None = None) -> StoredRow | None:
        for row in self.gateway.read_rows(table, RowQuery(keys=(key,), qualifier_regex=qualifier_regex)):
            return row
        return None


def _signed_flag(row: StoredRow) -> bool:
    cell = row.cell(s.BLOCK_HEADER_FAMILY, s.Q_BLOCK_PROOF)
    assert cell is not None
    return decode_block_proof(decode_value(cell.value)).signed


def _keep(cache: OrderedDict[K, T], key: K, value: T, capacity: int) -> None:
    """``value`` as the most recently used entry of ``cache``, the least recent dropped past ``capacity``."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > capacity:
        cache.popitem(last=False)


def _oldest_time(rows: Sequence[StoredRow]) -> int | None:
    """The time of the last row of a newest-first page whose key decodes (where the next starts)."""
    for row in reversed(rows):
        try:
            return decode_account_history_key(row.key)[1]
        except RowLayoutError:
            continue
    return None


def _decode_hash_index(row: StoredRow) -> int:
    cell = row.cell(s.BLOCK_HEADER_FAMILY, s.Q_BLOCK_NUMBER)
    if cell is None:
        raise RowDecodeError("missing cell h:number")
    return decode_u64(decode_value(cell.value))


def _decode_consensus_start(row: StoredRow) -> int:
    cell = row.cell(s.BLOCK_HEADER_FAMILY, s.Q_CONSENSUS_START)
    if cell is None:
        raise RowDecodeError("missing cell h:consensus_start")
    return decode_u64(decode_value(cell.value))


def _decode_all(
    table: str, rows: Iterable[StoredRow], decoder: Callable[[StoredRow], T | None]
) -> tuple[list[T], list[RowDecodeError]]:
    """The rows decoded (those that decode to None, removed by an errata, left out) and the errors."""
    values: list[T] = []
    errors: list[RowDecodeError] = []
    for row in rows:
        try:
            value = guarded(table, row, decoder)
        except RowDecodeError as e:
            errors.append(e)
            continue
        if value is not None:
            values.append(value)
    return values, errors


class IndexEntry(Protocol):
    """An index entry (tx_by_id, tx_by_hash, account_history): a transaction's consensus time and
    where its bytes are (layout 2), when the entry says so."""

    @property
    def consensus_ns(self) -> int: ...

    @property
    def located(self) -> EntryPointer | None: ...


def _consensus_of(at: int | IndexEntry) -> int:
    return at if isinstance(at, int) else at.consensus_ns


def _from_pointer(at: int | IndexEntry) -> StoredTransaction | None:
    """A pointer row made from an index entry naming its items cell (bytes still to fill), or
    None: a bare time, an entry of layout 1, or one an errata marked apart (its row is read)."""
    if isinstance(at, int) or at.located is None or at.located.apart or at.located.cell is None:
        return None
    located = at.located
    return StoredTransaction(
        at.consensus_ns,
        located.block_number,
        0,  # the cell's first index plus the offset, once the cell is read
        b"",
        b"",
        part=located.part,
        in_items=True,
        cell=located.cell,
        offset=located.offset,
    )
