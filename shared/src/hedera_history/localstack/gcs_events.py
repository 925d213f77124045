"""The bucket-to-CloudEvent bridge: Eventarc's ``object.v1.finalized`` trigger for a bucket on the GCS emulator.

The emulator has no notifications, so :class:`GcsEventBridge` polls bucket listings (see Discovery
below) and POSTs one binary-mode CloudEvent per new ``(name, generation)`` to the ingest function,
from a small pool of threads (Eventarc delivers events concurrently and in no particular order).
A re-upload of a name is a new generation, hence a new event, as in GCS.

Delivery is **at least once**, never exactly once: an event whose request timed out after the
function did its work is sent again, and a restarted bridge sends an event for every object it
finds. The ingest function is idempotent, which is what makes this harmless. One difference from
GCS is inherent to polling: when a name is written twice between two polls, only the newer
generation is listed, so it gets one event where GCS would send two (ingest reads the object's
current bytes either way).

Retries: an Eventarc trigger retries only when its function is deployed with a retry policy, and
then for up to a day. The bridge chooses the middle: a connection failure, a timeout, a 429 or a
5xx answer (the function's "try again") is retried ``max_attempts`` times in all with exponential
backoff, then the event is dropped with a warning; a 4xx other than 429 is never retried (the event
itself is wrong, sending it again cannot help). Periods left unfinished that way are still
completed: every node uploads its own copy of each file (each one an event), and the sweep
retries pending periods.

Discovery: the emulator has no notifications, no paging and no ``startOffset``; a listing
serialises every object it returns as JSON, on a single-threaded server that serves no upload or
download meanwhile. A whole-bucket listing (a *sweep*) costs about 10 us of CPU per object, split
between the emulator and the bridge (``python -m bench.bucket_events_bench``), so sweeping every
0.05 s grew with the bucket until it took a large share of the emulator. A ``prefix`` listing
filters names before serialising and costs about 0.2 ms plus the objects it returns; ``matchGlob``
runs a regex per name and alternative, several times dearer than ``prefix`` for no gain here. So:

- a sweep is the only listing that sees every object, so it alone keeps the contract (no object
  missed, in any upload order, old names late included). Sweeps come every ``poll_interval`` while
  they find something, then twice as far apart after each one that found nothing, up to
  ``idle_poll_interval``; and never closer than ``LISTING_DUTY_FACTOR`` times the CPU the last sweep
  cost, so that a large bucket cannot make the bridge the emulator's main client;
- between sweeps, every ``poll_interval``, *probes* list the ``probe_folders`` folders (``prefix``)
  where new objects appeared most recently: uploads keep coming to the same folders (a node writes
  its next files where it wrote the last ones), so a probe sees the next upload at a fraction of a
  sweep's cost, and whatever it finds brings the sweeps back to their fast cadence at once. A probe
  guesses where to look; a name it does not cover waits for the next sweep, at most
  ``idle_poll_interval`` away. One folder by default: a request costs about 1 ms of CPU whatever
  it returns, and a period of 30 nodes lands in 60 folders, shuffled, which a few probes cannot
  foresee; in the bench one probe took the median upload-to-event delay from 0.11 s (no probes) to
  that of sweeping every poll (0.08 s), three cost more and bought nothing.

A probe of only the names after the newest of each folder would return less, but the emulator has
no ``startOffset``, one ``prefix`` request per folder costs its fixed price each, and a ``matchGlob``
(one request for every folder) runs a regex per name and alternative, about as dear as a sweep.

Every listing, sweep or probe, goes through one :class:`NewObjectTracker`, which decides on
``(name, generation)``: an object found by a probe is not announced again by the sweep that lists it
next, nor the other way round.

The pure parts (:func:`parse_bucket_object`, :func:`finalized_event`, :class:`NewObjectTracker`,
:class:`DiscoverySchedule`, :class:`RecentFolders`) hold the decisions and are unit tested without a
network.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import quote

import requests

from hedera_history.errors import BridgeRunningError, ConfigError, SourceError, SourceUnavailableError
from hedera_history.logs import event
from hedera_history.transport.http_sessions import ThreadSessions

logger = logging.getLogger(__name__)

FINALIZED_EVENT_TYPE = "google.cloud.storage.object.v1.finalized"
CLOUD_EVENT_SPEC_VERSION = "1.0"
DEFAULT_POLL_INTERVAL_SECONDS = 0.2
DEFAULT_IDLE_POLL_INTERVAL_SECONDS = 0.5
"""The longest wait between two sweeps: how late an object no probe covers can be announced."""
DEFAULT_PROBE_FOLDERS = 1
LISTING_DUTY_FACTOR = 4.0
"""A sweep waits at least this many times the CPU the last one cost the bridge (the emulator spends about as
much): sweeps take at most about a fifth of the emulator's time."""
DEFAULT_DELIVERY_WORKERS = 4
DEFAULT_MAX_ATTEMPTS = 4
DEFAULT_FIRST_BACKOFF_SECONDS = 0.5
DEFAULT_REQUEST_TIMEOUT_SECONDS = 300.0
"""The ingest function's own timeout (``deploy.catalogue.INGEST``): an answer may take that long."""
LISTING_TIMEOUT_SECONDS = 10.0
_DEFAULT_CONTENT_TYPE = "application/octet-stream"


