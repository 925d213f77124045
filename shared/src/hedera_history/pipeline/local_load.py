"""Verify the periods of a stream on disk and write the verified blocks (``hedera-history load``).

No Pub/Sub and no claims: the periods are verified in order in this process, each verified block
is written as soon as it is, and the network's known errata are applied to the blocks written. A
block whose link to its predecessor is broken is never written: it would lie about its place in
the history. Writing again is safe: it rewrites identical cells.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol

from hedera_history.block import VerifiedBlock
from hedera_history.books.address_book import AddressBook
from hedera_history.collector import task_collector
from hedera_history.config import Settings
from hedera_history.errata.network_pass import network_errata_pass
from hedera_history.errors import BrokenChainError
from hedera_history.sources.local_periods import LocalPeriod
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
    periods: Iterable[PeriodFiles], book: AddressBook, numbering: Numbering, *, ratio: Fraction, settings: Settings
) -> Iterator[PeriodResult]:
    """Each period verified (numbered by ``numbering``, which starts at ``book``) with its pin checked."""
    results = verify_stream(
        periods,
        book,
        ratio=ratio,
        start_block=numbering.start_block,
        sidecars=settings.sidecars_enabled,
        max_decompressed=settings.max_decompressed_bytes,
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
) -> LoadReport:
    """Verify ``periods`` (from the one ``book`` is in force at) and write every verified block."""
    listener = progress or _Quiet()
    report = LoadReport()
    results = verify_numbered(periods, book, numbering, ratio=ratio, settings=settings)
    blocks = _verified_blocks(results, report, lambda: listener.period_done(report))
    written_numbers = []
    with task_collector():  # row building's many small objects, as in a backfill task
        for written in BlockWriter(gateway, settings).iter_write(blocks):
            _count(written, report)
            listener.block_written(report)
            written_numbers.append(written.block_number)
    errata_pass = network_errata_pass(gateway, settings)
    if errata_pass is not None and written_numbers:
        report.errata_applied = len(errata_pass.apply_blocks(min(written_numbers), max(written_numbers)).applied)
    return report


def _verified_blocks(
    results: Iterable[PeriodResult], report: LoadReport, on_period: Callable[[], None]
) -> Iterator[VerifiedBlock]:
    for result in results:
        block = result.report.block
        if isinstance(result.error, BrokenChainError):
            report.chain_problems.append(f"block {result.block_number} not written: {result.error}")
        elif block is None:
            report.not_verified.append(f"{result.period_key}: {result.error}")
        else:
            report.verified += 1
            if result.error is not None:
                report.chain_problems.append(f"block {block.block_number}: {result.error}")
        on_period()
        if block is not None:
            yield block


def _count(result: BlockWriteResult, report: LoadReport) -> None:
    if result.complete:
        report.written += 1
    else:
        report.not_written.append(f"block {result.block_number}: {result.error}")
