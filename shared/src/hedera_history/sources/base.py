"""One interface for reading (and writing) stream files wherever they are: gs://, s3:// or a directory.

A source is rooted at a URL (``gs://bucket/prefix``); every name it takes or returns is relative to
that root and uses ``/`` as separator, so callers never see which store they read. Listings come in
lexicographic name order, as both clouds return them.

Errors: :class:`ObjectNotFoundError` when the object is missing (try another node's copy),
:class:`SourceUnavailableError` (transient) when the store did not answer or answered with a
retryable status, :class:`ObjectTooLargeError` past the caller's read limit, :class:`SourceError`
for the rest (permissions, a missing bucket).
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from hedera_history.errors import ConfigError

if TYPE_CHECKING:
    from hedera_history.config import Settings

DEFAULT_MAX_OBJECT_BYTES = 256 * 1024 * 1024
"""Default read limit; stream files are far smaller, so hitting it means something is wrong."""
# HTTP answers that say "try again" from either object store (timeouts, throttling, server errors).
RETRYABLE_HTTP_STATUS = frozenset({408, 429, 500, 502, 503, 504})

SCHEMES = ("gs", "s3", "file")


@dataclass(frozen=True)
class ObjectInfo:
    """One listed object."""

    name: str
    """Relative to the source's root."""
    size: int
    version: str
    """GCS generation, S3 ETag (without quotes) or local modification time in ns."""
    updated: datetime | None


class ObjectSource(Protocol):
    @property
    def url(self) -> str:
        """The root, as a URL (for logs and error messages)."""
        ...

    def list(
        self, prefix: str = "", *, delimiter: str | None = None, start_after: str | None = None
    ) -> Iterator[ObjectInfo]:
        """Objects whose name starts with ``prefix``; with a delimiter, only those with no delimiter
        after the prefix (the folders themselves come from :meth:`list_prefixes`); with
        ``start_after`` (a name relative to the root, as returned), only names strictly after it
        (how a follower lists what is new in a folder without listing it all again)."""
        ...

    def list_prefixes(self, prefix: str = "") -> builtins.list[str]:
        """The folders directly under ``prefix``, each ending in ``/`` (e.g. node folders)."""
        ...

    def read(self, name: str, *, max_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> bytes:
        """The object's bytes as stored; :class:`ObjectTooLargeError` past ``max_bytes``."""
        ...

    def exists(self, name: str) -> bool: ...


class PassThroughSource:
    """An :class:`ObjectSource` in front of another: everything passes through to ``inner``;
    a subclass changes only what it is for (counting, caching)."""

    def __init__(self, inner: ObjectSource) -> None:
        self.inner = inner

    @property
    def url(self) -> str:
        return self.inner.url

    def list(
        self, prefix: str = "", *, delimiter: str | None = None, start_after: str | None = None
    ) -> Iterator[ObjectInfo]:
        return self.inner.list(prefix, delimiter=delimiter, start_after=start_after)

    def list_prefixes(self, prefix: str = "") -> builtins.list[str]:
        return self.inner.list_prefixes(prefix)

    def read(self, name: str, *, max_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> bytes:
        return self.inner.read(name, max_bytes=max_bytes)

    def exists(self, name: str) -> bool:
        return self.inner.exists(name)


class ObjectSink(Protocol):
    @property
    def url(self) -> str: ...

    def write(self, name: str, data: bytes) -> None:
        """Create or replace the object ``name`` (relative to the root) with ``data``."""
        ...

    def create(self, name: str, data: bytes) -> bool:
        """Create the object ``name`` with ``data`` unless it exists; False when it did (it is left
        as it was). Needs no right to replace or delete: quarantine copies are written so."""
        ...


@dataclass(frozen=True)
class SourceUrl:
    scheme: str
    """``gs``, ``s3`` or ``file``."""
    bucket: str
    """Bucket name; empty for ``file``."""
    prefix: str
    """For buckets: the root folder, empty or ending in ``/``. For ``file``: the directory path."""


def parse_url(url: str) -> SourceUrl:
    """Split ``gs://bucket/prefix``, ``s3://bucket/prefix``, ``file:///dir`` or a plain path."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        if not url:
            raise ConfigError("empty source URL")
        return SourceUrl("file", "", url)
    if scheme not in SCHEMES:
        raise ConfigError(f"unsupported source URL {url!r}: expected gs://, s3://, file:// or a path")
    if scheme == "file":
        if not rest.startswith("/"):
            raise ConfigError(f"file URL {url!r} must hold an absolute path (file:///dir)")
        return SourceUrl("file", "", rest)
    bucket, _, prefix = rest.partition("/")
    if not bucket:
        raise ConfigError(f"source URL {url!r} names no bucket")
    return SourceUrl(scheme, bucket, normalize_prefix(prefix))


def normalize_prefix(prefix: str) -> str:
    """A root folder inside a bucket: no leading ``/``, a trailing ``/`` unless empty."""
    prefix = prefix.lstrip("/")
    return prefix if not prefix or prefix.endswith("/") else prefix + "/"


def split_delimited(rest: str, delimiter: str | None) -> str | None:
    """For a name's part after the listing prefix: the folder part up to and including the
    delimiter when there is one, else None (the object is listed itself)."""
    if not delimiter:
        return None
    head, sep, _ = rest.partition(delimiter)
    return head + sep if sep else None


def open_source(url: str, settings: Settings) -> ObjectSource:
    """The source for ``url``; no client is created until the first call."""
    # Imported here so that a caller of one kind of source never loads the other clients
    # (boto3 and google-cloud-storage each add a noticeable cold start).
    parsed = parse_url(url)
    if parsed.scheme == "gs":
        from hedera_history.sources.gcs import GcsSource  # noqa: PLC0415

        return GcsSource.from_settings(parsed.bucket, parsed.prefix, settings)
    if parsed.scheme == "s3":
        from hedera_history.sources.s3 import S3Source  # noqa: PLC0415

        return S3Source.from_settings(parsed.bucket, parsed.prefix, settings)
    from hedera_history.sources.local import LocalSource  # noqa: PLC0415

    return LocalSource(parsed.prefix)


def open_sink(url: str, settings: Settings) -> ObjectSink:
    """A writer for ``gs://bucket/prefix``, ``s3://bucket/prefix`` or a local directory."""
    parsed = parse_url(url)
    if parsed.scheme == "gs":
        from hedera_history.sources.gcs import GcsSink  # noqa: PLC0415

        return GcsSink.from_settings(parsed.bucket, parsed.prefix, settings)
    if parsed.scheme == "s3":
        from hedera_history.sources.s3 import S3Sink  # noqa: PLC0415

        return S3Sink.from_settings(parsed.bucket, parsed.prefix, settings)
    from hedera_history.sources.local import LocalSink  # noqa: PLC0415

    return LocalSink(parsed.prefix)
