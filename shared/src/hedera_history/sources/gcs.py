"""Google Cloud Storage through the official client: :class:`GcsSource` reads, :class:`GcsSink` writes.

The client is created on first use. With a storage emulator configured it talks to it with
anonymous credentials; with a requester-pays project every request names it (``userProject``).
"""

from __future__ import annotations

import builtins
import http.client
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Self

import requests
import urllib3
from google.api_core import exceptions as api_exceptions
from google.auth import exceptions as auth_exceptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import storage
from google.cloud.storage import exceptions as storage_exceptions
from google.cloud.storage.retry import DEFAULT_RETRY

from hedera_history.errors import ObjectNotFoundError, ObjectTooLargeError, SourceError, SourceUnavailableError
from hedera_history.sources.base import DEFAULT_MAX_OBJECT_BYTES, RETRYABLE_HTTP_STATUS, ObjectInfo, normalize_prefix

if TYPE_CHECKING:
    from hedera_history.config import Settings

# Everything the client stack raises on a failed call; anything else is a bug and propagates.
_CLIENT_ERRORS = (
    api_exceptions.GoogleAPIError,
    auth_exceptions.GoogleAuthError,
    storage_exceptions.InvalidResponse,
    storage_exceptions.DataCorruption,
    requests.RequestException,
    urllib3.exceptions.HTTPError,
    http.client.HTTPException,
    OSError,
)
_NETWORK_ERRORS = (
    requests.ConnectionError,
    requests.Timeout,
    requests.exceptions.ChunkedEncodingError,
    urllib3.exceptions.HTTPError,
    http.client.HTTPException,
    OSError,
)


class _Bucket:
    """A lazily created client and bucket handle, with the retry and timeout every call uses."""

    def __init__(
        self,
        bucket: str,
        prefix: str,
        *,
        project: str | None,
        user_project: str | None,
        emulator_host: str,
        timeout: float,
        client: storage.Client | None,
    ) -> None:
        self.name = bucket
        self.root = normalize_prefix(prefix)
        self.project = project
        self.user_project = user_project or None
        self.emulator_host = emulator_host
        self.timeout = timeout
        self.retry = DEFAULT_RETRY.with_timeout(timeout)
        self._client = client
        self._bucket: storage.Bucket | None = None
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"gs://{self.name}/{self.root}"

    def handle(self) -> storage.Bucket:
        with self._lock:
            if self._bucket is None:
                if self._client is None:
                    self._client = _new_client(self.project, self.emulator_host)
                self._bucket = self._client.bucket(self.name, user_project=self.user_project)
            return self._bucket

    def blob(self, name: str) -> storage.Blob:
        return self.handle().blob(self.root + name)

    def object_url(self, name: str) -> str:
        return f"gs://{self.name}/{self.root}{name}"


def _new_client(project: str | None, emulator_host: str) -> storage.Client:
    if emulator_host:
        endpoint = emulator_host if "://" in emulator_host else f"http://{emulator_host}"
        return storage.Client(
            project=project,
            credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
            client_options={"api_endpoint": endpoint},
        )
    return storage.Client(project=project)


class _BucketObjects:
    """Objects under ``gs://bucket/prefix``: what a source and a sink share."""

    def __init__(
        self,
        bucket: str,
        prefix: str = "",
        *,
        project: str | None = None,
        user_project: str | None = None,
        emulator_host: str = "",
        timeout: float = 60.0,
        client: storage.Client | None = None,
    ) -> None:
        """``user_project``: the project billed for a requester-pays bucket. ``timeout``: the most
        one call may take, retries included. ``client``: share one client between sources."""
        self._bucket = _Bucket(
            bucket,
            prefix,
            project=project,
            user_project=user_project,
            emulator_host=emulator_host,
            timeout=timeout,
            client=client,
        )

    bills_requester: ClassVar[bool] = False
    """Whether requests name the configured requester-pays project (reading the stream buckets)."""

    @classmethod
    def from_settings(cls, bucket: str, prefix: str, settings: Settings) -> Self:
        return cls(
            bucket,
            prefix,
            project=settings.project or None,
            user_project=(settings.requester_pays_project or None) if cls.bills_requester else None,
            emulator_host=settings.storage_emulator_host,
            timeout=settings.source_timeout_seconds,
        )

    @property
    def url(self) -> str:
        return self._bucket.url


