"""The record handler: a period's record, sidecar or signature upload (or the sweep's retry of a
pending period) taken through the period's stages (``pipeline.period_state``).

One run at a time verifies a period (the claim); the others wait for its result and then do only
their own file's part. Three orderings here fixed real races and must stay as they are: the
period's row is read again once the claim is held (another run may have published it and let its
claim go in between); the book in force is read again after the certainty check (the keeper may
have applied a rotation since the first read); a late file of a published period is judged on
its own (``pipeline.ingest_late``).
"""

from __future__ import annotations

import logging
import time

from hedera_history.block import VerifiedBlock
from hedera_history.books.address_book import AddressBook
from hedera_history.errors import (
    BlockNumberNotKnownError,
    ConsensusForkError,
    NoConsensusError,
    ObjectNotFoundError,
    is_transient,
)
from hedera_history.formats.names import StreamFileKind, parse_timestamp
from hedera_history.formats.stream_paths import ObjectPath
from hedera_history.logs import event
from hedera_history.pipeline.ingest_context import IngestContext, IngestResult, Outcome, lag_seconds, logger
from hedera_history.pipeline.ingest_late import READ_LATE, after_publication
from hedera_history.pipeline.ingest_links import broken_link_before, links_to, pre_v6_break
from hedera_history.pipeline.ingest_publish import publish_verified
from hedera_history.pipeline.ingest_quarantine import quarantine_bad_trigger, quarantine_checked_copy
from hedera_history.pipeline.ingest_verify import PeriodCheck, number_before_v6, on_certain_state
from hedera_history.pipeline.period_state import (
    CLAIM_POLL_MAX_SECONDS,
    CLAIM_POLL_SECONDS,
    CLAIM_TTL_SECONDS,
    PeriodProgress,
    Stage,
    poll_pause,
)
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store.keys import hex16

HELD_FOR_STATE = "held until the address book and node stakes in force are certain"
"""How the pending reason of a period verified on a state not certain yet begins."""
RELEASE_LIMIT = 8
"""Held periods one publication verifies again at once (the sweep takes the rest)."""
WAITING_FOR_PREVIOUS = "waiting for the previous block (files before V6 carry no block number)"
LATE_BOOK_SECONDS = CLAIM_POLL_MAX_SECONDS
"""How old a read of the book in force may be for checking a late file (the longest pause of a
waiting run, so that the runs a publication wakes share one read)."""


def ingest_period(
    ctx: IngestContext,
    period_key: str,
    location: StreamLocation,
    *,
    trigger: ObjectPath | None = None,
    sweeping: bool = False,
) -> IngestResult:
    result = _ingest_period(ctx, period_key, location, trigger=trigger, sweeping=sweeping)
    if result.outcome is Outcome.PENDING and (result.reason or "").startswith(HELD_FOR_STATE):
        # The run that published what this period waits for may have looked for held periods
        # just before this one was marked held: look once more, now that the mark is written.
        result = _ingest_period(ctx, period_key, location, trigger=None, sweeping=sweeping)
    if result.outcome is Outcome.PUBLISHED:
        _release_held(ctx, parse_timestamp(period_key), sweeping=sweeping)
    return result


def _release_held(ctx: IngestContext, after_ns: int, *, sweeping: bool) -> None:
    """Verify again, right away, the periods after a publication that were held for the state in
    force (a held period otherwise waits for its next upload or the sweep): each may now be
    certain. At most :data:`RELEASE_LIMIT`, in time order, stopping at the first still held."""
    for _ in range(RELEASE_LIMIT):
        following = next(iter(ctx.state.pending(1, after=after_ns)), None)
        if following is None:
            return
        state = ctx.state.period(following.consensus_ns)
        if state is None or state.location is None or not state.reason.startswith(HELD_FOR_STATE):
            return
        result = _ingest_period(ctx, following.period_key, state.location, trigger=None, sweeping=sweeping)
        if result.outcome is not Outcome.PUBLISHED:
            return
        after_ns = following.consensus_ns


def _ingest_period(
    ctx: IngestContext,
    period_key: str,
    location: StreamLocation,
    *,
    trigger: ObjectPath | None,
    sweeping: bool,
) -> IngestResult:
    progress = PeriodProgress.of(ctx.state, period_key, location, Stage.NEW)
    give_up = time.monotonic() + 2 * CLAIM_TTL_SECONDS
    pause = CLAIM_POLL_SECONDS
    while True:
        # One read a look (the period's row holds its claim cell too), shared by the instance's
        # threads waiting for the same period.
        if progress.refresh(shared=True).published is not None:
            return _already_published(ctx, progress, trigger)
        if progress.claim_as_refreshed():
            try:
                # Read again under the claim: the run that held it may have published the period
                # and released the claim between the read above and this claim.
                if progress.refresh().published is not None:
                    return _already_published(ctx, progress, trigger)
                book = ctx.books.consensus_book_at(progress.consensus_ns)
                return _verify_and_publish(ctx, progress, book, trigger=trigger, sweeping=sweeping)
            finally:
                progress.release()
        if time.monotonic() > give_up:
            reason = "another run kept the period's verification claim"
            progress.defer(reason)
            return IngestResult(Outcome.PENDING, period_key, reason=reason)
        pause = poll_pause(pause)  # another run is verifying the period: wait for its result


def _already_published(ctx: IngestContext, progress: PeriodProgress, trigger: ObjectPath | None) -> IngestResult:
    published = progress.settle()
    if trigger is None or trigger.file.kind not in READ_LATE:  # the book in force is not even looked up
        return IngestResult(Outcome.ALREADY_PUBLISHED, progress.period_key, published.block_number)
    return after_publication(ctx, trigger, published, _late_file_book(ctx, progress.consensus_ns))


