"""Cloud Function ``follow`` (Cloud Scheduler, every minute): follow the network's bucket for a window.

Hedera's buckets raise no events in a user's project, so this function lists them instead
(``hedera_history.follow``): each call follows for ``HEDERA_HISTORY_FOLLOW_WINDOW_SECONDS`` (65 s),
handing every new period to the same verification and publication path as an upload, and returns
its report as JSON. One call follows at a time (a lease); a call that finds another following
waits for the lease until its window ends. A transient failure (the store or the bucket did not
answer) answers 503, so Cloud Scheduler's retry and the next minute's call go on from the stored
position.
"""

from __future__ import annotations

import json
import logging

import functions_framework
from flask import Request, Response
from hedera_history.config import Settings
from hedera_history.errors import HistoryError, is_transient
from hedera_history.follow.follower import Follower, follow_source_url
from hedera_history.logs import configure, event, traced_http
from hedera_history.pipeline.ingest import IngestContext
from hedera_history.pipeline.runtime import Cached, build_ingest_context

CONTEXTS = Cached()
logger = logging.getLogger("hedera_history.functions.follow")


def _context() -> tuple[Settings, IngestContext]:
    def build() -> tuple[Settings, IngestContext]:
        settings = Settings.from_env()
        configure("follow", settings.log_level)
        return settings, build_ingest_context(settings, follow_source_url(settings))

    return CONTEXTS.get("follow", build)


@functions_framework.http
@traced_http
def follow(request: Request) -> Response:
    del request  # Cloud Scheduler's body carries nothing the follower needs
    try:
        settings, ctx = _context()
        report = Follower(ctx, settings, source_url=follow_source_url(settings)).run_window(
            settings.follow_window_seconds
        )
    except HistoryError as e:
        event(logger, "follow failed", logging.ERROR, reason=str(e), error_type=type(e).__name__)
        body = {"error": str(e), "type": type(e).__name__}
        return Response(json.dumps(body), status=503 if is_transient(e) else 500, mimetype="application/json")
    return Response(json.dumps(report.as_dict()), status=200, mimetype="application/json")
