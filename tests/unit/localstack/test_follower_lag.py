"""The follower's own lag as the query function's status reports it, for the demo and the lag bench, and
blocks seen answered by a listing poll."""

from __future__ import annotations

import json
from typing import Any

from hedera_history.gen.live import PeriodWritten
from hedera_history.localstack.demo import follower_lag
from hedera_history.localstack.live_follow import BlockArrivals, follower_lag_seconds
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


def rpc_app(complete: list[int], calls: list[str]) -> Any:
    """A query function whose ``getBlocks`` lists ``complete``; each method called is noted."""

    @Request.application
    def app(request: Request) -> Response:
        body = json.loads(request.get_data())
        calls.append(body["method"])
        first, last = body["params"][0], body["params"][-1]
        result = [n for n in complete if first <= n <= last] if body["method"] == "getBlocks" else None
        return Response(json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}), mimetype="application/json")

    return app


def test_a_listing_poll_answers_blocks_from_get_blocks_without_rendering_any() -> None:
    calls: list[str] = []
    with serving_app(rpc_app([5, 6], calls)) as url, BlockArrivals(url, 5, poll_seconds=0.01, listing=True) as arrivals:
        for number in (5, 6, 7):
            arrivals.period_written(PeriodWritten(number, number, f"p{number}", 0, 1, 10, 20, None, 0, (), (), ()))
        assert arrivals.wait_for({5, 6}, timeout=30)
        assert [a.block_number for a in arrivals.arrivals()] == [5, 6]
    assert calls and set(calls) == {"getBlocks"}
