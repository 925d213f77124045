"""The structured log line: Cloud Logging's field names, the caller as source, Error Reporting typing."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import ClassVar

import pytest
from hedera_history.logs import (
    REPORTED_ERROR_EVENT,
    SAMPLED_FIELD,
    SPAN_FIELD,
    TRACE_FIELD,
    configure,
    event,
    parse_trace,
    traced,
    traced_http,
)

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


def test_lines_inside_a_traced_request_carry_its_trace() -> None:
    stream = io.StringIO()
    configure("query", logging.INFO, stream, project="p1")
    with traced("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"):
        event(logger, "answered")
    with traced(None, "105445aa7843bc8bf206b12000100000/1;o=1"):
        event(logger, "answered")
    event(logger, "outside")
    w3c, google, outside = _lines(stream)
    assert w3c[TRACE_FIELD] == "projects/p1/traces/4bf92f3577b34da6a3ce929d0e0e4736"
    assert w3c[SPAN_FIELD] == "00f067aa0ba902b7"
    assert w3c[SAMPLED_FIELD] is True
    assert google[TRACE_FIELD] == "projects/p1/traces/105445aa7843bc8bf206b12000100000"
    assert google[SPAN_FIELD] == "0000000000000001"
    assert TRACE_FIELD not in outside


def test_a_malformed_trace_header_is_ignored() -> None:
    assert parse_trace("00-zz-00f067aa0ba902b7-01") is None
    assert parse_trace("00-" + "0" * 32 + "-00f067aa0ba902b7-01") is None
    assert parse_trace(None, "not a trace") is None


def test_an_http_entry_point_is_traced_by_its_request_headers() -> None:
    stream = io.StringIO()
    configure("store", logging.INFO, stream, project="p1")

    class Request:
        headers: ClassVar[dict[str, str]] = {"X-Cloud-Trace-Context": "105445aa7843bc8bf206b12000100000/7;o=0"}

    @traced_http
    def handler(request: Request) -> str:
        event(logger, "stored")
        return "ok"

    assert handler(Request()) == "ok"
    (entry,) = _lines(stream)
    assert entry[TRACE_FIELD] == "projects/p1/traces/105445aa7843bc8bf206b12000100000"
    assert entry[SAMPLED_FIELD] is False
