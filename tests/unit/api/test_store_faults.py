"""A store failure answers the caller briefly (503 or 500) and logs why for the operator."""

from __future__ import annotations

import json
import logging

import pytest
from hedera_history.api.app import handle
from hedera_history.errors import RowDecodeError, StoreError, StoreUnavailableError
from hedera_history.store.reader import HistoryReader


def failing_reader(error: StoreError) -> HistoryReader:
    raise error


@pytest.mark.parametrize(
    ("error", "status", "message", "level"),
    [
        (StoreUnavailableError("Received message larger than max"), 503, "history store unavailable", "WARNING"),
        (RowDecodeError("unknown value encoding 0x7f"), 500, "stored history unreadable", "ERROR"),
    ],
)
@pytest.mark.parametrize("rpc", [False, True])
def test_a_store_failure_is_answered_briefly_and_logged_with_its_cause(
    caplog: pytest.LogCaptureFixture, error: StoreError, status: int, message: str, level: str, rpc: bool
) -> None:
    with caplog.at_level(logging.WARNING, logger="hedera_history.api"):
        if rpc:
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "getBlock", "params": [0]}).encode()
            response = handle(lambda: failing_reader(error), "POST", "/", {}, body)
            assert response.status == 200 and "error" in response.body
        else:
            response = handle(lambda: failing_reader(error), "GET", "/api/v1/blocks/0", {}, b"")
            assert response.status == status
        assert str(error) not in json.dumps(response.body)
    logged = [r for r in caplog.records if r.getMessage() == message]
    assert len(logged) == 1 and logged[0].levelname == level
    fields = logged[0].fields  # type: ignore[attr-defined]
    assert fields == {"reason": str(error), "error_type": type(error).__name__}
