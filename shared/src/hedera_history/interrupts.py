"""Ending a long run cleanly on Ctrl-C (SIGINT) or SIGTERM instead of by ``KeyboardInterrupt``.

The follower, the live generator and the local stack in the foreground each stop through their
own call (set an event, stop a player); ``stop_on_signals`` routes the signals to it while the run
lasts and puts the previous handlers back afterwards.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_WAKE_SECONDS = 0.5


@contextmanager
def stop_on_signals(stop: Callable[[], None]) -> Iterator[None]:
    """Inside, SIGINT and SIGTERM call ``stop`` (each time: a second Ctrl-C may cut a flush short).

    Handlers can only be set from the main thread; elsewhere nothing is routed and the caller
    stops the run itself."""

    def handle(signum: int, frame: FrameType | None) -> None:
        del signum, frame
        stop()

    try:
        previous = {sig: signal.signal(sig, handle) for sig in STOP_SIGNALS}
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def wait_until_interrupted() -> None:
    """Block until SIGINT or SIGTERM."""
    stopping = threading.Event()
    with stop_on_signals(stopping.set):
        # Waking now and then keeps the wait short of anything a signal could fail to interrupt.
        while not stopping.wait(_WAKE_SECONDS):
            pass
