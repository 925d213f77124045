"""Derived hbar balances: blocks applied in order, behind the contiguous run of complete blocks.

Blocks complete out of order; application does not. Each run continues from its progress cell
with the next block and stops at the first block that is not complete. A block's transfers come
from its *original* items (the signed file in the ``items`` table): errata corrections of history
do not move balances, their compensating items do (HIP-639), at the errata's consensus time, in
the first block whose slot reaches that time (a slot is the time after the previous block's last
item up to this block's last item).

Crash-safe and repeatable: a block is computed from the balances as of before it (the newest
row at or before the previous slot's end), never from a running total that may already include
it; its rows are written, then its applied-block record, then the progress cell. Re-running a
block rewrites the same cells. A compensation that arrives for a time already applied rewinds the
progress to its block, and the blocks from there are recomputed.

One run at a time: two runs that overlap a rewind can overwrite each other's rows with stale
values (same keys, same cell timestamps). Callers that may run concurrently (the store function's
instances, the sweep) go through ``derived.lease.ExclusiveBalanceApplier``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.config import Settings
from hedera_history.derived.balances import latest_entry, read_progress, read_start
from hedera_history.derived.rows import (
    COMPENSATION_PREFIX,
    PROGRESS_KEY,
    Q_BALANCE,
    Q_END,
    Q_NEXT,
    Q_START,
    SLOT_END_PREFIX,
    START_KEY,
    STATE_TIMESTAMP,
    Compensation,
    Progress,
    decode_compensation,
    decode_u64,
    encode_balance,
    encode_pair,
    encode_u64,
    one_cell_row,
    row_key_for_applied_block,
    row_key_for_balance,
    row_key_for_slot_end,
)
from hedera_history.errors import FormatError, RowDecodeError, StoreError
from hedera_history.formats.block import BlockFile, parse_block
from hedera_history.formats.block_record_file import native_block_files
from hedera_history.formats.block_transactions import block_file_transactions
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.logs import event
from hedera_history.store.accounts import entity_text
from hedera_history.store.chaintime import cell_timestamp_micros
from hedera_history.store.decode import BlockFile as StoredFile
from hedera_history.store.decode import StoredBlock
from hedera_history.store.encoding import encode_value
from hedera_history.store.gateway import BigtableGateway, KeyRange, RowQuery
from hedera_history.store.model import Cell, Row
from hedera_history.store.originals import decode_item_list
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import BALANCES, BALANCES_FAMILY, ITEMS_BLOCK_KIND
from hedera_history.store.writer import BlockWriter

logger = logging.getLogger(__name__)
MAX_CACHED_ACCOUNTS = 200_000


@dataclass
class ApplyReport:
    applied: list[int] = field(default_factory=list)
    """Block numbers applied by this run, in order."""
    stopped_at: int | None = None
    """The first block that was not complete (where the next run starts)."""
    rewound_to: int | None = None
    """Set when a late compensation sent the progress back to this block."""
    compensations: int = 0
    """Compensations folded into the blocks of this run."""
    skipped_items: int = 0
    """Items whose record did not decode: no transfers taken from them, each logged
    (``balance item undecodable``) with its block and consensus time."""
    interrupted: bool = False
    """``should_continue`` said stop before ``stopped_at`` (e.g. the lease was lost)."""


class BalanceApplier:
    def __init__(
        self,
        gateway: BigtableGateway,
        settings: Settings,
        *,
        reader: HistoryReader | None = None,
        max_cached_accounts: int = MAX_CACHED_ACCOUNTS,
    ) -> None:
        self.gateway = gateway
        self.settings = settings
        self.reader = reader or HistoryReader(gateway)
        self.writer = BlockWriter(gateway, settings)
        self.max_cached_accounts = max_cached_accounts
        self._cache: dict[str, int] = {}
        """Balances as of the bound this applier last reached (valid while ``_cache_for`` holds)."""
        self._cache_for: tuple[Progress, tuple[Compensation, ...]] | None = None
        """The progress this applier last wrote and the compensations it applied with: a run that
        finds both as they were goes on from the cache (no other run moved the progress or
        rewound it for a new compensation); anything else starts it empty."""

    def start(self, first_block: int, bound_ns: int) -> None:
        """Begin with ``first_block``; balances at or before ``bound_ns`` are given (a snapshot's time,
        or 0). Does nothing when application has already begun."""
        if read_start(self.gateway) is not None:
            return
        self.writer.write_rows(
            [
                one_cell_row(START_KEY, Q_START, encode_pair(first_block, bound_ns), STATE_TIMESTAMP),
                one_cell_row(PROGRESS_KEY, Q_NEXT, encode_pair(first_block, bound_ns), STATE_TIMESTAMP),
            ]
        )

    def run(self, max_blocks: int | None = None, should_continue: Callable[[], bool] | None = None) -> ApplyReport:
        """Apply the complete blocks after the progress, in order, up to the first gap.

        ``should_continue`` is asked before each block; False ends the run there.
        """
        report = ApplyReport()
        progress = read_progress(self.gateway)
        if progress is None:
            first = self.reader.first_available_block()
            if first is None:
                return report
            self.start(first, 0)
            progress = Progress(first, 0)
        start = read_start(self.gateway) or progress
        compensations = self._compensations()
        if self._cache_for != (progress, tuple(compensations)):
            self._cache.clear()  # another run moved the progress since, or a compensation came
        self._cache_for = None  # until this run ends where it says
        progress = self._rewind_for_late(progress, start, compensations, report)
        number, bound = progress.next_block, progress.bound_ns
        while max_blocks is None or len(report.applied) < max_blocks:
            if should_continue is not None and not should_continue():
                report.interrupted = True
                break
            block = self.reader.get_block(number)
            if block is None:
                report.stopped_at = number
                break
            bound = self._apply_block(block, bound, compensations, report)
            report.applied.append(number)
            number += 1
        self._cache_for = (Progress(number, bound), tuple(compensations))
        if report.applied:
            event(
                logger,
                "balances applied",
                first=report.applied[0],
                last=report.applied[-1],
                stopped_at=report.stopped_at,
                rewound_to=report.rewound_to,
                skipped_items=report.skipped_items,
            )
        return report

    # ---- one block -------------------------------------------------------------------------------

    def _apply_block(
        self, block: StoredBlock, bound: int, compensations: list[Compensation], report: ApplyReport
    ) -> int:
        end = max(bound, block.consensus_end) if block.item_count else bound
        events: list[tuple[int, int, list[tuple[str, int]]]] = []
        for item in self._item_transfers(block):
            if item.consensus_ns <= bound:
                continue  # already in the starting snapshot
            if item.transfers is None:
                report.skipped_items += 1
                event(
                    logger,
                    "balance item undecodable",
                    logging.ERROR,
                    block=block.number,
                    consensus_ns=item.consensus_ns,
                    record_bytes=item.record_bytes,
                )
                continue
            events.append((item.consensus_ns, 0, item.transfers))
        included = [c for c in compensations if bound < c.consensus_ns <= end]
        events.extend((c.consensus_ns, 1, list(c.deltas)) for c in included)
        events.sort(key=lambda e: (e[0], e[1]))

        accounts = sorted({account for _, _, transfers in events for account, _ in transfers})
        balances = self._balances_before(accounts, bound)
        after: dict[tuple[str, int], int] = {}
        for consensus_ns, _, transfers in events:
            for account, amount in transfers:
                balances[account] += amount
                after[(account, consensus_ns)] = balances[account]
        rows = [
            one_cell_row(
                row_key_for_balance(account, consensus_ns),
                Q_BALANCE,
                encode_balance(balance, block.number),
                cell_timestamp_micros(consensus_ns),
            )
            for (account, consensus_ns), balance in sorted(after.items())
        ]
        stamp = cell_timestamp_micros(end)
        applied_cells = [Cell(BALANCES_FAMILY, Q_END, encode_value(encode_u64(end)), stamp)]
        applied_cells += [Cell(BALANCES_FAMILY, c.qualifier, encode_value(b""), stamp) for c in included]
        rows.append(Row(BALANCES, row_key_for_applied_block(block.number), tuple(applied_cells)))
        if block.item_count:
            rows.append(one_cell_row(row_key_for_slot_end(end), Q_NEXT, encode_u64(block.number), stamp))
        self.writer.write_rows(rows)
        self.writer.write_rows(
            [one_cell_row(PROGRESS_KEY, Q_NEXT, encode_pair(block.number + 1, end), STATE_TIMESTAMP)]
        )
        report.compensations += len(included)
        if len(self._cache) + len(balances) > self.max_cached_accounts:
            self._cache.clear()
        self._cache.update(balances)
        return end

    def _balances_before(self, accounts: Iterable[str], bound: int) -> dict[str, int]:
        out: dict[str, int] = {}
        for account in accounts:
            cached = self._cache.get(account)
            if cached is None:
                entry = latest_entry(self.gateway, account, bound)
                cached = entry.balance if entry is not None else 0
            out[account] = cached
        return out

    def _item_transfers(self, block: StoredBlock) -> tuple[ItemTransfers, ...]:
        return item_transfers(self.reader, block)

    # ---- compensations ---------------------------------------------------------------------------

    def _compensations(self) -> list[Compensation]:
        end = COMPENSATION_PREFIX[:-1] + bytes([COMPENSATION_PREFIX[-1] + 1])
        query = RowQuery(ranges=(KeyRange(COMPENSATION_PREFIX, end),), families=(BALANCES_FAMILY,))
        found = []
        for row in self.gateway.read_rows(BALANCES, query):
            try:
                found.append(decode_compensation(row.key, {c.qualifier: c.value for c in row.cells}))
            except RowDecodeError as e:
                event(
                    logger,
                    "compensation row skipped",
                    logging.ERROR,
                    key=row.key.decode(errors="replace"),
                    error=str(e),
                )
        return sorted(found, key=lambda c: (c.consensus_ns, c.errata_id))

    def _rewind_for_late(
        self, progress: Progress, start: Progress, compensations: list[Compensation], report: ApplyReport
    ) -> Progress:
        """Send the progress back to the earliest block a compensation should have been part of."""
        target: int | None = None
        for compensation in compensations:
            if not start.bound_ns < compensation.consensus_ns <= progress.bound_ns:
                continue
            block = self._block_of_time(compensation.consensus_ns)
            if block is None or (target is not None and block >= target):
                continue
            if not self._included(block, compensation):
                target = block
        if target is None:
            return progress
        bound = start.bound_ns if target <= start.next_block else self._slot_end(target - 1, start.bound_ns)
        rewound = Progress(target, bound)
        self.writer.write_rows([one_cell_row(PROGRESS_KEY, Q_NEXT, encode_pair(target, bound), STATE_TIMESTAMP)])
        self._cache.clear()
        report.rewound_to = target
        event(logger, "balances rewound for a late compensation", block=target)
        return rewound

    def _block_of_time(self, consensus_ns: int) -> int | None:
        end = SLOT_END_PREFIX[:-1] + bytes([SLOT_END_PREFIX[-1] + 1])
        query = RowQuery(ranges=(KeyRange(row_key_for_slot_end(consensus_ns), end),), limit=1)
        for row in self.gateway.read_rows(BALANCES, query):
            cell = row.cell(BALANCES_FAMILY, Q_NEXT)
            if cell is not None:
                return decode_u64(cell.value, "slot end")
        return None

    def _included(self, block_number: int, compensation: Compensation) -> bool:
        for row in self.gateway.read_rows(BALANCES, RowQuery(keys=(row_key_for_applied_block(block_number),))):
            return row.cell(BALANCES_FAMILY, compensation.qualifier) is not None
        return False

    def _slot_end(self, block_number: int, default: int) -> int:
        for row in self.gateway.read_rows(BALANCES, RowQuery(keys=(row_key_for_applied_block(block_number),))):
            cell = row.cell(BALANCES_FAMILY, Q_END)
            if cell is not None:
                return decode_u64(cell.value, "slot end")
        return default


_BLOCK_KIND = ITEMS_BLOCK_KIND.decode("ascii")


@dataclass(frozen=True, slots=True)
class ItemTransfers:
    """The hbar an item moved: what balances take from it."""

    consensus_ns: int
    transfers: list[tuple[str, int]] | None
    """``(account, amount)`` of its transfer list, zero amounts left out; None: its record does not decode."""
    record_bytes: int = field(compare=False)
    """The size of its record, or of a native block's transaction result (for the log line of a
    record that does not decode)."""


def original_items(reader: HistoryReader, block: StoredBlock) -> tuple[RecordItem, ...]:
    """A complete block's items as the nodes signed them (the ``items`` table), never corrected."""
    items: list[RecordItem] = []
    for stored, name in _stored_files(reader, block):
        if stored.kind == _BLOCK_KIND:
            # A native block is kept whole; its records are the ones its items became when written.
            items.extend(_native_part(stored.data, name, block, lambda b: native_block_files(b)[0].items))
        else:
            items.extend(_recorded_items(stored, name, block))
    return tuple(items)


