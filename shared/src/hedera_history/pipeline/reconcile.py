"""The reconciler: every period a run started to publish reaches a complete block or an alerted state.

Ingest marks a period ``unconfirmed`` before it can publish anything (``PeriodProgress.start_verifying``).
Messages can still be lost after that: the store function killed mid-batch, a push that failed
until the dead-letter policy parked it, a Pub/Sub emulator restarted with the batch in it, an
ingest run killed between publishing and marking. Nothing else retries such a period (it is not
pending, and a re-upload answers "already published"), so the sweep runs :func:`reconcile`: for
each unconfirmed period older than ``reconcile_after_seconds`` (oldest first, at most
``sweep_max_periods`` examined, at most ``reconcile_max_republish`` republished per run):

- its batch is complete in the Cardinal tracking table: the mark is removed;
- its batch is in conflict: ``period not completing`` (ERROR) and the mark is removed, since
  republishing the same bytes cannot help (``conflicting producers`` was alerted already);
- published but not complete: the period is verified again from the bucket and its batch
  republished (``period republished``; one that cannot be verified again is ``period not
  completing`` at once). This is idempotent by construction: the batch is
  content-addressed (the same bytes every time), the store writes identical cells and the
  completion cell last. The next republish waits twice as long each time (capped at an hour);
  from the third on, each one is also logged as ``period not completing`` (ERROR) for the alert;
- not published and pending: the pending retries own it, the mark is removed;
- not published and not pending (a run died while verifying): verified again as the sweep does.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from hedera_history.cardinal.tracking import COL_CONFLICT, COL_DONE
from hedera_history.errors import HistoryError, VerificationError, is_transient
from hedera_history.logs import event
from hedera_history.pipeline.ingest_context import IngestContext, Outcome
from hedera_history.pipeline.ingest_publish import publish_batch
from hedera_history.pipeline.ingest_record import ingest_period
from hedera_history.pipeline.period_state import PeriodProgress, Stage
from hedera_history.pipeline.state_cells import Published, Unconfirmed
from hedera_history.pipeline.tracking_rows import TrackingRows
from hedera_history.sources.period_files import SourcePeriod
from hedera_history.verify.period import check_period

logger = logging.getLogger(__name__)

MAX_BACKOFF_MICROS = 3600 * 1_000_000
ALERT_AFTER_REPUBLISHES = 2
"""Republishes after which a period that still does not complete is logged as an ERROR."""


@dataclass
class ReconcileReport:
    examined: int = 0
    confirmed: int = 0
    republished: int = 0
    retried: int = 0
    not_completing: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "examined": self.examined,
            "confirmed": self.confirmed,
            "republished": self.republished,
            "retried": self.retried,
            "not_completing": self.not_completing,
        }


def reconcile(ctx: IngestContext, now_micros: int, errors: list[str]) -> ReconcileReport:
    """One bounded pass over the unconfirmed periods (see the module docstring)."""
    report = ReconcileReport()
    tracker = TrackingRows(ctx.gateway, ctx.settings.first_block)
    deadline = int(ctx.settings.reconcile_after_seconds * 1_000_000)
    for mark in ctx.state.unconfirmed(ctx.settings.sweep_max_periods):
        report.examined += 1
        wait = min(deadline * 2**mark.republished, max(deadline, MAX_BACKOFF_MICROS))
        if now_micros - mark.since_micros < wait:
            continue
        if report.republished >= ctx.settings.reconcile_max_republish:
            break
        try:
            _reconcile_one(ctx, tracker, mark, report)
        except HistoryError as e:  # one period's trouble must not stop the others
            errors.append(f"reconcile {mark.period_key}: {e}")
    return report


def _reconcile_one(ctx: IngestContext, tracker: TrackingRows, mark: Unconfirmed, report: ReconcileReport) -> None:
    state = ctx.state.period(mark.consensus_ns)
    published = state.published if state is not None else None
    if published is None:
        _retry_unpublished(ctx, mark, report)
        return
    progress = _progress(ctx, mark, Stage.PUBLISHED)
    tracking = tracker.batch_row(published)
    if COL_DONE in tracking:
        progress.complete()
        report.confirmed += 1
        return
    if COL_CONFLICT in tracking:
        reason = "its batch is in conflict: " + tracking[COL_CONFLICT].decode(errors="replace")[:500]
        _not_completing(mark, published, reason, report)
        progress.complete()
        return
    if mark.republished >= ALERT_AFTER_REPUBLISHES:
        _not_completing(mark, published, f"republished {mark.republished} times, still incomplete", report)
    # Counted before trying: a republish that fails waits twice as long next time, like one that
    # did not help, instead of being tried again on every sweep.
    progress.republish(mark.republished + 1)
    try:
        messages = republish(ctx, mark, published)
    except HistoryError as e:
        if not is_transient(e):
            _not_completing(mark, published, f"cannot republish: {e}", report)
        raise
    report.republished += 1
    event(
        logger,
        "period republished",
        logging.WARNING,
        period=mark.period_key,
        block=published.block_number,
        republished=mark.republished + 1,
        messages=messages,
    )


def _retry_unpublished(ctx: IngestContext, mark: Unconfirmed, report: ReconcileReport) -> None:
    """A trace of a period not published: pending, the pending retries own it; else a run died
    while verifying it, and it is verified again as the sweep does."""
    pending = _progress(ctx, mark, Stage.PENDING)
    if ctx.state.is_pending(mark.consensus_ns):
        pending.untrack()
        return
    report.retried += 1
    result = ingest_period(ctx, mark.period_key, mark.location, sweeping=True)
    if result.outcome in (Outcome.PENDING, Outcome.QUARANTINED):
        pending.untrack()  # pending now: the pending retries own it


def _progress(ctx: IngestContext, mark: Unconfirmed, stage: Stage) -> PeriodProgress:
    return PeriodProgress(ctx.state, mark.consensus_ns, stage, period_key=mark.period_key, location=mark.location)


def republish(ctx: IngestContext, mark: Unconfirmed, published: Published) -> int:
    """Verify the published period again from the bucket and publish its batch once more."""
    book = ctx.books.consensus_book_at(mark.consensus_ns)
    files = SourcePeriod.for_book(ctx.source, mark.location, mark.period_key, book)
    report = check_period(
        files,
        book,
        ratio=ctx.ratio,
        block_number=published.block_number,
        sidecars=ctx.settings.sidecars_enabled,
        max_decompressed=ctx.settings.max_decompressed_bytes,
    )
    if report.block is None:
        assert report.error is not None
        raise report.error
    if report.block.hash != published.hash:
        raise VerificationError(
            f"verified again, period {mark.period_key} ends with {report.block.hash.hex()[:16]}…, "
            f"published as {published.hash.hex()[:16]}…",
            file=mark.period_key,
        )
    return publish_batch(ctx, report.block)


def _not_completing(mark: Unconfirmed, published: Published, reason: str, report: ReconcileReport) -> None:
    report.not_completing += 1
    event(
        logger,
        "period not completing",
        logging.ERROR,
        period=mark.period_key,
        block=published.block_number,
        reason=reason,
    )