def _late_file_book(ctx: IngestContext, consensus_ns: int) -> AddressBook:
    """The consensus book in force for a late file of a published period: one another thread of
    this instance read within :data:`LATE_BOOK_SECONDS` will do (the runs waiting for a period wake
    together once it is published). A late signature that fails on it is judged again on the book
    read anew (``after_publication``)."""
    return ctx.recent_books.read_through(
        hex16(consensus_ns), LATE_BOOK_SECONDS, lambda: ctx.books.consensus_book_at(consensus_ns)
    )


def _verify_and_publish(
    ctx: IngestContext, progress: PeriodProgress, book: AddressBook, *, trigger: ObjectPath | None, sweeping: bool
) -> IngestResult:
    # Before anything can be published: a run that dies from here on leaves the reconciler a trace.
    progress.start_verifying()
    check = PeriodCheck.run(ctx, progress, book)
    number_before_v6(ctx, progress, check, sweeping=sweeping)
    certain = on_certain_state(ctx, progress, check)
    quarantined = quarantine_bad_trigger(ctx, trigger, check.report, check.files, check.book) if certain else ()
    if check.report.block is None:
        return _not_verified(ctx, progress, check, quarantined)
    block = check.report.block
    unlinked = _why_unlinked(ctx, progress, check, block, sweeping=sweeping)
    if unlinked is not None:
        progress.defer(unlinked)
        return IngestResult(Outcome.PENDING, progress.period_key, reason=unlinked, quarantined=quarantined)
    if not certain:
        # Verified on a state an earlier block not published yet may change (a key rotated, the
        # day's stakes): never published so; verified again once that block is (docs/pipeline.md).
        return _hold(ctx, progress, block.block_number, quarantined)
    published = publish_verified(ctx, progress, block)
    if trigger is not None and trigger.file.kind is StreamFileKind.RECORD:
        late = after_publication(ctx, trigger, published, check.book)  # is the triggering copy the signed one?
        quarantined += late.quarantined
    return IngestResult(Outcome.PUBLISHED, progress.period_key, block.block_number, quarantined=quarantined)


def _why_unlinked(
    ctx: IngestContext, progress: PeriodProgress, check: PeriodCheck, block: VerifiedBlock, *, sweeping: bool
) -> str | None:
    """Why a verified block is not published yet: before V6, it does not name the newest published
    block; from V6, its link to the block before it is broken (recorded, alerted)."""
    location, period_key = progress.location, progress.period_key
    assert location is not None
    if block.record.block_number is None and not check.first_of_chain and not links_to(check.predecessor, block):
        broken = pre_v6_break(ctx, location, check.predecessor, block, period_key) if sweeping else None
        return broken or WAITING_FOR_PREVIOUS
    return broken_link_before(ctx, block, location, period_key)


def _not_verified(
    ctx: IngestContext, progress: PeriodProgress, check: PeriodCheck, quarantined: tuple[str, ...]
) -> IngestResult:
    error = check.report.error
    assert error is not None
    if isinstance(error, BlockNumberNotKnownError):
        # The number comes from the block before, not stored yet: the period waits for it.
        error = NoConsensusError(WAITING_FOR_PREVIOUS)
    reason = str(error)
    progress.defer(reason)
    if is_transient(error) and not isinstance(error, NoConsensusError):
        raise error  # the store or bucket did not answer: fail the call; the sweep retries too
    if not isinstance(error, NoConsensusError | ObjectNotFoundError):
        assert progress.location is not None
        quarantined += quarantine_checked_copy(ctx, check.report, progress.location, error)
    _log_pending(progress, reason, type(error).__name__)
    if isinstance(error, ConsensusForkError):
        # Two signed histories for one period: held (pending) for an operator, never chosen. Alerted
        # whatever the state: even keys rotated out signing another hash with 1/3 of the stake is
        # an incident (and the period is judged again with every retry).
        event(logger, "consensus fork", logging.ERROR, period=progress.period_key, reason=str(error))
    outcome = Outcome.QUARANTINED if quarantined else Outcome.PENDING
    return IngestResult(outcome, progress.period_key, reason=reason, quarantined=quarantined)


def _hold(ctx: IngestContext, progress: PeriodProgress, number: int, quarantined: tuple[str, ...]) -> IngestResult:
    """Keep a period verified on a state that is not certain pending (``HELD_FOR_STATE``)."""
    first = _unpublished_stream_start(ctx)
    if first is not None:
        reason = (
            f"{HELD_FOR_STATE}: block {number} waits for the first period followed, {first}, "
            "to be published (the history begins there)"
        )
    else:
        applied = ctx.books.applied_through()
        reason = (
            f"{HELD_FOR_STATE}: block {number} needs the changes of blocks {applied + 1}-{number - 1}, "
            "not all published yet"
        )
    progress.defer(reason)
    _log_pending(progress, reason, "held")
    return IngestResult(Outcome.PENDING, progress.period_key, number, reason=reason, quarantined=quarantined)


def _unpublished_stream_start(ctx: IngestContext) -> str | None:
    """The first period of a stream followed from its middle while it is not published yet."""
    start = ctx.books.stream_start()
    if start is None or start.block is not None:
        return None
    state = ctx.state.period(parse_timestamp(start.period_key))
    return start.period_key if state is None or state.published is None else None


def _log_pending(progress: PeriodProgress, reason: str, error_type: str) -> None:
    event(
        logger,
        "period pending",
        logging.INFO,
        period=progress.period_key,
        reason=reason,
        error_type=error_type,
        lag_seconds=lag_seconds(progress.consensus_ns),
    )