def item_transfers(reader: HistoryReader, block: StoredBlock) -> tuple[ItemTransfers, ...]:
    """The hbar transfers of a complete block's original items (:func:`original_items`), in order.

    A native block's are read from its transactions' results: the transfer list its records carry
    is the result's own (``formats.block_records``), so the records themselves (contract results,
    state reads, sidecars: most of what turning a block into records costs) are not built."""
    found: list[ItemTransfers] = []
    for stored, name in _stored_files(reader, block):
        if stored.kind == _BLOCK_KIND:
            found.extend(_native_part(stored.data, name, block, _native_transfers))
            continue
        found.extend(item_transfers_of(_recorded_items(stored, name, block)))
    return tuple(found)


def item_transfers_of(items: Iterable[RecordItem]) -> list[ItemTransfers]:
    """The hbar transfers of record items, from their records."""
    return [ItemTransfers(item.consensus_ns, _hbar_transfers(item), len(item.record_bytes)) for item in items]


def _stored_files(reader: HistoryReader, block: StoredBlock) -> list[tuple[StoredFile, str]]:
    files = reader.block_files(block.number)
    if files is None:
        raise StoreError(f"block {block.number}: its items row is missing although the block is complete")
    names = [part.name for part in block.parts] or [block.name]
    return list(zip(files, names, strict=True))


