"""The detached bridge process stops its bridges on SIGTERM or SIGINT and leaves the signal handlers
it found in place."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from hedera_history.interrupts import STOP_SIGNALS
from hedera_history.localstack import bridges
from hedera_history.localstack.bridges import BridgeStats, read_bridge_stats, run_bridge_process
from hedera_history.localstack.stack_state import BRIDGE_READY_FILE

GENEROUS_SECONDS = 60.0
STATS = BridgeStats(1, 0, 0, 2, 3, 0, 4, 0)


class FakeBridges:
    """Stands in for the stack's bridges: counts, and remembers whether it was stopped."""

    stopped = False

    def __init__(self, state: object) -> None:
        del state

    def __enter__(self) -> FakeBridges:
        return self

    def __exit__(self, *_: object) -> None:
        FakeBridges.stopped = True

    def stats(self) -> BridgeStats:
        return STATS


def _signal_once_ready(ready: Path, sig: signal.Signals) -> threading.Thread:
    def send() -> None:
        deadline = time.monotonic() + GENEROUS_SECONDS
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(os.getpid(), sig)

    sender = threading.Thread(target=send)
    sender.start()
    return sender


@pytest.mark.parametrize("sig", STOP_SIGNALS)
def test_a_signal_stops_the_bridges_and_the_previous_handlers_return(
    sig: signal.Signals, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bridges, "require_state", lambda state_dir: object())
    monkeypatch.setattr(bridges, "StackBridges", FakeBridges)
    monkeypatch.setattr(FakeBridges, "stopped", False)
    before = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    sender = _signal_once_ready(tmp_path / BRIDGE_READY_FILE, sig)
    run_bridge_process(tmp_path)  # a run that never ends is the test run's timeout
    sender.join(GENEROUS_SECONDS)
    assert FakeBridges.stopped
    assert read_bridge_stats(tmp_path) == STATS
    assert {s: signal.getsignal(s) for s in STOP_SIGNALS} == before
