"""The structured log line: Cloud Logging's field names, the caller as source, Error Reporting typing."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
from hedera_history.logs import REPORTED_ERROR_EVENT, configure, event

logger = logging.getLogger("hedera_history.tests.logs")


@pytest.fixture(autouse=True)
def _restore_root_logger() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def _lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_event_names_its_caller_as_source_and_carries_fields() -> None:
    stream = io.StringIO()
    configure("unit", logging.INFO, stream)
    event(logger, "period published", block=7, period="2024-01-01T00_00_00Z")
    (entry,) = _lines(stream)
    assert entry["severity"] == "INFO"
    assert entry["message"] == "period published"
    assert entry["block"] == 7
    location = entry["logging.googleapis.com/sourceLocation"]
    assert isinstance(location, dict)
    assert location["file"].endswith("test_logs.py")
    assert location["function"] == "test_event_names_its_caller_as_source_and_carries_fields"
    assert entry["logging.googleapis.com/labels"] == {"component": "unit"}
    assert "@type" not in entry


def test_errors_are_typed_for_error_reporting_with_their_traceback() -> None:
    stream = io.StringIO()
    configure("ingest", logging.INFO, stream)
    event(logger, "block pin mismatch", logging.ERROR, reason="numbering")
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logger.exception("unexpected failure")
    typed, with_trace = _lines(stream)
    for entry in (typed, with_trace):
        assert entry["@type"] == REPORTED_ERROR_EVENT
        assert entry["serviceContext"] == {"service": "ingest"}
    assert "Traceback" in str(with_trace["exception"])
    assert "RuntimeError: boom" in str(with_trace["exception"])
