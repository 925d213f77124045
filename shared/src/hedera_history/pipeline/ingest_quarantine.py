"""Setting aside a file that can never verify: its bytes copied to the quarantine location, the
reason in the ``quarantine`` table. The period it belongs to goes on from the other nodes' files."""

from __future__ import annotations

import logging

from hedera_history.books.address_book import AddressBook
from hedera_history.errors import HistoryError, VerificationError
from hedera_history.formats.names import StreamFileKind, parse_stream_file_name, parse_timestamp
from hedera_history.formats.stream_paths import BucketLayout, NodeIdentity, ObjectPath
from hedera_history.logs import event
from hedera_history.pipeline.ingest_context import IngestContext, logger, node_account_of, read_object
from hedera_history.sources.period_files import SourcePeriod, StreamLocation
from hedera_history.verify.consensus import OK
from hedera_history.verify.period import PeriodReport


def quarantine(
    ctx: IngestContext, path: str, data: bytes, error: HistoryError, *, node: str, consensus_ns: int
) -> None:
    copy = ""
    if ctx.quarantine is not None and data:
        # Never replaced: the first copy stays as evidence (the identity may create, not delete).
        ctx.quarantine.create(path, data)
        copy = f"{ctx.quarantine.url.rstrip('/')}/{path}"
    ctx.state.quarantine(consensus_ns, path, reason=str(error), error=type(error).__name__, node=node, copy=copy)
    event(logger, "period quarantined", logging.WARNING, file=path, node=node, reason=str(error), copy=copy)


def quarantine_bad_trigger(
    ctx: IngestContext,
    trigger: ObjectPath | None,
    report: PeriodReport,
    files: SourcePeriod,
    book: AddressBook,
) -> tuple[str, ...]:
    """The triggering signature file, when its node's signature can never count."""
    if trigger is None or trigger.file.kind is not StreamFileKind.SIGNATURE or report.consensus is None:
        return ()
    account = node_account_of(trigger, book)
    outcome = report.consensus.outcomes.get(account, OK)
    final = outcome.startswith(("bad signature", "unreadable", "unknown node")) or (
        report.consensus.reached and outcome != OK and not outcome.startswith("no signature")
    )
    if outcome == OK or not final:
        return ()
    fetched = files.signature(trigger.node)
    data = fetched.data if fetched is not None else b""
    error = VerificationError(f"{account}: {outcome}", file=trigger.path, node=account)
    quarantine(ctx, trigger.path, data, error, node=account, consensus_ns=files.consensus_ns)
    return (trigger.path,)


def quarantine_checked_copy(
    ctx: IngestContext, report: PeriodReport, location: StreamLocation, error: HistoryError
) -> tuple[str, ...]:
    """The record copy that failed its checks (hashes that differ from the signed ones)."""
    record = report.record
    node = error.node or ""
    if record is None or not node:
        return ()
    agreeing = report.consensus.agreeing if report.consensus else ()
    entry = next((n for n, _ in agreeing if n.account == node), None)
    if entry is None:
        return ()
    identity = (
        NodeIdentity(account=node) if location.layout is BucketLayout.ACCOUNT else NodeIdentity(node_id=entry.node_id)
    )
    path = location.path(identity, parse_stream_file_name(record.name.rsplit("/", 1)[-1]))
    data = read_object(ctx.source, path) or b""
    quarantine(ctx, path, data, error, node=node, consensus_ns=parse_timestamp(report.period_key))
    return (path,)
