"""Ctrl-C and SIGTERM end a long run through its own stop call, and the handlers before are back after."""

from __future__ import annotations

import os
import signal
import threading
import time

from hedera_history.interrupts import STOP_SIGNALS, stop_on_signals, wait_until_interrupted

GENEROUS_SECONDS = 60.0


def _until(condition: threading.Event) -> bool:
    # A handler runs in the main thread at its next step: wait for it rather than assume when.
    deadline = time.monotonic() + GENEROUS_SECONDS
    while not condition.is_set() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition.is_set()


def test_each_signal_calls_stop_and_the_previous_handlers_return() -> None:
    before = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig in STOP_SIGNALS:
        stopped = threading.Event()
        with stop_on_signals(stopped.set):
            os.kill(os.getpid(), sig)
            assert _until(stopped)
    assert {sig: signal.getsignal(sig) for sig in STOP_SIGNALS} == before


def test_outside_the_main_thread_nothing_is_routed() -> None:
    ran = threading.Event()

    def body() -> None:
        with stop_on_signals(lambda: None):
            ran.set()

    thread = threading.Thread(target=body)
    thread.start()
    thread.join(GENEROUS_SECONDS)
    assert ran.is_set()


def test_waiting_ends_on_a_signal() -> None:
    before = signal.getsignal(signal.SIGINT)

    def interrupt_once_waiting() -> None:
        deadline = time.monotonic() + GENEROUS_SECONDS
        while signal.getsignal(signal.SIGINT) == before and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)

    sender = threading.Thread(target=interrupt_once_waiting)
    sender.start()
    wait_until_interrupted()  # a wait that never ends is the test run's timeout
    sender.join(GENEROUS_SECONDS)
    assert signal.getsignal(signal.SIGINT) == before
