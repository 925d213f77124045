"""Cloud Scheduler for the local stack: POST an empty JSON body to a scheduled function, one call at a time.

A :class:`ScheduledJob` calls one endpoint in one of two ways:

- every ``interval`` seconds (the sweep): the next call is due ``interval`` seconds after the
  previous one ended, so a long sweep is never overlapped by the next (the deployed sweep runs one
  request at a time too); an interval of 0 never calls;
- back to back (the follower, :meth:`ScheduledJob.back_to_back`): the next call as soon as the
  previous one returns. The deployed follow function is called every minute and follows for a
  window a little longer than that minute, so someone always follows; locally there is no minute to
  fill, so calling again at once leaves no gap either. A failed call waits ``interval`` seconds
  first, so a function that cannot start (no book yet) is not hammered.

A failed call is logged and the next one tries again, as a scheduler job with no retries does.
The job keeps how many calls in a row failed and the last failure's error (the function's own
``{"error": ...}`` answer when it gave one), as Cloud Scheduler shows a job's last attempt, so the
stack's status can say why a follower is not following.
"""

from __future__ import annotations

import logging
import threading

import requests

from hedera_history.errors import StackError
from hedera_history.logs import event

logger = logging.getLogger(__name__)

SCHEDULER_USER_AGENT = "Google-Cloud-Scheduler"
RETRIED_STATUSES = frozenset({429, 502, 503, 504})
"""Answers that say "try again" (the follow function answers 503 when the store or bucket did not
answer); any other failure is one the next call meets again."""
ERROR_TEXT_LIMIT = 500
DEFAULT_REQUEST_TIMEOUT_SECONDS = 540.0
"""The sweep function's own timeout (``deploy.catalogue.SWEEP``)."""


class ScheduledJob:
    """Calls ``endpoint`` on a schedule until stopped (see the module docstring)."""

    def __init__(
        self,
        endpoint: str,
        interval: float,
        *,
        name: str = "sweep",
        back_to_back: bool = False,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT_SECONDS,
    ) -> None:
        self.endpoint = endpoint
        self.interval = interval
        self.name = name
        self.back_to_back = back_to_back
        self.request_timeout = request_timeout
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._session = requests.Session()
        self._lock = threading.Lock()
        self.calls = 0
        self.failures = 0
        self.in_flight = False
        """A call was sent and has not returned (a follow window under way)."""
        self.failing = 0
        """Calls in a row that failed (0: the last call succeeded, or none was made)."""
        self.last_error = ""
        """Why the last failed call failed."""
        self.last_error_transient = False
        """The last failure asked to be retried (a 503, a connection that failed)."""

    @classmethod
    def back_to_back_calls(
        cls, endpoint: str, *, name: str, retry_after: float = 1.0, request_timeout: float
    ) -> ScheduledJob:
        """A job calling ``endpoint`` again as soon as a call returns (``retry_after`` s after a failure)."""
        return cls(endpoint, retry_after, name=name, back_to_back=True, request_timeout=request_timeout)

    def start(self) -> ScheduledJob:
        if self._thread is not None:
            raise StackError(f"the {self.name} scheduler is already running")
        if self.back_to_back or self.interval > 0:
            self._stopping.clear()
            self._thread = threading.Thread(target=self._run, name=f"{self.name}-scheduler", daemon=True)
            self._thread.start()
        event(
            logger,
            "scheduler started",
            job=self.name,
            endpoint=self.endpoint,
            interval=self.interval,
            back_to_back=self.back_to_back,
        )
        return self

    def call_once(self) -> bool:
        """One scheduled call; True when the function answered with a 2xx."""
        error, transient = "", True
        self.in_flight = True
        try:
            response = self._session.post(
                self.endpoint,
                data=b"{}",
                headers={"Content-Type": "application/json", "User-Agent": SCHEDULER_USER_AGENT},
                timeout=self.request_timeout,
            )
            if not 200 <= response.status_code < 300:
                error, transient = answer_error(response), response.status_code in RETRIED_STATUSES
                if not self._stopping.is_set():
                    event(
                        logger,
                        "scheduled call rejected",
                        logging.WARNING,
                        job=self.name,
                        status=response.status_code,
                        error=error,
                    )
            response.close()
        except requests.RequestException as e:
            error = f"{type(e).__name__}: {e}"[:ERROR_TEXT_LIMIT]
            if not self._stopping.is_set():  # a call cut short by the stack stopping is no failure worth a line
                event(logger, "scheduled call failed", logging.WARNING, job=self.name, error=repr(e))
        ok = not error
        with self._lock:
            self.calls += 1
            self.failures += 0 if ok else 1
            self.failing = 0 if ok else self.failing + 1
            if not ok:
                self.last_error, self.last_error_transient = error, transient
        self.in_flight = False
        return ok

    def stop(self, timeout: float = 30.0) -> None:
        """Stop calling. A back-to-back job's call in flight (a follow window) is not waited for
        beyond a moment: the function is stopped next, which ends the call."""
        self._stopping.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(min(timeout, 2.0) if self.back_to_back else timeout)
        if thread is None or not thread.is_alive():
            self._session.close()
        event(logger, "scheduler stopped", job=self.name, calls=self.calls, failures=self.failures)

    def _run(self) -> None:
        if self.back_to_back:
            while not self._stopping.is_set():
                if not self.call_once():
                    self._stopping.wait(self.interval)
            return
        while not self._stopping.wait(self.interval):
            self.call_once()


def answer_error(response: requests.Response) -> str:
    """What a failed answer says: the function's ``{"error": ...}`` (with its ``type``), else its
    status and the start of its body."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and body.get("error"):
        kind = f"{body['type']}: " if body.get("type") else ""
        return f"{kind}{body['error']}"[:ERROR_TEXT_LIMIT]
    text = " ".join(response.text.split())
    return (f"HTTP {response.status_code}" + (f": {text}" if text else ""))[:ERROR_TEXT_LIMIT]
