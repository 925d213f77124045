"""S3Source against moto's S3 server."""

from __future__ import annotations

from typing import Any

import pytest
from hedera_history.config import Settings
from hedera_history.errors import ObjectNotFoundError, SourceError, is_transient
from hedera_history.sources import open_source
from hedera_history.sources.s3 import S3Source

from tests.source_contract import OBJECTS, ROOT, check_source_contract, load

NAME = "record0.0.3/2024-01-01T00_00_00.000000000Z.rcd.gz"


@pytest.fixture
def loaded_bucket(s3_client: Any, s3_bucket: str) -> str:
    load(lambda name, data: s3_client.put_object(Bucket=s3_bucket, Key=name, Body=data))
    return s3_bucket


def _settings(s3_server: Any, **overrides: Any) -> Settings:
    return Settings.from_env(s3_endpoint_url=s3_server.endpoint_url, **overrides)


def _headers_sent(source: S3Source) -> list[dict[str, str]]:
    """Start recording the headers of every request the source's client sends."""
    sent: list[dict[str, str]] = []

    def record(request: Any, **_: Any) -> None:
        sent.append({k.lower(): v.decode() if isinstance(v, bytes) else v for k, v in request.headers.items()})

    source.client.meta.events.register("before-send.s3", record)
    return sent


def test_contract_through_open_source(s3_server: Any, loaded_bucket: str) -> None:
    source = open_source(f"s3://{loaded_bucket}/{ROOT}", _settings(s3_server))
    assert isinstance(source, S3Source)
    check_source_contract(source)


def test_versions_are_etags(s3_server: Any, s3_client: Any, loaded_bucket: str) -> None:
    source = open_source(f"s3://{loaded_bucket}/{ROOT}", _settings(s3_server))
    etag = s3_client.head_object(Bucket=loaded_bucket, Key=ROOT + NAME)["ETag"]
    (info,) = [o for o in source.list() if o.name == NAME]
    assert info.version == etag.strip('"')


def test_requester_pays_header_on_every_call(s3_server: Any, loaded_bucket: str) -> None:
    source = open_source(f"s3://{loaded_bucket}/{ROOT}", _settings(s3_server, s3_requester_pays=True))
    assert isinstance(source, S3Source)
    sent = _headers_sent(source)
    assert source.read(NAME) == OBJECTS[NAME]
    assert source.exists(NAME)
    assert source.list_prefixes() == ["record0.0.10/", "record0.0.3/", "record0.0.4/"]
    assert len(list(source.list())) == len(OBJECTS)
    assert [o.name for o in source.list("record0.0.4/", delimiter="/", start_after="record0.0.4/e")] == [
        "record0.0.4/empty.rcd_sig"
    ]
    assert len(sent) == 5
    assert all(h.get("x-amz-request-payer") == "requester" for h in sent)


def test_no_requester_pays_header_by_default(s3_server: Any, loaded_bucket: str) -> None:
    source = open_source(f"s3://{loaded_bucket}/{ROOT}", _settings(s3_server))
    assert isinstance(source, S3Source)
    sent = _headers_sent(source)
    source.read(NAME)
    assert sent
    assert all("x-amz-request-payer" not in h for h in sent)


def test_anonymous_reads_are_unsigned(s3_server: Any, s3_client: Any, loaded_bucket: str) -> None:
    source = open_source(f"s3://{loaded_bucket}/{ROOT}", _settings(s3_server, s3_anonymous=True))
    assert isinstance(source, S3Source)
    sent = _headers_sent(source)
    with pytest.raises(SourceError) as caught:
        source.read(NAME)  # private object: access denied, which no retry can fix
    assert not is_transient(caught.value)
    s3_client.put_object_acl(Bucket=loaded_bucket, Key=ROOT + NAME, ACL="public-read")
    assert source.read(NAME) == OBJECTS[NAME]
    assert sent
    assert all("authorization" not in h for h in sent)


def test_missing_bucket(s3_server: Any) -> None:
    source = open_source("s3://no-such-bucket-here/x", _settings(s3_server))
    with pytest.raises(SourceError) as caught:
        source.read("a")
    assert not isinstance(caught.value, ObjectNotFoundError)
    with pytest.raises(SourceError):
        list(source.list())
