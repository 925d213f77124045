"""A function serving one request at a time answers its readiness check while a call holds that
request: under functions-framework, as the local stack runs it. The follow function is called back
to back for windows of a minute, so after a restart the stack's next call got in before the check,
which then waited behind whole windows: a restart took 130 s and more, and failed past 180 s."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import requests
from hedera_history.deploy.catalogue import FOLLOW
from hedera_history.localstack.function_process import FunctionProcess

READY_SECONDS = 30.0
"""Far more than a start-up takes, far less than the call holding the function."""
CALL_SECONDS = 600

STUB = f"""
import pathlib
import time

import functions_framework


@functions_framework.http
def follow(request):
    pathlib.Path("called").write_text("")  # the call holds the only request slot from here on
    time.sleep({CALL_SECONDS})
    return "followed"
"""


def hold_the_function(url: str, stop: threading.Event) -> None:
    """What the stack's scheduler does to the follow function: call it, and again once it returns."""
    while not stop.is_set():
        try:
            requests.post(url, json={}, timeout=CALL_SECONDS + 30).close()
        except requests.RequestException:
            stop.wait(0.05)


def test_a_function_serving_one_call_at_a_time_is_ready_while_a_call_holds_it(tmp_path: Path) -> None:
    source = tmp_path / "follow"
    source.mkdir()
    (source / "main.py").write_text(STUB)
    assert FOLLOW.concurrency == 1
    function = FunctionProcess(FOLLOW, source, {}, log_dir=tmp_path).start()
    stop = threading.Event()
    caller = threading.Thread(target=hold_the_function, args=(function.url, stop), daemon=True)
    try:
        function.wait_ready(READY_SECONDS)
        caller.start()
        deadline = time.monotonic() + READY_SECONDS
        while not (source / "called").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (source / "called").exists(), "the caller never got in"

        # What a restart waits for, with the stack's caller holding the one request it serves.
        function.wait_ready(READY_SECONDS)
    finally:
        stop.set()
        function.kill()  # the call in flight need not finish
        caller.join(timeout=10)