def _recorded_items(stored: StoredFile, name: str, block: StoredBlock) -> tuple[RecordItem, ...]:
    """The items of a stored item list or record file."""
    if stored.kind == "items":
        try:
            return tuple(decode_item_list(stored.data, name))
        except FormatError as e:
            raise StoreError(f"block {block.number}: the stored item list does not decode: {e}") from e
    try:
        return tuple(parse_record_file(stored.data, name.removesuffix(".gz")).items)
    except FormatError as e:
        raise StoreError(f"block {block.number}: the stored record file does not parse: {e}") from e


T = TypeVar("T")


def _native_part(data: bytes, name: str, block: StoredBlock, read: Callable[[BlockFile], Iterable[T]]) -> tuple[T, ...]:
    try:
        return tuple(read(parse_block(data, name)))
    except FormatError as e:
        raise StoreError(f"block {block.number}: the stored block does not parse: {e}") from e


def _native_transfers(block: BlockFile) -> Iterator[ItemTransfers]:
    for transaction in block_file_transactions(block):
        amounts = transaction.result.transfer_list.accountAmounts
        yield ItemTransfers(transaction.consensus_ns, _amounts(amounts), transaction.result.ByteSize())


def _hbar_transfers(item: RecordItem) -> list[tuple[str, int]] | None:
    try:
        record = hapi.TransactionRecord.FromString(item.record_bytes)
    except DecodeError:
        return None
    return _amounts(record.transferList.accountAmounts)


def _amounts(amounts: Iterable[Any]) -> list[tuple[str, int]]:
    """``(account, amount)`` of each ``AccountAmount`` that names an account and moves hbar."""
    transfers = []
    for amount in amounts:
        account = entity_text(amount.accountID)
        if account is not None and amount.amount:
            transfers.append((account, int(amount.amount)))
    return transfers


__all__ = ["ApplyReport", "BalanceApplier", "ItemTransfers", "item_transfers", "item_transfers_of", "original_items"]