class GcsSource(_BucketObjects):
    """Objects under ``gs://bucket/prefix``."""

    bills_requester = True

    def list(
        self, prefix: str = "", *, delimiter: str | None = None, start_after: str | None = None
    ) -> Iterator[ObjectInfo]:
        b = self._bucket
        # GCS's startOffset is inclusive: the name itself comes back first and is skipped here.
        offset = None if start_after is None else b.root + start_after
        try:
            blobs = b.handle().list_blobs(
                prefix=b.root + prefix,
                delimiter=delimiter,
                start_offset=offset,
                fields="items(name,size,generation,updated),prefixes,nextPageToken",
                retry=b.retry,
                timeout=b.timeout,
            )
            for blob in blobs:
                if offset is not None and blob.name <= offset:
                    continue
                yield ObjectInfo(
                    name=blob.name[len(b.root) :],
                    size=int(blob.size or 0),
                    version=str(blob.generation),
                    updated=blob.updated,
                )
        except _CLIENT_ERRORS as e:
            raise _source_error(e, b.url + prefix, missing_object=False) from e

    def list_prefixes(self, prefix: str = "") -> builtins.list[str]:
        b = self._bucket
        try:
            iterator = b.handle().list_blobs(
                prefix=b.root + prefix,
                delimiter="/",
                fields="prefixes,nextPageToken",
                retry=b.retry,
                timeout=b.timeout,
            )
            for _ in iterator:
                pass  # prefixes are collected as the pages go by
            prefixes: set[str] = iterator.prefixes
        except _CLIENT_ERRORS as e:
            raise _source_error(e, b.url + prefix, missing_object=False) from e
        return sorted(p[len(b.root) :] for p in prefixes)

    def read(self, name: str, *, max_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> bytes:
        b = self._bucket
        try:
            # One ranged request: one byte more than the limit tells a too-large object apart.
            # raw_download: the bytes as stored, never transcoded (the gzip is ours to open).
            data: bytes = b.blob(name).download_as_bytes(
                start=0, end=max_bytes, raw_download=True, retry=b.retry, timeout=b.timeout
            )
        except api_exceptions.RequestRangeNotSatisfiable:
            return b""  # every non-empty object satisfies a range starting at 0
        except _CLIENT_ERRORS as e:
            raise _source_error(e, b.object_url(name), missing_object=True) from e
        if len(data) > max_bytes:
            raise ObjectTooLargeError(f"object is larger than {max_bytes} bytes", file=b.object_url(name))
        return data

    def exists(self, name: str) -> bool:
        b = self._bucket
        try:
            found: bool = b.blob(name).exists(retry=b.retry, timeout=b.timeout)
        except _CLIENT_ERRORS as e:
            raise _source_error(e, b.object_url(name), missing_object=False) from e
        return found


class GcsSink(_BucketObjects):
    """Writes objects under ``gs://bucket/prefix`` (quarantine copies, stack uploads)."""

    def write(self, name: str, data: bytes) -> None:
        b = self._bucket
        try:
            # Always retried: writing the same bytes under the same name again is harmless.
            b.blob(name).upload_from_string(
                data, content_type="application/octet-stream", retry=b.retry, timeout=b.timeout
            )
        except _CLIENT_ERRORS as e:
            raise _source_error(e, b.object_url(name), missing_object=False) from e

    def create(self, name: str, data: bytes) -> bool:
        b = self._bucket
        try:
            # ifGenerationMatch=0: only when no live object has the name, so only objects.create is
            # needed. A retry after an upload that did land answers 412 too: the copy is there.
            b.blob(name).upload_from_string(
                data, content_type="application/octet-stream", if_generation_match=0, retry=b.retry, timeout=b.timeout
            )
        except api_exceptions.PreconditionFailed:
            return False
        except api_exceptions.Forbidden as e:
            # An identity without objects.delete may be refused for the name being taken (replacing
            # an object needs delete) rather than answered 412: the copy is there all the same.
            if "storage.objects.delete" in str(e):
                return False
            raise _source_error(e, b.object_url(name), missing_object=False) from e
        except _CLIENT_ERRORS as e:
            raise _source_error(e, b.object_url(name), missing_object=False) from e
        return True


def _source_error(error: BaseException, where: str, *, missing_object: bool) -> SourceError:
    """The project's error for a failed storage call; ``missing_object``: a 404 means the object
    (not the bucket) is missing."""
    if isinstance(error, api_exceptions.NotFound):
        if missing_object:
            return ObjectNotFoundError("no such object", file=where)
        return SourceError("bucket not found", file=where)
    if _is_transient(error):
        return SourceUnavailableError(f"storage unavailable: {type(error).__name__}", file=where)
    return SourceError(f"storage call failed: {type(error).__name__} {_status(error)}".rstrip(), file=where)


def _is_transient(error: BaseException) -> bool:
    if isinstance(error, api_exceptions.RetryError | storage_exceptions.DataCorruption):
        return True
    if isinstance(error, api_exceptions.GoogleAPICallError):
        return error.code in RETRYABLE_HTTP_STATUS
    if isinstance(error, storage_exceptions.InvalidResponse):
        return _response_status(error) in RETRYABLE_HTTP_STATUS
    if isinstance(error, auth_exceptions.TransportError):
        return True
    return isinstance(error, _NETWORK_ERRORS)


def _status(error: BaseException) -> str:
    code = getattr(error, "code", None)
    return f"(HTTP {code})" if isinstance(code, int) else ""


def _response_status(error: storage_exceptions.InvalidResponse) -> int | None:
    response: Any = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None
