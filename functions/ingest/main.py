"""Cloud Functions ``ingest`` (a finalized object in the stream bucket) and ``sweep`` (scheduled).

Both only turn the request into a call on ``hedera_history.pipeline``: ``ingest`` handles the one
uploaded object, ``sweep`` retries pending periods. A transient failure (the store or the bucket
did not answer) is raised, so the call fails and the period stays pending for the sweep. The sweep
is imported by its first call: an ``ingest`` instance, which starts on a burst of uploads, never
loads it.
"""

from __future__ import annotations

import json
import logging

import functions_framework
from cloudevents.http import CloudEvent
from flask import Request, Response
from hedera_history.config import Settings
from hedera_history.errors import HistoryError, is_transient
from hedera_history.logs import configure, event, traced, traced_http
from hedera_history.pipeline.ingest import IngestContext, ignored_reason, ingest_object
from hedera_history.pipeline.runtime import Cached, build_ingest_context

CONTEXTS = Cached()
logger = logging.getLogger("hedera_history.functions.ingest")


def _context(bucket: str = "") -> IngestContext:
    def build() -> IngestContext:
        settings = Settings.from_env()
        configure("ingest", settings.log_level)
        return build_ingest_context(settings, bucket or settings.stream_bucket)

    return CONTEXTS.get(bucket, build)


@functions_framework.cloud_event
def ingest(cloud_event: CloudEvent) -> None:
    with traced(cloud_event.get_attributes().get("traceparent")):
        _ingest(cloud_event)


def _ingest(cloud_event: CloudEvent) -> None:
    data = cloud_event.data if isinstance(cloud_event.data, dict) else {}
    bucket, name = str(data.get("bucket", "")), str(data.get("name", ""))
    if not bucket or not name:
        event(logger, "storage event without bucket or name ignored", logging.WARNING, event_id=cloud_event["id"])
        return
    ignored = ignored_reason(name, Settings.from_env())
    if ignored is not None:
        event(logger, "object ignored", logging.DEBUG, file=name, reason=ignored)
        return
    result = ingest_object(_context(bucket), name)
    event(logger, "object handled", file=name, outcome=result.outcome.value, block=result.block_number)


@functions_framework.http
@traced_http
def sweep(request: Request) -> Response:
    del request  # Cloud Scheduler's body carries nothing the sweep needs
    from hedera_history.pipeline.sweep import sweep as run_sweep  # noqa: PLC0415 (see the module docstring)

    try:
        report = run_sweep(_context())
    except HistoryError as e:
        event(logger, "sweep failed", logging.ERROR, reason=str(e), error_type=type(e).__name__)
        body = {"error": str(e), "type": type(e).__name__}
        return Response(json.dumps(body), status=503 if is_transient(e) else 500, mimetype="application/json")
    return Response(json.dumps(report.as_dict()), status=200, mimetype="application/json")
