"""Verifying one period for ingest: against which book, with which number, and whether the state
in force it used is certain (docs/pipeline.md, "Verified only on a certain state")."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import NoReturn

from hedera_history.books.address_book import AddressBook
from hedera_history.errors import BlockPinMismatchError, HistoryError, WatermarkRootError
from hedera_history.logs import event
from hedera_history.networks.block_numbers import BlockPin, pin_problem
from hedera_history.pipeline.ingest_context import IngestContext, logger
from hedera_history.pipeline.period_state import PeriodProgress
from hedera_history.pipeline.state_cells import PeriodState
from hedera_history.pipeline.tracking_rows import TrackingRows
from hedera_history.sources.period_files import SourcePeriod, StreamLocation
from hedera_history.sources.period_listing import ListedPeriod
from hedera_history.sources.pinned_numbers import StreamAccess, range_numbering
from hedera_history.verify.period import PeriodReport, check_period


@dataclass
class PeriodCheck:
    """The period's files read for ``book``, and the latest report on them."""

    files: SourcePeriod
    book: AddressBook
    report: PeriodReport
    candidate: int | None = None
    """Before V6: the number it was verified with (None: not known yet)."""
    predecessor: PeriodState | None = None
    """Before V6: the newest published period before it."""
    first_of_chain: bool = False
    """Before V6: the deployment's first block (numbered by the sweep)."""

    @classmethod
    def run(cls, ctx: IngestContext, progress: PeriodProgress, book: AddressBook) -> PeriodCheck:
        files = SourcePeriod.for_book(ctx.source, _location(progress), progress.period_key, book)
        return cls(files, book, _verify(ctx, files, book, None))

    def again(self, ctx: IngestContext, block_number: int | None) -> None:
        """Verify again with ``block_number`` (the signatures read are cached, the record is read again)."""
        self.report = _verify(ctx, self.files, self.book, block_number)

    def with_book(self, ctx: IngestContext, progress: PeriodProgress, book: AddressBook) -> None:
        """Verify again on ``book`` (another state in force), with the number found so far."""
        number = self.block_number()
        record = self.report.record
        self.book = book
        self.files = SourcePeriod.for_book(ctx.source, _location(progress), progress.period_key, book)
        self.again(ctx, None if record is not None and record.block_number is not None else number)

    def block_number(self) -> int | None:
        """The block's number: the record's (V6), else the one it was verified with (before V6)."""
        record = self.report.record
        if record is None:
            return None
        if record.block_number is not None:
            return record.block_number
        return self.report.block.block_number if self.report.block else self.candidate


def number_before_v6(ctx: IngestContext, progress: PeriodProgress, check: PeriodCheck, *, sweeping: bool) -> None:
    """A file before V6 carries no number: its published predecessor's + 1, or for the deployment's
    first block the start block or the pin's count. A number the watermark could never reach, or
    that disagrees with the pin, leaves the period pending and raises (the numbering is at fault,
    not the files: nothing is quarantined)."""
    record = check.report.record
    if record is None or record.block_number is not None:
        return
    check.predecessor, check.candidate, check.first_of_chain = _pre_v6_number(ctx, progress, check.book, sweeping)
    if check.first_of_chain and check.candidate is not None and check.candidate > ctx.settings.first_block:
        # Nothing would ever connect to the watermark's root: say so instead of stalling.
        root = WatermarkRootError(
            f"the deployment's first block is numbered {check.candidate} (start block or block pin) but "
            f"HEDERA_HISTORY_FIRST_BLOCK is {ctx.settings.first_block}: the contiguous watermark "
            f"could never start; set HEDERA_HISTORY_FIRST_BLOCK={check.candidate}",
            file=progress.period_key,
        )
        event(logger, "first block mismatch", logging.ERROR, period=progress.period_key, reason=str(root))
        _defer_and_raise(progress, root)
    if check.candidate is not None:
        check.again(ctx, check.candidate)
        problem = _pin_problem(ctx, check.report)
        if problem is not None:
            event(logger, "block pin mismatch", logging.ERROR, period=progress.period_key, reason=str(problem))
            _defer_and_raise(progress, problem)


