"""The errata handler: an errata file or a node's signature for one, taken through the errata
time's stages (``pipeline.period_state.ErrataProgress``); ``errata.ingest`` judges and applies."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from hedera_history.errata.errata_paths import parse_errata_path
from hedera_history.errors import ErrataError
from hedera_history.pipeline.ingest_context import IngestContext, IngestResult, Outcome, read_object
from hedera_history.pipeline.ingest_quarantine import quarantine
from hedera_history.pipeline.period_state import CLAIM_TTL_SECONDS, ErrataProgress, Stage, wait_for_claim

if TYPE_CHECKING:
    from hedera_history.errata.ingest import ErrataOutcome


def ingest_errata(ctx: IngestContext, name: str, *, pending: bool = False) -> IngestResult:
    """Judge both authorities and apply when they hold; too little stake so far stays pending for
    later uploads and the sweep, a refused errata is quarantined with its reasons and changes
    nothing. ``pending``: the sweep's retry of an errata time it found pending."""
    parsed = parse_errata_path(name)
    # Nodes ratify with the weights that verify the stream at that time (NodeStake, as consensus).
    book = ctx.books.consensus_book_at(parsed.consensus_ns)
    stage = Stage.PENDING if pending else Stage.NEW
    progress = ErrataProgress(ctx.state, parsed.consensus_ns, stage, errata_path=parsed.errata_file)
    # Two errata for one time must not be applied at once (each rewrites the same cells).
    if not wait_for_claim(progress, time.monotonic() + 2 * CLAIM_TTL_SECONDS):
        reason = "another run kept the claim on this errata time"
        progress.defer(reason)
        return IngestResult(Outcome.PENDING, parsed.time_text, reason=reason)
    # Errata are rare: the apply/plan/log chain is loaded by the first one, not by every cold start.
    from hedera_history.errata.ingest import process_errata_object  # noqa: PLC0415

    try:
        outcome = process_errata_object(ctx.source, name, ctx.settings, ctx.gateway, book)
        return _record(ctx, progress, outcome, parsed.time_text)
    finally:
        progress.release()


def _record(ctx: IngestContext, progress: ErrataProgress, outcome: ErrataOutcome, key: str) -> IngestResult:
    from hedera_history.errata.ingest import ErrataStatus  # noqa: PLC0415

    reason = "; ".join(outcome.reasons)
    if outcome.status is ErrataStatus.PENDING:
        progress.errata_path = outcome.errata_path
        progress.defer(reason)
        return IngestResult(Outcome.PENDING, key, reason=reason)
    progress.complete()
    if outcome.status is ErrataStatus.REJECTED:
        error = ErrataError(reason or "errata refused", file=outcome.errata_path)
        data = read_object(ctx.source, outcome.errata_path) or b""
        quarantine(ctx, outcome.errata_path, data, error, node="", consensus_ns=progress.consensus_ns)
        return IngestResult(Outcome.QUARANTINED, key, reason=reason, quarantined=(outcome.errata_path,))
    if outcome.status is ErrataStatus.APPLIED:
        return IngestResult(Outcome.ERRATA_APPLIED, key, reason=reason)
    return IngestResult(Outcome.ALREADY_PUBLISHED, key, reason=reason)
