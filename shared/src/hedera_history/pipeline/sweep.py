"""The scheduled sweep: retry pending periods that no later upload has retried.

Oldest first, at most ``sweep_max_periods`` per run, each only once its last attempt is at least
``sweep_min_age_seconds`` old (so the sweep does not race uploads still arriving). Only the sweep
gives the first pre-V6 block of a deployment its number: the configured ``start_block``, or counted
from the block pin (docs/networks.md). Each sweep then sends at most ``sweep_max_dead_letters``
dead-lettered messages back to their topics (``transport.dead_letters``; a message already sent
back ``SWEEP_MAX_REPLAYS`` times stays held for the operator), runs the reconciler (``pipeline.reconcile``:
published periods whose block is still incomplete are republished), repairs the watermark and the
address-book keeper after a store crash (``pipeline.watermark_recovery``), reads the block after
the stored chain's end from the upload bucket by its name when an upload's event was lost
(``pipeline.missing_blocks``: at most ``MISSING_BLOCK_READS_PER_SWEEP`` reads) and runs the
derived-balance applier (at most ``balances_blocks_per_sweep`` blocks), catching up what the store
function's bounded runs left.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from hedera_history.config import Settings
from hedera_history.derived.lease import ExclusiveBalanceApplier
from hedera_history.errata.network_pass import NETWORK_ERRATA_BLOCKS_PER_RUN, network_errata_pass, run_network_errata
from hedera_history.errors import HistoryError
from hedera_history.logs import event
from hedera_history.pipeline.address_books import first_block_of_stream
from hedera_history.pipeline.ingest_context import IngestContext
from hedera_history.pipeline.ingest_errata import ingest_errata
from hedera_history.pipeline.ingest_late import recheck_signatures
from hedera_history.pipeline.ingest_record import ingest_period
from hedera_history.pipeline.missing_blocks import MissingBlocks, fill_missing_blocks
from hedera_history.pipeline.period_state import PeriodProgress, Stage
from hedera_history.pipeline.reconcile import ReconcileReport, reconcile
from hedera_history.pipeline.watermark_recovery import WatermarkRecovery, recover_watermark
from hedera_history.transport.dead_letters import SWEEP_MAX_REPLAYS, ReplayReport, replay_dead_letters

logger = logging.getLogger(__name__)


@dataclass
class SweepReport:
    examined: int = 0
    skipped_recent: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    balances_applied: int = 0
    balances_busy: bool = False
    network_errata_applied: int = 0
    """Another run held the balance lease."""
    dead_letters_replayed: int = 0
    """Dead letters sent back to their topics."""
    dead_letters_kept: int = 0
    """Dead letters left on their holds: sent back ``SWEEP_MAX_REPLAYS`` times already."""
    reconciled: ReconcileReport = field(default_factory=ReconcileReport)
    """Published periods whose block was confirmed complete, republished, or found stuck."""
    watermark: WatermarkRecovery | None = None
    """The watermark and keeper after their repair (None: the repair failed, see ``errors``)."""
    missing_blocks: MissingBlocks = field(default_factory=MissingBlocks)
    """Blocks read from the upload bucket after the chain's end (their upload event lost), and filled."""

    def as_dict(self) -> dict[str, object]:
        return {
            "examined": self.examined,
            "skipped_recent": self.skipped_recent,
            "outcomes": dict(self.outcomes),
            "errors": self.errors[:20],
            "balances_applied": self.balances_applied,
            "balances_busy": self.balances_busy,
            "network_errata_applied": self.network_errata_applied,
            "dead_letters_replayed": self.dead_letters_replayed,
            "dead_letters_kept": self.dead_letters_kept,
            "reconciled": self.reconciled.as_dict(),
            "watermark": self.watermark.as_dict() if self.watermark is not None else None,
            "missing_blocks": self.missing_blocks.as_dict(),
        }


