"""Structured logs: one JSON object a line, with the field names Cloud Logging understands.

``severity`` and ``message`` become the entry's severity and text, ``time`` its timestamp,
``logging.googleapis.com/labels`` its labels and ``logging.googleapis.com/sourceLocation`` its
source (the caller of :func:`event`, not this module); anything passed in ``extra={"fields": {...}}``
lands in ``jsonPayload``. Entries at ERROR and above are typed as Error Reporting events
(``@type`` ReportedErrorEvent, ``serviceContext``), so a typed failure with no traceback is grouped
and alerted there too; a traceback goes in ``exception``, where Error Reporting reads it.

Trace correlation: an entry point wraps its handling in :func:`traced` (or decorates itself with
:func:`traced_http`) with the request's ``traceparent`` or ``X-Cloud-Trace-Context`` header (a
CloudEvent's ``traceparent`` extension); every line logged meanwhile carries
``logging.googleapis.com/trace``, ``spanId`` and ``trace_sampled``, so Cloud Logging shows one
request's lines together and beside its trace.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

REPORTED_ERROR_EVENT = "type.googleapis.com/google.devtools.clouderrorreporting.v1beta1.ReportedErrorEvent"

_SEVERITY = {
    logging.DEBUG: "DEBUG",
    logging.INFO: "INFO",
    logging.WARNING: "WARNING",
    logging.ERROR: "ERROR",
    logging.CRITICAL: "CRITICAL",
}


TRACE_FIELD = "logging.googleapis.com/trace"
SPAN_FIELD = "logging.googleapis.com/spanId"
SAMPLED_FIELD = "logging.googleapis.com/trace_sampled"
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$")
_CLOUD_TRACE = re.compile(r"^([0-9a-fA-F]{32})(?:/(\d+))?(?:;o=([01]))?$")


@dataclass(frozen=True, slots=True)
class TraceContext:
    trace_id: str
    span_id: str
    """Hex, as Cloud Logging's ``spanId`` takes it."""
    sampled: bool


_CURRENT_TRACE: ContextVar[TraceContext | None] = ContextVar("hedera_history_trace", default=None)


def parse_trace(traceparent: str | None, cloud_trace_context: str | None = None) -> TraceContext | None:
    """The W3C ``traceparent`` (preferred) or Google's ``X-Cloud-Trace-Context``; None when neither parses."""
    if traceparent:
        match = _TRACEPARENT.match(traceparent.strip().lower())
        if match and match.group(1) != "0" * 32:
            return TraceContext(match.group(1), match.group(2), int(match.group(3), 16) & 1 == 1)
    if cloud_trace_context:
        match = _CLOUD_TRACE.match(cloud_trace_context.strip())
        if match:
            span = f"{int(match.group(2)):016x}" if match.group(2) else ""
            return TraceContext(match.group(1).lower(), span, match.group(3) == "1")
    return None


@contextmanager
def traced(traceparent: str | None, cloud_trace_context: str | None = None) -> Iterator[None]:
    """Lines logged inside carry the request's trace."""
    token = _CURRENT_TRACE.set(parse_trace(traceparent, cloud_trace_context))
    try:
        yield
    finally:
        _CURRENT_TRACE.reset(token)


class _HasHeaders(Protocol):
    @property
    def headers(self) -> Any: ...


R = TypeVar("R", bound=_HasHeaders)
T = TypeVar("T")


def traced_http(handler: Callable[[R], T]) -> Callable[[R], T]:
    """An HTTP entry point whose lines carry the trace of the request it answers."""

    @functools.wraps(handler)
    def wrapper(request: R) -> T:
        headers = request.headers
        with traced(headers.get("traceparent"), headers.get("X-Cloud-Trace-Context")):
            return handler(request)

    return wrapper


class CloudLoggingFormatter(logging.Formatter):
    def __init__(self, component: str, project: str | None = None) -> None:
        super().__init__()
        self.component = component
        self.project = project if project is not None else os.environ.get("GOOGLE_CLOUD_PROJECT", "")

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "severity": _SEVERITY.get(record.levelno, "DEFAULT"),
            "message": record.getMessage(),
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "logger": record.name,
            "logging.googleapis.com/labels": {"component": self.component},
            "logging.googleapis.com/sourceLocation": {
                "file": record.pathname,
                "line": str(record.lineno),
                "function": record.funcName,
            },
        }
        trace = _CURRENT_TRACE.get()
        if trace is not None and self.project:
            entry[TRACE_FIELD] = f"projects/{self.project}/traces/{trace.trace_id}"
            if trace.span_id:
                entry[SPAN_FIELD] = trace.span_id
            entry[SAMPLED_FIELD] = trace.sampled
        if record.levelno >= logging.ERROR:
            entry["@type"] = REPORTED_ERROR_EVENT
            entry["serviceContext"] = {"service": self.component}
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, separators=(",", ":"))


def configure(
    component: str, level: int | str = logging.INFO, stream: Any = None, *, project: str | None = None
) -> None:
    """Send every log record of this process as JSON lines to ``stream`` (default stderr); traces
    are named in ``project`` (default: ``GOOGLE_CLOUD_PROJECT``)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(CloudLoggingFormatter(component, project))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def event(logger: logging.Logger, message: str, level: int = logging.INFO, **fields: Any) -> None:
    """Log ``message`` with ``fields`` as structured payload."""
    # stacklevel 2: the source location is the line that called event(), not this function.
    logger.log(level, message, extra={"fields": fields}, stacklevel=2)


def log_tail(path: Path, lines: int = 40) -> str:
    """The last ``lines`` lines of a log file, or a note that it is missing."""
    try:
        with path.open("rb") as log:
            log.seek(0, os.SEEK_END)
            size = log.tell()
            log.seek(max(0, size - 64 * 1024))
            text = log.read().decode("utf-8", errors="replace")
    except OSError:
        return f"(no log at {path})"
    return "\n".join(text.splitlines()[-lines:])