@dataclass(frozen=True, slots=True)
class BucketObject:
    """One object of a listing: the identity the bridge tracks, and the resource sent as event data."""

    bucket: str
    name: str
    generation: int
    resource: Mapping[str, Any]
    """The object resource as the JSON API lists it (``generation``, ``size``... as strings)."""


def parse_bucket_object(resource: Mapping[str, Any], bucket: str) -> BucketObject:
    """A listed object resource; :class:`SourceError` when it has no name or generation."""
    name = resource.get("name")
    generation = resource.get("generation")
    if not isinstance(name, str) or not name:
        raise SourceError(f"a listed object of bucket {bucket} has no name: {dict(resource)!r:.200}")
    try:
        number = int(str(generation))
    except ValueError as e:
        raise SourceError(f"object {name} of bucket {bucket} has no valid generation: {generation!r}") from e
    return BucketObject(str(resource.get("bucket") or bucket), name, number, resource)


def event_id(bucket: str, name: str, generation: int) -> str:
    """A deterministic CloudEvent id: a retried delivery of one event carries the same id, as Eventarc's do."""
    digest = hashlib.sha256(f"{bucket}\0{name}\0{generation}".encode()).hexdigest()
    return str(int(digest[:15], 16))


def finalized_event(obj: BucketObject) -> tuple[dict[str, str], bytes]:
    """Headers and body of the binary-mode HTTP request Eventarc sends when ``obj`` is finalized.

    The body is the object resource (JSON API field names; 64-bit numbers as strings), with every
    field the trigger documents present: ``bucket``, ``name``, ``generation``, ``metageneration``,
    ``size``, ``contentType``, ``timeCreated``, ``updated``.
    """
    data: dict[str, Any] = dict(obj.resource)
    data["kind"] = data.get("kind", "storage#object")
    data["bucket"] = obj.bucket
    data["name"] = obj.name
    data["generation"] = str(obj.generation)
    data["id"] = data.get("id", f"{obj.bucket}/{obj.name}/{obj.generation}")
    data["metageneration"] = str(data.get("metageneration", "1"))
    data["size"] = str(data.get("size", "0"))
    data["contentType"] = data.get("contentType") or _DEFAULT_CONTENT_TYPE
    created = str(data.get("timeCreated") or data.get("updated") or "")
    data["timeCreated"] = created
    data["updated"] = str(data.get("updated") or created)
    headers = {
        "ce-id": event_id(obj.bucket, obj.name, obj.generation),
        "ce-source": f"//storage.googleapis.com/projects/_/buckets/{obj.bucket}",
        "ce-subject": f"objects/{obj.name}",
        "ce-type": FINALIZED_EVENT_TYPE,
        "ce-specversion": CLOUD_EVENT_SPEC_VERSION,
        "ce-time": data["updated"],
        "Content-Type": "application/json; charset=utf-8",
    }
    return headers, _json_bytes(data)