def sweep(ctx: IngestContext, *, now_micros: int | None = None) -> SweepReport:
    now = time.time_ns() // 1000 if now_micros is None else now_micros
    min_age = ctx.settings.sweep_min_age_seconds * 1_000_000
    report = SweepReport()
    for pending in ctx.state.pending(ctx.settings.sweep_max_periods):
        report.examined += 1
        state = ctx.state.period(pending.consensus_ns)
        if state is None or state.location is None:
            PeriodProgress(ctx.state, pending.consensus_ns, Stage.PENDING, period_key=pending.period_key).forget()
            continue
        if state.last_attempt_micros is not None and now - state.last_attempt_micros < min_age:
            report.skipped_recent += 1
            continue
        try:
            result = ingest_period(ctx, pending.period_key, state.location, sweeping=True)
        except HistoryError as e:  # one period's trouble must not stop the others
            report.errors.append(f"{pending.period_key}: {e}")
            report.outcomes["error"] += 1
            continue
        report.outcomes[result.outcome.value] += 1
    for consensus_ns, period_key, block_number in ctx.state.rechecks(ctx.settings.sweep_max_periods):
        try:
            if recheck_signatures(ctx, consensus_ns, period_key, block_number):
                report.outcomes["signatures rechecked"] += 1
        except HistoryError as e:
            report.errors.append(f"{period_key}: {e}")
    for consensus_ns, errata_path in ctx.state.errata_pending(ctx.settings.sweep_max_periods):
        try:
            report.outcomes["errata " + ingest_errata(ctx, errata_path, pending=True).outcome.value] += 1
        except HistoryError as e:
            report.errors.append(f"errata {errata_path} ({consensus_ns}): {e}")
    replay_held_dead_letters(ctx.settings, report)
    report.reconciled = reconcile(ctx, now, report.errors)
    try:
        report.watermark = recover_watermark(ctx)
    except HistoryError as e:
        report.errors.append(f"watermark: {e}")
    report.missing_blocks = fill_missing_blocks(ctx, report.errors)
    errata_pass = network_errata_pass(ctx.gateway, ctx.settings)
    if errata_pass is not None:
        network = run_network_errata(errata_pass, NETWORK_ERRATA_BLOCKS_PER_RUN)
        report.network_errata_applied = len(network.applied) if network is not None else 0
    if ctx.settings.balances_enabled:
        _apply_balances(ctx, report)
    event(logger, "sweep finished", logging.INFO, **report.as_dict())
    return report


ReplayDeadLetters = Callable[..., ReplayReport]


def replay_held_dead_letters(
    settings: Settings, report: SweepReport, replay: ReplayDeadLetters = replay_dead_letters
) -> None:
    """Send at most ``sweep_max_dead_letters`` held dead letters back to their topics, as
    ``hedera-history deadletters replay`` does, but none that went round ``SWEEP_MAX_REPLAYS`` times."""
    if settings.sweep_max_dead_letters <= 0:
        return
    try:
        replayed = replay(
            settings.project,
            prefix=settings.pubsub_topic_prefix,
            emulator_host=settings.pubsub_emulator_host,
            max_messages=settings.sweep_max_dead_letters,
            max_replays=SWEEP_MAX_REPLAYS,
            wait=False,
        )
    except HistoryError as e:  # the holds wait for the next run; the rest of the sweep goes on
        report.errors.append(f"dead letters: {e}")
        return
    report.dead_letters_replayed = replayed.total
    report.dead_letters_kept = replayed.total_kept
    if replayed.total or replayed.total_kept:
        event(
            logger,
            "sweep replayed dead letters",
            logging.WARNING,
            count=replayed.total,
            kept=replayed.total_kept,
            max_replays=SWEEP_MAX_REPLAYS,
        )


def _apply_balances(ctx: IngestContext, report: SweepReport) -> None:
    try:
        applier = ExclusiveBalanceApplier(
            ctx.gateway, ctx.settings, first_block=lambda: first_block_of_stream(ctx.gateway, ctx.settings.first_block)
        )
        applied = applier.run(ctx.settings.balances_blocks_per_sweep)
    except HistoryError as e:
        report.errors.append(f"balances: {e}")
        return
    if applied is None:
        report.balances_busy = True
    else:
        report.balances_applied = len(applied.applied)
