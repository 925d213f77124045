"""S3Sink against moto's S3 server: writes land where S3Source reads, create never replaces."""

from __future__ import annotations

from typing import Any

from hedera_history.config import Settings
from hedera_history.sources import open_sink, open_source
from hedera_history.sources.s3 import S3Sink, S3Source

from tests.sink_contract import check_sink_contract

NAME = "record0.0.3/2024-01-01T00_00_00.000000000Z.rcd.gz"


def _settings(s3_server: Any, **overrides: Any) -> Settings:
    return Settings.from_env(s3_endpoint_url=s3_server.endpoint_url, **overrides)


def test_contract_through_open_sink(s3_server: Any, s3_client: Any, s3_bucket: str) -> None:
    sink = open_sink(f"s3://{s3_bucket}/streams", _settings(s3_server))
    check_sink_contract(sink, lambda name: s3_client.get_object(Bucket=s3_bucket, Key="streams/" + name)["Body"].read())


def test_sink_writes_where_the_source_reads(s3_server: Any, s3_bucket: str) -> None:
    settings = _settings(s3_server)
    sink = open_sink(f"s3://{s3_bucket}/streams", settings)
    assert isinstance(sink, S3Sink)
    assert sink.url == f"s3://{s3_bucket}/streams/"
    sink.write(NAME, b"first")
    sink.write(NAME, b"second")
    source = open_source(f"s3://{s3_bucket}/streams", settings)
    assert source.read(NAME) == b"second"
    assert [o.name for o in source.list()] == [NAME]


def test_create_never_replaces(s3_server: Any, s3_client: Any, s3_bucket: str) -> None:
    sink = open_sink(f"s3://{s3_bucket}/quarantine/", _settings(s3_server))
    assert sink.create(NAME, b"first") is True
    assert sink.create(NAME, b"second") is False
    assert s3_client.get_object(Bucket=s3_bucket, Key="quarantine/" + NAME)["Body"].read() == b"first"


def test_create_is_one_conditional_put(s3_server: Any, s3_bucket: str) -> None:
    sink = S3Sink(S3Source(s3_bucket, "q", endpoint_url=s3_server.endpoint_url, requester_pays=True))
    sent: list[dict[str, str]] = []

    def record(request: Any, **_: Any) -> None:
        sent.append({k.lower(): v.decode() if isinstance(v, bytes) else v for k, v in request.headers.items()})

    sink.client.meta.events.register("before-send.s3", record)
    assert sink.create(NAME, b"data") is True
    sink.write(NAME, b"again")
    assert len(sent) == 2
    assert sent[0].get("if-none-match") == "*"
    assert "if-none-match" not in sent[1]
    assert all(h.get("x-amz-request-payer") == "requester" for h in sent)
