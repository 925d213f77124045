"""The follower's own lag as the query function's status reports it, for the demo and the lag bench."""

from __future__ import annotations

import json
from typing import Any

from hedera_history.localstack.demo import follower_lag
from hedera_history.localstack.live_follow import follower_lag_seconds
from werkzeug.wrappers import Request, Response

from tests.serving import serving_app


def status_app(status: Any) -> Any:
    @Request.application
    def app(request: Request) -> Response:
        if request.path != "/api/v1/status":
            return Response("not found", status=404)
        return Response(json.dumps(status), mimetype="application/json")

    return app


def test_the_lag_is_read_from_the_status() -> None:
    with serving_app(status_app({"follower": {"lag_seconds": 1.25}})) as url:
        assert follower_lag_seconds(url) == 1.25
        assert follower_lag(url) == "1.2 s"


def test_a_status_without_a_lag_gives_none() -> None:
    statuses: list[dict[str, Any]] = [{"follower": {}}, {"follower": None}, {}, {"follower": {"lag_seconds": None}}]
    for status in statuses:
        with serving_app(status_app(status)) as url:
            assert follower_lag_seconds(url) is None
            assert follower_lag(url) == "? s"


def test_a_query_function_that_does_not_answer_gives_none() -> None:
    with serving_app(status_app({})) as url:
        pass
    assert follower_lag_seconds(url) is None
    assert follower_lag(url) == "? s"
