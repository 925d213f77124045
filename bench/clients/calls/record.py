"""What every client's call script prints: one JSON line per call, read by ``bench.clients``.

Standard library only: the scripts run in each client's own environment, not the project's. A call
names the reference route it reaches (its OpenAPI path template) and the HTTP method; the harness
decides from that whether the route is one we serve.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], str | None]
"""None when the value the client returned is right, else what is wrong with it."""


def targets() -> dict[str, Any]:
    """The ids to ask for, written by the harness as JSON into the file named by the first argument."""
    with open(sys.argv[1], encoding="utf-8") as f:
        found: dict[str, Any] = json.load(f)
    return found


def call(name: str, route: str, run: Callable[[], Any], check: Check, method: str = "GET") -> None:
    """Run one client call and print its outcome; an exception is a failure with its message."""
    try:
        problem = check(run())
    except Exception as e:  # noqa: BLE001 - any failure of the client call is what we report
        last = traceback.extract_tb(e.__traceback__)[-1]
        problem = f"{type(e).__name__}: {e} ({last.filename.rsplit('/', 1)[-1]}:{last.lineno})"
    print(json.dumps({"call": name, "method": method, "route": route, "ok": problem is None, "detail": problem or ""}))
    sys.stdout.flush()


def skip(name: str, route: str, why: str, method: str = "GET") -> None:
    """A call the dataset has nothing to ask for (no token, no contract, ...)."""
    print(json.dumps({"call": name, "method": method, "route": route, "ok": None, "detail": why}))
    sys.stdout.flush()


def equal(expected: Any) -> Check:
    return lambda value: None if value == expected else f"expected {expected!r}, got {value!r}"


def status_200(answer: Any) -> str | None:
    """For clients that hand back the HTTP status: a 200 with a JSON object."""
    status, body = answer
    if status != 200:
        return f"HTTP {status}: {json.dumps(body)[:200]}"
    return None if isinstance(body, dict) else f"not a JSON object: {body!r}"[:200]
