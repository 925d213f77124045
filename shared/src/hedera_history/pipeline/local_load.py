"""Verify the periods of a stream on disk and write the verified blocks (``hedera-history load``).

No Pub/Sub and no claims: the periods are verified in order in this process, each verified block
is written as soon as it is, and the network's known errata are applied to the blocks written. A
block whose link to its predecessor is broken is never written: it would lie about its place in
the history. Writing again is safe: it rewrites identical cells.

The store is left as the stack leaves it after ``stack upload``: what the history starts from (the
bootstrap book, the genesis balances where the stream has them: ``pipeline.history_start``), the
books and stakes the stream puts in force (as a backfill records them), and derived balances
applied over the blocks written, so every route answers after either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol

from hedera_history.block import VerifiedBlock
from hedera_history.books.address_book import AddressBook
from hedera_history.books.updates import AddressBookTracker
from hedera_history.collector import task_collector
from hedera_history.config import Settings
from hedera_history.derived.applier import BalanceApplier
from hedera_history.derived.snapshot import BalanceSnapshot
from hedera_history.errata.network_pass import network_errata_pass
from hedera_history.errors import BrokenChainError
from hedera_history.pipeline.history_start import HistoryStart, record_history_start
from hedera_history.pipeline.load_conflicts import ConflictGuard
from hedera_history.sources.local_periods import LocalPeriod
from hedera_history.store.book_rows import write_changes
from hedera_history.store.gateway import BigtableGateway
from hedera_history.store.writer import BlockWriter, BlockWriteResult
from hedera_history.verify.block_pin import Numbering, with_pin_checks
from hedera_history.verify.period import PeriodFiles
from hedera_history.verify.stream import PeriodResult, verify_stream


@dataclass
class LoadReport:
    verified: int = 0
    written: int = 0
    not_verified: list[str] = field(default_factory=list)
    chain_problems: list[str] = field(default_factory=list)
    not_written: list[str] = field(default_factory=list)
    errata_applied: int | None = None
    """Network errata applied to the blocks written; None: the network has none, or nothing was written."""
    history_start: HistoryStart | None = None
    """What was recorded for the history's start; None when nothing was written."""
    balances_applied: int = 0
    """Blocks whose hbar transfers derived balances took in."""

    @property
    def ok(self) -> bool:
        return not (self.not_verified or self.chain_problems or self.not_written)


class LoadProgress(Protocol):
    def period_done(self, report: LoadReport) -> None: ...

    def block_written(self, report: LoadReport) -> None: ...


class _Quiet:
    def period_done(self, report: LoadReport) -> None:
        pass

    def block_written(self, report: LoadReport) -> None:
        pass


def verify_numbered(
    periods: Iterable[PeriodFiles],
    book: AddressBook,
    numbering: Numbering,
    *,
    ratio: Fraction,
    settings: Settings,
    tracker: AddressBookTracker | None = None,
) -> Iterator[PeriodResult]:
    """Each period verified (numbered by ``numbering``, which starts at ``book``; with ``tracker``,
    whose books and stakes it advances) with its pin checked."""
    results = verify_stream(
        periods,
        book,
        ratio=ratio,
        start_block=numbering.start_block,
        sidecars=settings.sidecars_enabled,
        max_decompressed=settings.max_decompressed_bytes,
        tracker=tracker,
    )
    return with_pin_checks(results, numbering)


def load_periods(
    periods: Sequence[LocalPeriod],
    book: AddressBook,
    numbering: Numbering,
    *,
    ratio: Fraction,
    settings: Settings,
    gateway: BigtableGateway,
    progress: LoadProgress | None = None,
    start: StartFiles | None = None,
) -> LoadReport:
    """Verify ``periods`` (from the one ``book`` is in force at) and write every verified block;
    with ``start``, record the history's start from it and apply derived balances.

    ConflictingBlockError (after the blocks before it are written and accounted for) when a block's
    number is stored with another block: nothing of that block is written, nor of any after it."""
    listener = progress or _Quiet()
    report = LoadReport()
    tracker = AddressBookTracker(book)
    guard = ConflictGuard(gateway, settings)
    results = verify_numbered(periods, book, numbering, ratio=ratio, settings=settings, tracker=tracker)
    blocks = _verified_blocks(results, report, lambda: listener.period_done(report), gateway, tracker, guard)
    written_numbers = []
    with task_collector():  # row building's many small objects, as in a backfill task
        for written in BlockWriter(gateway, settings).iter_write(blocks):
            _count(written, report)
            listener.block_written(report)
            written_numbers.append(written.block_number)
    errata_pass = network_errata_pass(gateway, settings)
    if errata_pass is not None and written_numbers:
        report.errata_applied = len(errata_pass.apply_blocks(min(written_numbers), max(written_numbers)).applied)
    if start is not None and written_numbers:
        report.history_start = record_history_start(
            gateway,
            settings,
            book_file=start.book_file,
            first_ns=periods[0].consensus_ns,
            first_block=min(written_numbers),
            snapshot=start.snapshot,
        )
        report.balances_applied = len(BalanceApplier(gateway, settings).run().applied)
    guard.raise_refused()
    return report


@dataclass(frozen=True, slots=True)
class StartFiles:
    """What a stream's directory holds beside its periods: its bootstrap book file (either form)
    and its genesis balance snapshot (None: it has none)."""

    book_file: bytes
    snapshot: BalanceSnapshot | None


def _verified_blocks(
    results: Iterable[PeriodResult],
    report: LoadReport,
    on_period: Callable[[], None],
    gateway: BigtableGateway,
    tracker: AddressBookTracker,
    guard: ConflictGuard,
) -> Iterator[VerifiedBlock]:
    for result in results:
        block = result.report.block
        if isinstance(result.error, BrokenChainError):
            report.chain_problems.append(f"block {result.block_number} not written: {result.error}")
        elif block is None:
            report.not_verified.append(f"{result.period_key}: {result.error}")
        elif not guard.admit(block):
            return  # before its book changes are written too
        else:
            report.verified += 1
            if result.error is not None:
                report.chain_problems.append(f"block {block.block_number}: {result.error}")
            write_changes(gateway, result, tracker)
        on_period()
        if block is not None:
            yield block


def _count(result: BlockWriteResult, report: LoadReport) -> None:
    if result.complete:
        report.written += 1
    else:
        report.not_written.append(f"block {result.block_number}: {result.error}")
