"""Ends its own process group when the process that started it dies.

:class:`~hedera_history.localstack.processes.ServiceProcess` runs this beside a service (in the
service's process group) when asked to stop the service with its parent: if a test run is killed
before its clean-up, the emulators it started do not outlive it.
Run as ``python -m hedera_history.localstack.watchdog``.
"""

from __future__ import annotations

import os
import signal
import time

from hedera_history.localstack.processes import process_group_members

POLL_SECONDS = 0.5
GRACE_SECONDS = 5.0


def watch_parent() -> None:
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(POLL_SECONDS)
    group = os.getpgrp()
    # Give the service a chance to shut down cleanly; the watchdog itself ignores the SIGTERM.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    os.killpg(group, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_SECONDS
    while time.monotonic() < deadline:
        if process_group_members(group) == [os.getpid()]:
            return
        time.sleep(0.1)
    os.killpg(group, signal.SIGKILL)


if __name__ == "__main__":
    watch_parent()