def on_certain_state(ctx: IngestContext, progress: PeriodProgress, check: PeriodCheck) -> bool:
    """Whether the check stands on a certain book and stakes, verifying again when the state in
    force differs from the one it used."""
    number = check.block_number()
    if number is None:
        return False
    if ctx.books.applied_through() >= number - 1:
        _verify_on_state_in_force(ctx, progress, check)
        return True
    # The keeper lags: when every earlier block is recorded, their book and stake changes give
    # the state in force exactly; verify again if it keys or weighs the nodes otherwise.
    projected = ctx.books.projected_consensus_book(number, progress.consensus_ns)
    if projected is not None:
        if projected != check.book:
            check.with_book(ctx, progress, projected)
        return True
    if _begins_the_stream(ctx, progress, check):
        _verify_on_state_in_force(ctx, progress, check)
        return True
    return False


def _verify_on_state_in_force(ctx: IngestContext, progress: PeriodProgress, check: PeriodCheck) -> None:
    # The book was read before the claim: the keeper may have applied a change since. Read now,
    # after the certainty check, it is the state in force; verify again if it differs (else a
    # rotated-out key could count, and a rotated-in one be quarantined as bad).
    current = ctx.books.consensus_book_at(progress.consensus_ns)
    if current != check.book:
        check.with_book(ctx, progress, current)


def _begins_the_stream(ctx: IngestContext, progress: PeriodProgress, check: PeriodCheck) -> bool:
    """Whether the period is the recorded first of a stream followed from its middle: its verified
    block then begins the history (the watermark's root, the keeper at the block before it), so the
    bootstrap book is the state in force for it, whatever blocks came before it on the network."""
    block = check.report.block
    if block is None:
        return False
    start = ctx.books.stream_start()
    if start is None or start.period_key != progress.period_key:
        return False
    TrackingRows(ctx.gateway, ctx.settings.first_block).declare_root(block)  # before the keeper: see begin_at
    return ctx.books.begin_at(block)


def _verify(ctx: IngestContext, files: SourcePeriod, book: AddressBook, block_number: int | None) -> PeriodReport:
    return check_period(
        files,
        book,
        ratio=ctx.ratio,
        block_number=block_number,
        sidecars=ctx.settings.sidecars_enabled,
        max_decompressed=ctx.settings.max_decompressed_bytes,
    )


def _defer_and_raise(progress: PeriodProgress, error: HistoryError) -> NoReturn:
    # The caller logs the event itself, so its name stays greppable (and the alert catalogue's
    # test finds it in the source).
    progress.defer(str(error))
    raise error


def _pre_v6_number(
    ctx: IngestContext, progress: PeriodProgress, book: AddressBook, sweeping: bool
) -> tuple[PeriodState | None, int | None, bool]:
    """(the published predecessor, the block number to verify with, whether it starts the chain)."""
    predecessor = ctx.state.published_before(progress.consensus_ns)
    if predecessor is not None and predecessor.published is not None:
        return predecessor, predecessor.published.block_number + 1, False
    if sweeping and not ctx.state.any_period_before(progress.consensus_ns):
        # Only the sweep numbers the first pre-V6 block, so a period that merely arrived early
        # does not take the number of the one before it. With a block pin, one listing of the
        # node folders between this period and the pin counts its number.
        location = _location(progress)
        first = range_numbering(
            [ListedPeriod(progress.period_key, progress.consensus_ns, 0)],
            pin=BlockPin.parse(ctx.settings.block_pin),
            start_block=ctx.settings.start_block,
            start_ns=progress.consensus_ns,
            end_ns=progress.consensus_ns + 1,
            stream=StreamAccess(
                ctx.source, location, location.identities(book), book, ctx.settings.max_decompressed_bytes
            ),
        ).start_block
        return predecessor, first, True
    return predecessor, None, False


def _pin_problem(ctx: IngestContext, report: PeriodReport) -> BlockPinMismatchError | None:
    """How the verified block and the block pin disagree, if they do (the file ending at the pin
    numbered otherwise, or a file straddling the pin)."""
    pin = BlockPin.parse(ctx.settings.block_pin)
    block = report.block
    if pin is None or block is None:
        return None
    return pin_problem(
        pin,
        name=block.record.name,
        consensus_start=block.record.consensus_start,
        consensus_end=block.record.consensus_end,
        number=block.block_number,
        previous_end=None,
    )


def _location(progress: PeriodProgress) -> StreamLocation:
    assert progress.location is not None, "a period is verified where its files are"
    return progress.location
