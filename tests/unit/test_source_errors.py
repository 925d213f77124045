"""Failures of GCS and S3 calls map to the right error type (a stub server answers on loopback)."""

from __future__ import annotations

import functools
import json
from urllib.parse import parse_qs, urlparse

import boto3
import pytest
from botocore import UNSIGNED
from botocore.config import Config
from hedera_history.errors import (
    ObjectNotFoundError,
    SourceError,
    SourceUnavailableError,
    is_transient,
)
from hedera_history.localstack.ports import free_port
from hedera_history.sources.gcs import GcsSink, GcsSource
from hedera_history.sources.s3 import S3Source

from tests.http_recorder import RecordingServer, status


def _gcs(endpoint: str) -> GcsSource:
    return GcsSource("bucket", "root", project="p", emulator_host=endpoint, timeout=0.2)


@functools.cache
def _session() -> boto3.session.Session:
    return boto3.session.Session()


def _s3(endpoint: str) -> S3Source:
    # One attempt: boto3's own backoff on throttling would only slow the test down.
    config = Config(signature_version=UNSIGNED, retries={"mode": "standard", "max_attempts": 1})
    client = _session().client("s3", endpoint_url=endpoint, region_name="us-east-1", config=config)
    return S3Source("bucket", "root", client=client)


def _s3_error(code: int, name: str) -> RecordingServer:
    body = f"<?xml version='1.0'?><Error><Code>{name}</Code><Message>x</Message></Error>".encode()
    return RecordingServer(lambda _r: (code, body, {"Content-Type": "application/xml"}))


@pytest.mark.parametrize("code", [429, 500, 503])
def test_gcs_retryable_status_is_transient(code: int) -> None:
    with RecordingServer(status(code)) as server:
        with pytest.raises(SourceUnavailableError) as caught:
            _gcs(server.url).read("x.rcd.gz")
        with pytest.raises(SourceUnavailableError):
            list(_gcs(server.url).list("record0.0.3/"))
    assert is_transient(caught.value)
    assert caught.value.__cause__ is not None


def test_gcs_permission_denied_is_permanent() -> None:
    with RecordingServer(status(403)) as server:
        with pytest.raises(SourceError) as caught:
            _gcs(server.url).read("x.rcd.gz")
        downloads = [r for r in server.requests if r.path.startswith("/download/")]
        assert len(downloads) == 1  # not retried (the client may also fetch bucket metadata on its own)
    assert not is_transient(caught.value)
    assert not isinstance(caught.value, ObjectNotFoundError)


def test_gcs_404_is_a_missing_object_for_reads_and_a_missing_bucket_for_lists() -> None:
    with RecordingServer(status(404)) as server:
        with pytest.raises(ObjectNotFoundError):
            _gcs(server.url).read("x.rcd.gz")
        with pytest.raises(SourceError) as caught:
            _gcs(server.url).list_prefixes()
    assert not isinstance(caught.value, ObjectNotFoundError)


def test_gcs_unreachable_is_transient() -> None:
    with pytest.raises(SourceUnavailableError):
        _gcs(f"http://127.0.0.1:{free_port()}").read("x.rcd.gz")


@pytest.mark.parametrize(("code", "name"), [(503, "SlowDown"), (500, "InternalError"), (400, "RequestTimeout")])
def test_s3_retryable_answers_are_transient(code: int, name: str) -> None:
    with _s3_error(code, name) as server:
        with pytest.raises(SourceUnavailableError):
            _s3(server.url).read("x.rcd.gz")
        with pytest.raises(SourceUnavailableError):
            _s3(server.url).list_prefixes()


def test_s3_access_denied_is_permanent() -> None:
    with _s3_error(403, "AccessDenied") as server, pytest.raises(SourceError) as caught:
        _s3(server.url).read("x.rcd.gz")
    assert not is_transient(caught.value)


def test_s3_missing_key_and_missing_bucket() -> None:
    with _s3_error(404, "NoSuchKey") as server, pytest.raises(ObjectNotFoundError):
        _s3(server.url).read("x.rcd.gz")
    with _s3_error(404, "NoSuchBucket") as server, pytest.raises(SourceError) as caught:
        _s3(server.url).read("x.rcd.gz")
    assert not isinstance(caught.value, ObjectNotFoundError)


def test_s3_unreachable_is_transient() -> None:
    with pytest.raises(SourceUnavailableError):
        _s3(f"http://127.0.0.1:{free_port()}").read("x.rcd.gz")


def _gcs_sink(endpoint: str) -> GcsSink:
    return GcsSink("bucket", "quarantine/", project="p", emulator_host=endpoint, timeout=0.2)


def _json_error(code: int, message: str) -> RecordingServer:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    return RecordingServer(lambda _r: (code, body, {"Content-Type": "application/json"}))


def test_gcs_create_asks_for_a_new_object_only() -> None:
    answer = json.dumps({"name": "quarantine/x", "bucket": "bucket", "generation": "1"}).encode()
    with RecordingServer(lambda _r: (200, answer, {"Content-Type": "application/json"})) as server:
        assert _gcs_sink(server.url).create("x", b"data") is True
    uploads = [r for r in server.requests if r.path.startswith("/upload/")]
    assert len(uploads) == 1
    assert parse_qs(urlparse(uploads[0].path).query)["ifGenerationMatch"] == ["0"]


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (412, "At least one of the pre-conditions you specified did not hold."),
        (403, "sa@p.iam.gserviceaccount.com does not have storage.objects.delete access to the object."),
    ],
)
def test_gcs_create_of_a_taken_name_leaves_the_object(code: int, message: str) -> None:
    with _json_error(code, message) as server:
        assert _gcs_sink(server.url).create("x", b"data") is False


def test_gcs_create_without_create_permission_fails() -> None:
    denied = _json_error(403, "sa does not have storage.objects.create access to the bucket.")
    with denied as server, pytest.raises(SourceError):
        _gcs_sink(server.url).create("x", b"data")
