"""Cloud Scheduler for the local stack: POST an empty JSON body to the sweep function on an interval.

One call at a time: the next one is due ``interval`` seconds after the previous one ended, so a
long sweep is never overlapped by the next (the deployed sweep runs one request at a time too).
A failed call is logged and the next tick tries again, as a scheduler job with no retries does.
"""

from __future__ import annotations

import logging
import threading

import requests

from hedera_history.logs import event

logger = logging.getLogger(__name__)

SCHEDULER_USER_AGENT = "Google-Cloud-Scheduler"
DEFAULT_REQUEST_TIMEOUT_SECONDS = 540.0
"""The sweep function's own timeout (``pipeline.functions.SWEEP``)."""


class SweepScheduler:
    """Calls ``endpoint`` every ``interval`` seconds until stopped; an interval of 0 never calls."""

    def __init__(
        self, endpoint: str, interval: float, *, request_timeout: float = DEFAULT_REQUEST_TIMEOUT_SECONDS
    ) -> None:
        self.endpoint = endpoint
        self.interval = interval
        self.request_timeout = request_timeout
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._session = requests.Session()
        self._lock = threading.Lock()
        self.calls = 0
        self.failures = 0

    def start(self) -> SweepScheduler:
        if self._thread is not None:
            raise RuntimeError("the sweep scheduler is already running")
        if self.interval > 0:
            self._stopping.clear()
            self._thread = threading.Thread(target=self._run, name="sweep-scheduler", daemon=True)
            self._thread.start()
        event(logger, "sweep scheduler started", endpoint=self.endpoint, interval=self.interval)
        return self

    def call_once(self) -> bool:
        """One scheduled call; True when the sweep answered with a 2xx."""
        ok = False
        try:
            response = self._session.post(
                self.endpoint,
                data=b"{}",
                headers={"Content-Type": "application/json", "User-Agent": SCHEDULER_USER_AGENT},
                timeout=self.request_timeout,
            )
            ok = 200 <= response.status_code < 300
            if not ok:
                event(logger, "sweep call rejected", logging.WARNING, status=response.status_code)
            response.close()
        except requests.RequestException as e:
            event(logger, "sweep call failed", logging.WARNING, error=repr(e))
        with self._lock:
            self.calls += 1
            self.failures += 0 if ok else 1
        return ok

    def stop(self, timeout: float = 30.0) -> None:
        self._stopping.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout)
        self._session.close()
        event(logger, "sweep scheduler stopped", calls=self.calls, failures=self.failures)

    def _run(self) -> None:
        while not self._stopping.wait(self.interval):
            self.call_once()