class NewObjectTracker:
    """Which listed objects have not had an event yet: one per ``(name, generation)``.

    Only the newest generation of a name is remembered (a listing shows no other), so memory grows
    with the number of names, not of uploads.
    """

    def __init__(self) -> None:
        self._generations: dict[str, int] = {}

    def new_objects(self, listing: Iterable[BucketObject]) -> list[BucketObject]:
        """The objects of ``listing`` not seen before at their generation; they count as seen now."""
        fresh: list[BucketObject] = []
        for obj in listing:
            if self._generations.get(obj.name) != obj.generation:
                self._generations[obj.name] = obj.generation
                fresh.append(obj)
        return fresh

    def __len__(self) -> int:
        return len(self._generations)


class RecentFolders:
    """The folders where new objects appeared most recently, newest first: where probes look.

    An object at the bucket's root has no folder a ``prefix`` could narrow down; only sweeps see it.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._folders: OrderedDict[str, None] = OrderedDict()

    def note(self, objects: Iterable[BucketObject]) -> None:
        if self.capacity < 1:
            return
        for obj in objects:
            folder, slash, _ = obj.name.rpartition("/")
            if not slash:
                continue
            prefix = folder + slash
            self._folders[prefix] = None
            self._folders.move_to_end(prefix)
        while len(self._folders) > self.capacity:
            self._folders.popitem(last=False)

    def prefixes(self) -> list[str]:
        return list(reversed(self._folders))


@dataclass(frozen=True, slots=True)
class DiscoveryShape:
    """How a bridge discovers new objects (see Discovery in the module docstring)."""

    idle_poll_interval: float = DEFAULT_IDLE_POLL_INTERVAL_SECONDS
    """The longest wait between sweeps (never shorter than the bridge's ``poll_interval``)."""
    probe_folders: int = DEFAULT_PROBE_FOLDERS
    listing_duty_factor: float = LISTING_DUTY_FACTOR

    @classmethod
    def sweep_every_poll(cls) -> DiscoveryShape:
        """A sweep every ``poll_interval`` and no probes: the bridge's former behaviour (benchmarks)."""
        return cls(idle_poll_interval=0.0, probe_folders=0, listing_duty_factor=0.0)


class DiscoverySchedule:
    """When the next sweep is due (see Discovery in the module docstring); times on one monotonic clock."""

    def __init__(self, fast: float, idle: float, duty_factor: float = LISTING_DUTY_FACTOR) -> None:
        if fast < 0 or idle < fast or duty_factor < 0:
            raise ConfigError(f"poll intervals need 0 <= fast <= idle and duty >= 0, got {fast}, {idle}, {duty_factor}")
        self.fast = fast
        self.idle = idle
        self.duty_factor = duty_factor
        self.interval = fast
        """The current wait between sweeps, before the duty bound."""
        self.next_sweep_at = float("-inf")

    def sweep_due(self, now: float) -> bool:
        return now >= self.next_sweep_at

    def after_sweep(self, finished: float, found: int, took: float) -> None:
        """A sweep that cost ``took`` seconds of CPU ended at ``finished`` and found ``found`` new objects."""
        self.interval = self.fast if found else min(self.idle, max(self.fast, self.interval * 2))
        self.next_sweep_at = finished + max(self.interval, self.duty_factor * took)

    def after_probe(self, found: int) -> None:
        """Probes found ``found`` new objects: more are on their way, sweep now and often again."""
        if found:
            self.interval = self.fast
            self.next_sweep_at = float("-inf")

    def restart(self) -> None:
        """Sweep at once (a started bridge lists everything first)."""
        self.interval = self.fast
        self.next_sweep_at = float("-inf")


def should_retry(status: int | None) -> bool:
    """True for no answer (None), 429 and 5xx: what a function answers when trying again may help."""
    return status is None or status == 429 or status >= 500


def backoff_seconds(attempt: int, first: float = DEFAULT_FIRST_BACKOFF_SECONDS) -> float:
    """The pause after failed attempt number ``attempt`` (1-based): first, 2 x first, 4 x first..."""
    return float(first * 2 ** (attempt - 1))


class BucketLister(Protocol):
    def list_objects(self, prefix: str = "") -> list[BucketObject]:
        """Every object of the bucket whose name starts with ``prefix``; :class:`SourceError` when
        the listing fails."""
        ...


class JsonApiBucketLister:
    """Lists a bucket through the GCS JSON API (the emulator speaks it), page by page."""

    def __init__(self, endpoint: str, bucket: str, *, timeout: float = LISTING_TIMEOUT_SECONDS) -> None:
        """``endpoint``: ``http://host:port`` of the emulator (``STORAGE_EMULATOR_HOST``)."""
        self.url = f"{endpoint.rstrip('/')}/storage/v1/b/{quote(bucket, safe='')}/o"
        self.bucket = bucket
        self.timeout = timeout
        self._session = requests.Session()

    def list_objects(self, prefix: str = "") -> list[BucketObject]:
        return list(self._objects(prefix))

    def _objects(self, prefix: str) -> Iterator[BucketObject]:
        token: str | None = None
        while True:
            params = {"prefix": prefix} if prefix else {}
            if token:
                params["pageToken"] = token
            try:
                response = self._session.get(self.url, params=params, timeout=self.timeout)
            except requests.RequestException as e:
                raise SourceUnavailableError(f"cannot list bucket {self.bucket}: {e}") from e
            if response.status_code != 200:
                error = SourceUnavailableError if should_retry(response.status_code) else SourceError
                raise error(f"listing bucket {self.bucket} answered HTTP {response.status_code}")
            try:
                page = response.json()
            except ValueError as e:
                raise SourceError(f"listing bucket {self.bucket} did not answer JSON") from e
            for item in page.get("items", ()):
                yield parse_bucket_object(item, self.bucket)
            token = page.get("nextPageToken")
            if not token:
                return

    def close(self) -> None:
        self._session.close()


@dataclass(frozen=True, slots=True)
class EventStats:
    sent: int
    """Events the endpoint answered with a 2xx."""
    retried: int
    """Attempts that failed and were tried again."""
    dropped: int
    """Events given up on (attempts exhausted, or a 4xx)."""
    objects: int
    """Distinct object names seen."""
    sweeps: int = 0
    """Whole-bucket listings."""
    probes: int = 0
    """Listings of one recently active folder."""


class GcsEventBridge:
    """Polls a bucket and delivers a finalize CloudEvent per new object generation to ``endpoint``."""

    def __init__(
        self,
        lister: BucketLister,
        endpoint: str,
        *,
        poll_interval: float = DEFAULT_POLL_INTERVAL_SECONDS,
        discovery: DiscoveryShape | None = None,
        workers: int = DEFAULT_DELIVERY_WORKERS,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        first_backoff: float = DEFAULT_FIRST_BACKOFF_SECONDS,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT_SECONDS,
    ) -> None:
        """``discovery``: how sweeps back off and where probes look (default :class:`DiscoveryShape`)."""
        if workers < 1 or max_attempts < 1:
            raise ConfigError(f"workers and max_attempts must be at least 1, got {workers} and {max_attempts}")
        self.lister = lister
        self.endpoint = endpoint
        self.poll_interval = poll_interval
        shape = discovery or DiscoveryShape()
        idle = max(poll_interval, shape.idle_poll_interval)
        self._schedule = DiscoverySchedule(poll_interval, idle, shape.listing_duty_factor)
        self._recent_folders = RecentFolders(shape.probe_folders)
        self._sweeps = self._probes = 0
        self.workers = workers
        self.max_attempts = max_attempts
        self.first_backoff = first_backoff
        self.request_timeout = request_timeout
        self._tracker = NewObjectTracker()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._sessions = ThreadSessions()
        self._lock = threading.Lock()
        self._sent = self._retried = self._dropped = 0
        self._listing_failing = False

    def start(self) -> GcsEventBridge:
        if self._thread is not None:
            raise BridgeRunningError("the bucket event bridge is already running")
        self._stopping.clear()
        self._schedule.restart()
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=self.workers, thread_name_prefix="gcs-events"
        )
        self._thread = threading.Thread(target=self._poll_forever, name="gcs-events-poll", daemon=True)
        self._thread.start()
        event(logger, "bucket event bridge started", endpoint=self.endpoint, poll_interval=self.poll_interval)
        return self

    def poll_once(self) -> int:
        """Sweep: list the whole bucket and queue an event for each new generation; returns how many."""
        found = self._announce(self.lister.list_objects())
        with self._lock:
            self._sweeps += 1
        return found

    def probe_once(self) -> int:
        """List the recently active folders and queue an event for each new generation; returns how many."""
        found = 0
        for prefix in self._recent_folders.prefixes():
            found += self._announce(self.lister.list_objects(prefix))
            with self._lock:
                self._probes += 1
        return found

    def _announce(self, listing: Iterable[BucketObject]) -> int:
        if self._executor is None:
            raise BridgeRunningError("the bucket event bridge is not started")
        fresh = self._tracker.new_objects(listing)
        for obj in fresh:
            self._executor.submit(self._deliver, obj)
        self._recent_folders.note(fresh)
        return len(fresh)

    def stop(self, timeout: float = 30.0) -> None:
        """Stop polling, finish the deliveries in flight and drop the queued ones."""
        self._stopping.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout)
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
        self._sessions.close_all()
        event(logger, "bucket event bridge stopped", **self._stats_fields())

    def stats(self) -> EventStats:
        with self._lock:
            return EventStats(self._sent, self._retried, self._dropped, len(self._tracker), self._sweeps, self._probes)

    def __enter__(self) -> GcsEventBridge:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _poll_forever(self) -> None:
        while not self._stopping.is_set():
            try:
                self._discover()
                if self._listing_failing:
                    event(logger, "bucket listing works again")
                self._listing_failing = False
            except SourceError as e:
                if not self._listing_failing:  # say it once, not five times a second
                    event(logger, "bucket listing failed", logging.WARNING, error=str(e))
                self._listing_failing = True
            except RuntimeError:
                return  # stopped between the check and the submit
            if not self._schedule.sweep_due(time.monotonic()):
                self._stopping.wait(self.poll_interval)

    def _discover(self) -> None:
        """One step: the sweep when it is due, else the probes (which may make it due at once)."""
        if self._schedule.sweep_due(time.monotonic()):
            found = 0
            # The sweep's CPU in this thread (parsing the listing, about what the emulator spent
            # writing it), not its wall time: that also counts the wait behind uploads the
            # single-threaded emulator serves first, and would slow the sweeps when they matter.
            cpu_before = time.thread_time()
            try:
                found = self.poll_once()
            finally:  # a failed sweep counts as one that found nothing: the next one backs off
                took = time.thread_time() - cpu_before
                self._schedule.after_sweep(time.monotonic(), found, took)
        else:
            self._schedule.after_probe(self.probe_once())

    def _deliver(self, obj: BucketObject) -> None:
        headers, body = finalized_event(obj)
        for attempt in range(1, self.max_attempts + 1):
            status, error = self._post(headers, body)
            if status is not None and 200 <= status < 300:
                with self._lock:
                    self._sent += 1
                return
            retry = should_retry(status) and attempt < self.max_attempts and not self._stopping.is_set()
            event(
                logger,
                "bucket event delivery failed",
                logging.WARNING,
                object=obj.name,
                generation=obj.generation,
                attempt=attempt,
                status=status,
                error=error,
                retrying=retry,
            )
            if not retry:
                break
            with self._lock:
                self._retried += 1
            if self._stopping.wait(backoff_seconds(attempt, self.first_backoff)):
                break
        with self._lock:
            self._dropped += 1

    def _post(self, headers: Mapping[str, str], body: bytes) -> tuple[int | None, str]:
        try:
            response = self._sessions.post(
                self.endpoint, data=body, headers=dict(headers), timeout=self.request_timeout
            )
        except requests.RequestException as e:
            return None, repr(e)
        status = response.status_code
        response.close()
        return status, ""

    def _stats_fields(self) -> dict[str, int]:
        stats = self.stats()
        return {
            "sent": stats.sent,
            "retried": stats.retried,
            "dropped": stats.dropped,
            "objects": stats.objects,
            "sweeps": stats.sweeps,
            "probes": stats.probes,
        }


def _json_bytes(data: Mapping[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":"), sort_keys=True).encode()
