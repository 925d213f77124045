"""Amazon S3 (or an S3-compatible server such as moto) through boto3: :class:`S3Source` reads,
:class:`S3Sink` writes.

Requester-pays buckets (Hedera's public stream buckets are) need ``requester_pays``: every request
then carries ``RequestPayer=requester``. Public buckets can be read unsigned (``anonymous``).
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import boto3
from botocore import UNSIGNED
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    HTTPClientError,
    IncompleteReadError,
)
from botocore.exceptions import ConnectionError as BotoConnectionError

from hedera_history.errors import ObjectNotFoundError, ObjectTooLargeError, SourceError, SourceUnavailableError
from hedera_history.sources.base import DEFAULT_MAX_OBJECT_BYTES, RETRYABLE_HTTP_STATUS, ObjectInfo, normalize_prefix

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client

    from hedera_history.config import Settings

# S3 answers a stalled upload or download with 400 and this code; trying again is the remedy.
_RETRYABLE_CODES = frozenset({"RequestTimeout", "SlowDown", "Throttling", "ThrottlingException"})
_NOT_FOUND_STATUS = 404
_PRECONDITION_FAILED = 412


class S3Source:
    """Objects under ``s3://bucket/prefix``."""

    def __init__(
        self,
        bucket: str,
        prefix: str = "",
        *,
        endpoint_url: str | None = None,
        region: str = "us-east-1",
        requester_pays: bool = False,
        anonymous: bool = False,
        timeout: float = 60.0,
        client: S3Client | None = None,
    ) -> None:
        """``endpoint_url``: an S3-compatible server (None: AWS). ``timeout``: the longest one HTTP
        attempt may wait for an answer (boto3 retries a few times on its own)."""
        self.bucket = bucket
        self.root = normalize_prefix(prefix)
        self.endpoint_url = endpoint_url or None
        self.region = region
        self.anonymous = anonymous
        self.timeout = timeout
        self._payer: dict[str, Any] = {"RequestPayer": "requester"} if requester_pays else {}
        self._client = client
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, bucket: str, prefix: str, settings: Settings) -> S3Source:
        return cls(
            bucket,
            prefix,
            endpoint_url=settings.s3_endpoint_url or None,
            region=settings.s3_region,
            requester_pays=settings.s3_requester_pays,
            anonymous=settings.s3_anonymous,
            timeout=settings.source_timeout_seconds,
        )

    @property
    def url(self) -> str:
        return f"s3://{self.bucket}/{self.root}"

    @property
    def payer(self) -> dict[str, Any]:
        """``RequestPayer`` for every call when the bucket is requester pays."""
        return dict(self._payer)

    @property
    def client(self) -> S3Client:
        with self._lock:
            if self._client is None:
                config = Config(
                    region_name=self.region,
                    connect_timeout=min(self.timeout, 10.0),
                    read_timeout=self.timeout,
                    retries={"mode": "standard", "max_attempts": 3},
                    signature_version=UNSIGNED if self.anonymous else None,
                )
                self._client = boto3.session.Session().client("s3", endpoint_url=self.endpoint_url, config=config)
            return self._client

    def list(
        self, prefix: str = "", *, delimiter: str | None = None, start_after: str | None = None
    ) -> Iterator[ObjectInfo]:
        extra: dict[str, Any] = {"Delimiter": delimiter} if delimiter else {}
        if start_after is not None:
            extra["StartAfter"] = self.root + start_after  # exclusive, as ours
        try:
            pages = self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=self.root + prefix, **extra, **self._payer
            )
            for page in pages:
                for item in page.get("Contents", []):
                    yield ObjectInfo(
                        name=item["Key"][len(self.root) :],
                        size=item["Size"],
                        version=item["ETag"].strip('"'),
                        updated=item["LastModified"],
                    )
        except (BotoCoreError, ClientError) as e:
            raise _source_error(e, self.url + prefix, missing_object=False) from e

    def list_prefixes(self, prefix: str = "") -> builtins.list[str]:
        found: builtins.list[str] = []
        try:
            pages = self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=self.root + prefix, Delimiter="/", **self._payer
            )
            for page in pages:
                found.extend(p["Prefix"][len(self.root) :] for p in page.get("CommonPrefixes", []))
        except (BotoCoreError, ClientError) as e:
            raise _source_error(e, self.url + prefix, missing_object=False) from e
        return sorted(found)

    def read(self, name: str, *, max_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> bytes:
        where = self.url + name
        try:
            response = self.client.get_object(Bucket=self.bucket, Key=self.root + name, **self._payer)
            body = response["Body"]
            if response["ContentLength"] > max_bytes:
                body.close()  # drops the connection instead of downloading what we would refuse
                raise ObjectTooLargeError(f"object is larger than {max_bytes} bytes", file=where)
            with body:
                data = body.read(max_bytes + 1)
        except (BotoCoreError, ClientError) as e:
            raise _source_error(e, where, missing_object=True) from e
        if len(data) > max_bytes:
            raise ObjectTooLargeError(f"object is larger than {max_bytes} bytes", file=where)
        return data

    def exists(self, name: str) -> bool:
        try:
            self.client.head_object(Bucket=self.bucket, Key=self.root + name, **self._payer)
        except ClientError as e:
            if _http_status(e) == _NOT_FOUND_STATUS:
                return False
            raise _source_error(e, self.url + name, missing_object=False) from e
        except BotoCoreError as e:
            raise _source_error(e, self.url + name, missing_object=False) from e
        return True


def _source_error(error: BotoCoreError | ClientError, where: str, *, missing_object: bool) -> SourceError:
    if isinstance(error, ClientError):
        status = _http_status(error)
        code = error.response.get("Error", {}).get("Code", "")
        if status == _NOT_FOUND_STATUS:
            if missing_object and code != "NoSuchBucket":
                return ObjectNotFoundError("no such object", file=where)
            return SourceError(f"not found: {code}", file=where)
        if status in RETRYABLE_HTTP_STATUS or code in _RETRYABLE_CODES:
            return SourceUnavailableError(f"S3 unavailable: {code} (HTTP {status})", file=where)
        return SourceError(f"S3 call failed: {code} (HTTP {status})", file=where)
    if isinstance(error, BotoConnectionError | HTTPClientError | IncompleteReadError):
        return SourceUnavailableError(f"S3 unreachable: {type(error).__name__}", file=where)
    return SourceError(f"S3 call failed: {type(error).__name__}", file=where)


def _http_status(error: ClientError) -> int | None:
    status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return status if isinstance(status, int) else None


class S3Sink:
    """Writes objects under ``s3://bucket/prefix`` (a generated network played into moto or S3)."""

    def __init__(self, source: S3Source) -> None:
        """Writes where ``source`` reads, with its client, endpoint and requester-pays flag."""
        self._source = source
        self._payer = source.payer
        self.bucket = source.bucket
        self.root = source.root

    @classmethod
    def from_settings(cls, bucket: str, prefix: str, settings: Settings) -> S3Sink:
        return cls(S3Source.from_settings(bucket, prefix, settings))

    @property
    def url(self) -> str:
        return f"s3://{self.bucket}/{self.root}"

    @property
    def client(self) -> S3Client:
        return self._source.client

    def write(self, name: str, data: bytes) -> None:
        try:
            self.client.put_object(Bucket=self.bucket, Key=self.root + name, Body=data, **self._payer)
        except (BotoCoreError, ClientError) as e:
            raise _source_error(e, self.url + name, missing_object=False) from e

    def create(self, name: str, data: bytes) -> bool:
        # A conditional put (If-None-Match: *): S3 refuses it with 412 when the name is taken, in
        # one request, so two writers racing for a name cannot both win. A retry of a put that did
        # land answers 412 too: the object is there.
        try:
            self.client.put_object(Bucket=self.bucket, Key=self.root + name, Body=data, IfNoneMatch="*", **self._payer)
        except ClientError as e:
            code = e.response.get("Error", {}).get("Code", "")
            if _http_status(e) == _PRECONDITION_FAILED or code == "PreconditionFailed":
                return False
            raise _source_error(e, self.url + name, missing_object=False) from e
        except BotoCoreError as e:
            raise _source_error(e, self.url + name, missing_object=False) from e
        return True
