"""What stands in for Eventarc, Cloud Scheduler and push subscriptions in the local stack.

:class:`StackBridges` runs, for one recorded stack:

- a :class:`~hedera_history.localstack.gcs_events.GcsEventBridge`: bucket uploads become finalize
  CloudEvents POSTed to ingest; or, when the stack follows a source (``stack up --follow``), a
  :class:`~hedera_history.localstack.scheduler.ScheduledJob` calling the follow function back to
  back instead (a followed bucket raises no events, as Hedera's raise none in a user's project);
- a :class:`~hedera_history.localstack.scheduler.ScheduledJob`: the sweep function every few seconds;
- one :class:`~hedera_history.transport.push_bridge.PushBridge` per store subscription
  (``store-history``, ``store-sidecars``): each message POSTed to the store function over HTTP as a
  push subscription would, acknowledged only when the function answers 2xx.

They run in threads of the process that started an in-process stack, or in a detached process of
their own (``hedera-history stack bridge``, :func:`run_bridge_process`) when the stack was started
from the command line, so that they outlive ``stack up``. Either way their counters land in
``bridge-stats.json`` every second, which ``stack status`` and ``stack wait`` read: among them
whether the follow function's calls keep failing, and why (:meth:`BridgeStats.follower_failure`).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hedera_history.deploy.catalogue import FOLLOW, STORE
from hedera_history.interrupts import stop_on_signals
from hedera_history.localstack.gcs_events import GcsEventBridge, JsonApiBucketLister
from hedera_history.localstack.scheduler import ScheduledJob
from hedera_history.localstack.stack_state import BRIDGE_READY_FILE, BRIDGE_STATS_FILE, StackState, require_state
from hedera_history.logs import event
from hedera_history.transport.push_bridge import PushBridge, PushMode
from hedera_history.transport.topics import STORE_HISTORY, STORE_SIDECARS

logger = logging.getLogger(__name__)

STORE_SUBSCRIPTIONS = (STORE_HISTORY, STORE_SIDECARS)
STATS_INTERVAL_SECONDS = 1.0
FAILING_AFTER_RETRIED_CALLS = 3
"""Failed follow calls in a row, each answered "try again", after which the follower counts as
failing all the same (a store that stays away); any other failure counts at once."""


@dataclass(frozen=True, slots=True)
class BridgeStats:
    events_sent: int
    events_retried: int
    events_dropped: int
    objects_seen: int
    sweep_calls: int
    sweep_failures: int
    store_acked: int
    store_nacked: int
    follow_calls: int = 0
    follow_failures: int = 0
    follow_in_flight: int = 0
    """1 while a call of the follow function is under way (it follows for a window before it returns)."""
    follow_failing: int = 0
    """Follow calls in a row that failed (0: the last one followed)."""
    follow_error: str = ""
    """Why the last failed follow call failed (the function's error)."""
    follow_error_retried: int = 0
    """1 when that failure's answer asked to be retried (a 503: the store or bucket did not answer)."""

    def follower_failure(self) -> str | None:
        """The follow function's error when its calls keep failing: the last one failed in a way
        another call meets again (no book, a bad setting), or :data:`FAILING_AFTER_RETRIED_CALLS`
        in a row failed; None while it follows."""
        if not self.follow_failing:
            return None
        if self.follow_error_retried and self.follow_failing < FAILING_AFTER_RETRIED_CALLS:
            return None
        return self.follow_error or "the follow function's calls fail"

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> BridgeStats | None:
        try:
            read: dict[str, Any] = {k: v if isinstance(v, str) else int(v) for k, v in json.loads(text).items()}
            return cls(**read)
        except (ValueError, TypeError, AttributeError):
            return None


class StackBridges:
    """The bucket event bridge (or the follower's scheduler), the sweep scheduler and the store push
    bridges of one stack."""

    def __init__(self, state: StackState, *, stats_dir: Path | None = None) -> None:
        """``stats_dir``: write the counters there every second while running (an in-process stack;
        the detached bridge process writes its own)."""
        self.state = state
        self._stats_dir = stats_dir
        self._stats_stop = threading.Event()
        self._stats_thread: threading.Thread | None = None
        self._lister: JsonApiBucketLister | None = None
        self.events: GcsEventBridge | None = None
        self.follower: ScheduledJob | None = None
        if state.following:
            self.follower = ScheduledJob.back_to_back_calls(
                state.follow_endpoint,
                name=FOLLOW.name,
                retry_after=state.sweep_interval_seconds or 1.0,
                request_timeout=float(FOLLOW.timeout_seconds),
            )
        else:
            self._lister = JsonApiBucketLister(state.storage_endpoint, state.bucket)
            self.events = GcsEventBridge(self._lister, state.ingest_endpoint, poll_interval=state.poll_interval_seconds)
        self.scheduler = ScheduledJob(state.sweep_endpoint, state.sweep_interval_seconds)
        store_url = state.function_url(STORE.name)
        self.pushes = [
            PushBridge(
                state.subscription_path(name),
                store_url,
                mode=PushMode.CLOUD_EVENT,
                max_concurrency=STORE.concurrency // len(STORE_SUBSCRIPTIONS) or 1,
                request_timeout_seconds=float(STORE.timeout_seconds),
                retry_policy=state.store_retry_policy,
                emulator_host=state.pubsub_host,
            )
            for name in STORE_SUBSCRIPTIONS
        ]
        self._started: list[Any] = []

    def start(self) -> StackBridges:
        """Start every bridge; if one fails, the ones already started are stopped again."""
        try:
            for push in self.pushes:
                self._started.append(push.start())
            if self.events is not None:
                self._started.append(self.events.start())
            if self.follower is not None:
                self._started.append(self.follower.start())
            self._started.append(self.scheduler.start())
        except BaseException:
            self.stop()
            raise
        if self._stats_dir is not None:
            self._stats_stop.clear()
            self._stats_thread = threading.Thread(target=self._write_stats_until_stopped, name="stats", daemon=True)
            self._stats_thread.start()
        return self

    def stop(self) -> None:
        """Stop taking new work first (events, sweeps), then the push deliveries in flight."""
        started, self._started = self._started, []
        for bridge in reversed(started):
            bridge.stop()
        if self._lister is not None:
            self._lister.close()
        thread, self._stats_thread = self._stats_thread, None
        if thread is not None:
            self._stats_stop.set()
            thread.join()

    def _write_stats_until_stopped(self) -> None:
        assert self._stats_dir is not None
        while not self._stats_stop.wait(STATS_INTERVAL_SECONDS):
            _write_stats(self._stats_dir, self.stats())
        _write_stats(self._stats_dir, self.stats())

    def stats(self) -> BridgeStats:
        events = self.events.stats() if self.events is not None else None
        return BridgeStats(
            events_sent=events.sent if events else 0,
            events_retried=events.retried if events else 0,
            events_dropped=events.dropped if events else 0,
            objects_seen=events.objects if events else 0,
            sweep_calls=self.scheduler.calls,
            sweep_failures=self.scheduler.failures,
            store_acked=sum(push.acked for push in self.pushes),
            store_nacked=sum(push.nacked for push in self.pushes),
            **_follow_counters(self.follower),
        )

    def __enter__(self) -> StackBridges:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()


def _follow_counters(follower: ScheduledJob | None) -> dict[str, Any]:
    if follower is None:
        return {}
    failing = follower.failing
    return {
        "follow_calls": follower.calls,
        "follow_failures": follower.failures,
        "follow_in_flight": int(follower.in_flight),
        "follow_failing": failing,
        "follow_error": follower.last_error if failing else "",
        "follow_error_retried": int(bool(failing and follower.last_error_transient)),
    }


def read_bridge_stats(state_dir: Path) -> BridgeStats | None:
    """The counters the detached bridge process last wrote, or None."""
    try:
        return BridgeStats.from_json((state_dir / BRIDGE_STATS_FILE).read_text())
    except OSError:
        return None


def run_bridge_process(state_dir: Path) -> None:
    """The body of the detached bridge process: run the stack's bridges until SIGTERM or SIGINT.

    Writes ``bridge.ready`` once every bridge runs (``stack up`` waits for it) and the counters to
    ``bridge-stats.json`` every second (``stack status`` shows them).
    """
    state = require_state(state_dir)
    stopping = threading.Event()
    with stop_on_signals(stopping.set), StackBridges(state) as bridges:
        (state_dir / BRIDGE_READY_FILE).write_text(f"{os.getpid()}\n")
        event(logger, "bridge process ready", state_dir=str(state_dir))
        while not stopping.wait(STATS_INTERVAL_SECONDS):
            _write_stats(state_dir, bridges.stats())
        event(logger, "bridge process stopping", state_dir=str(state_dir))
        _write_stats(state_dir, bridges.stats())


def _write_stats(state_dir: Path, stats: BridgeStats) -> None:
    path = state_dir / BRIDGE_STATS_FILE
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        temporary.write_text(stats.to_json())
        temporary.replace(path)
    except OSError as e:
        event(logger, "cannot write bridge stats", logging.WARNING, error=str(e))
