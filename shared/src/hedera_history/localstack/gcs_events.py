"""The bucket-to-CloudEvent bridge: Eventarc's ``object.v1.finalized`` trigger for a bucket on the GCS emulator.

The emulator has no notifications, so :class:`GcsEventBridge` polls the bucket listing (every
``poll_interval`` seconds) and POSTs one binary-mode CloudEvent per new ``(name, generation)`` to
the ingest function, from a small pool of threads (Eventarc delivers events concurrently and in
no particular order). A re-upload of a name is a new generation, hence a new event, as in GCS.

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

The pure parts (:func:`parse_bucket_object`, :func:`finalized_event`, :class:`NewObjectTracker`)
hold the decisions and are unit tested without a network.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import logging
import threading
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


def should_retry(status: int | None) -> bool:
    """True for no answer (None), 429 and 5xx: what a function answers when trying again may help."""
    return status is None or status == 429 or status >= 500


def backoff_seconds(attempt: int, first: float = DEFAULT_FIRST_BACKOFF_SECONDS) -> float:
    """The pause after failed attempt number ``attempt`` (1-based): first, 2 x first, 4 x first..."""
    return float(first * 2 ** (attempt - 1))


class BucketLister(Protocol):
    def list_objects(self) -> list[BucketObject]:
        """Every object of the bucket; :class:`SourceError` when the listing fails."""
        ...


class JsonApiBucketLister:
    """Lists a bucket through the GCS JSON API (the emulator speaks it), page by page."""

    def __init__(self, endpoint: str, bucket: str, *, timeout: float = LISTING_TIMEOUT_SECONDS) -> None:
        """``endpoint``: ``http://host:port`` of the emulator (``STORAGE_EMULATOR_HOST``)."""
        self.url = f"{endpoint.rstrip('/')}/storage/v1/b/{quote(bucket, safe='')}/o"
        self.bucket = bucket
        self.timeout = timeout
        self._session = requests.Session()

    def list_objects(self) -> list[BucketObject]:
        return list(self._objects())

    def _objects(self) -> Iterator[BucketObject]:
        token: str | None = None
        while True:
            params = {"pageToken": token} if token else {}
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


class GcsEventBridge:
    """Polls a bucket and delivers a finalize CloudEvent per new object generation to ``endpoint``."""

    def __init__(
        self,
        lister: BucketLister,
        endpoint: str,
        *,
        poll_interval: float = DEFAULT_POLL_INTERVAL_SECONDS,
        workers: int = DEFAULT_DELIVERY_WORKERS,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        first_backoff: float = DEFAULT_FIRST_BACKOFF_SECONDS,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT_SECONDS,
    ) -> None:
        if workers < 1 or max_attempts < 1:
            raise ConfigError(f"workers and max_attempts must be at least 1, got {workers} and {max_attempts}")
        self.lister = lister
        self.endpoint = endpoint
        self.poll_interval = poll_interval
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
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=self.workers, thread_name_prefix="gcs-events"
        )
        self._thread = threading.Thread(target=self._poll_forever, name="gcs-events-poll", daemon=True)
        self._thread.start()
        event(logger, "bucket event bridge started", endpoint=self.endpoint, poll_interval=self.poll_interval)
        return self

    def poll_once(self) -> int:
        """List the bucket once and queue an event for each new generation; returns how many."""
        if self._executor is None:
            raise BridgeRunningError("the bucket event bridge is not started")
        fresh = self._tracker.new_objects(self.lister.list_objects())
        for obj in fresh:
            self._executor.submit(self._deliver, obj)
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
            return EventStats(self._sent, self._retried, self._dropped, len(self._tracker))

    def __enter__(self) -> GcsEventBridge:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _poll_forever(self) -> None:
        while not self._stopping.is_set():
            try:
                self.poll_once()
                if self._listing_failing:
                    event(logger, "bucket listing works again")
                self._listing_failing = False
            except SourceError as e:
                if not self._listing_failing:  # say it once, not five times a second
                    event(logger, "bucket listing failed", logging.WARNING, error=str(e))
                self._listing_failing = True
            except RuntimeError:
                return  # stopped between the check and the submit
            self._stopping.wait(self.poll_interval)

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
            response = self._sessions.get().post(
                self.endpoint, data=body, headers=dict(headers), timeout=self.request_timeout
            )
        except requests.RequestException as e:
            return None, repr(e)
        status = response.status_code
        response.close()
        return status, ""

    def _stats_fields(self) -> dict[str, int]:
        stats = self.stats()
        return {"sent": stats.sent, "retried": stats.retried, "dropped": stats.dropped, "objects": stats.objects}


def _json_bytes(data: Mapping[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":"), sort_keys=True).encode()
