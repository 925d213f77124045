"""Structured logs: one JSON object a line, with the field names Cloud Logging understands.

``severity`` and ``message`` become the entry's severity and text, ``time`` its timestamp,
``logging.googleapis.com/labels`` its labels and ``logging.googleapis.com/sourceLocation`` its
source (the caller of :func:`event`, not this module); anything passed in ``extra={"fields": {...}}``
lands in ``jsonPayload``. Entries at ERROR and above are typed as Error Reporting events
(``@type`` ReportedErrorEvent, ``serviceContext``), so a typed failure with no traceback is grouped
and alerted there too; a traceback goes in ``exception``, where Error Reporting reads it.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

REPORTED_ERROR_EVENT = "type.googleapis.com/google.devtools.clouderrorreporting.v1beta1.ReportedErrorEvent"

_SEVERITY = {
    logging.DEBUG: "DEBUG",
    logging.INFO: "INFO",
    logging.WARNING: "WARNING",
    logging.ERROR: "ERROR",
    logging.CRITICAL: "CRITICAL",
}


class CloudLoggingFormatter(logging.Formatter):
    def __init__(self, component: str) -> None:
        super().__init__()
        self.component = component

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
        if record.levelno >= logging.ERROR:
            entry["@type"] = REPORTED_ERROR_EVENT
            entry["serviceContext"] = {"service": self.component}
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, separators=(",", ":"))


def configure(component: str, level: int | str = logging.INFO, stream: Any = None) -> None:
    """Send every log record of this process as JSON lines to ``stream`` (default stderr)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(CloudLoggingFormatter(component))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def event(logger: logging.Logger, message: str, level: int = logging.INFO, **fields: Any) -> None:
    """Log ``message`` with ``fields`` as structured payload."""
    # stacklevel 2: the source location is the line that called event(), not this function.
    logger.log(level, message, extra={"fields": fields}, stacklevel=2)
