from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.config import Settings
from hedera_history.errors import ConfigError, SourceError
from hedera_history.sources import open_sink, open_source, parse_url
from hedera_history.sources.base import SourceUrl
from hedera_history.sources.gcs import GcsSink, GcsSource
from hedera_history.sources.local import LocalSink, LocalSource
from hedera_history.sources.s3 import S3Sink, S3Source

from tests.source_contract import OBJECTS, ROOT, check_source_contract, load

# ---- URLs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("gs://bucket", SourceUrl("gs", "bucket", "")),
        ("gs://bucket/", SourceUrl("gs", "bucket", "")),
        ("gs://bucket/recordstreams", SourceUrl("gs", "bucket", "recordstreams/")),
        ("gs://bucket/a/b/", SourceUrl("gs", "bucket", "a/b/")),
        (
            "s3://hedera-mainnet-streams/recordstreams/",
            SourceUrl("s3", "hedera-mainnet-streams", "recordstreams/"),
        ),
        ("file:///data/streams", SourceUrl("file", "", "/data/streams")),
        ("/data/streams", SourceUrl("file", "", "/data/streams")),
        ("relative/dir", SourceUrl("file", "", "relative/dir")),
    ],
)
def test_parse_url(url: str, expected: SourceUrl) -> None:
    assert parse_url(url) == expected


@pytest.mark.parametrize("url", ["", "gs://", "s3:///prefix", "http://host/x", "file://relative"])
def test_parse_url_rejects(url: str) -> None:
    with pytest.raises(ConfigError):
        parse_url(url)


def test_open_source_picks_the_backend_without_creating_clients(tmp_path: Path) -> None:
    settings = Settings.from_env(
        {},
        requester_pays_project="billing",
        s3_requester_pays=True,
        s3_endpoint_url="http://127.0.0.1:1",
    )
    gcs = open_source("gs://bucket/recordstreams", settings)
    assert isinstance(gcs, GcsSource)
    assert gcs.url == "gs://bucket/recordstreams/"
    assert gcs._bucket.user_project == "billing"
    assert gcs._bucket._client is None

    s3 = open_source("s3://bucket/x", settings)
    assert isinstance(s3, S3Source)
    assert s3.url == "s3://bucket/x/"
    assert s3._payer == {"RequestPayer": "requester"}
    assert s3.endpoint_url == "http://127.0.0.1:1"
    assert s3._client is None

    local = open_source(str(tmp_path), settings)
    assert isinstance(local, LocalSource)
    assert local.root == tmp_path

    assert isinstance(open_sink("gs://q/quarantine", settings), GcsSink)
    assert isinstance(open_sink(str(tmp_path), settings), LocalSink)
    s3_sink = open_sink("s3://bucket/x", settings)
    assert isinstance(s3_sink, S3Sink)
    assert s3_sink.url == "s3://bucket/x/"


# ---- LocalSource ---------------------------------------------------------------------------------


def _tree(tmp_path: Path) -> Path:
    def put(name: str, data: bytes) -> None:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    load(put)
    return tmp_path / ROOT


def test_local_source_contract(tmp_path: Path) -> None:
    check_source_contract(LocalSource(_tree(tmp_path)))


def test_local_source_through_a_file_url(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    source = open_source(f"file://{root}", Settings.from_env({}))
    assert [o.name for o in source.list()] == sorted(OBJECTS)


def test_local_source_other_delimiters(tmp_path: Path) -> None:
    source = LocalSource(_tree(tmp_path))
    # Any string can be the delimiter: names holding it after the prefix are rolled up (as in GCS).
    assert [o.name for o in source.list("record0.0.", delimiter="sidecar/")] == sorted(
        n for n in OBJECTS if n.startswith("record0.0.") and "sidecar/" not in n
    )


def test_local_source_ignores_empty_folders_and_partial_writes(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / "record0.0.5" / "sidecar").mkdir(parents=True)
    (root / "record0.0.3" / ".~partial.rcd.gz.1234").write_bytes(b"half")
    source = LocalSource(root)
    assert "record0.0.5/" not in source.list_prefixes()
    assert [o.name for o in source.list()] == sorted(OBJECTS)


def test_local_source_refuses_names_outside_the_root(tmp_path: Path) -> None:
    source = LocalSource(_tree(tmp_path))
    for name in ("../elsewhere/x", "/etc/passwd", ""):
        with pytest.raises(SourceError):
            source.read(name)
    with pytest.raises(SourceError):
        list(source.list("../"))


def test_local_source_missing_root_is_an_error(tmp_path: Path) -> None:
    source = LocalSource(tmp_path / "missing")
    with pytest.raises(SourceError):
        list(source.list())
    with pytest.raises(SourceError):
        source.list_prefixes("a/")


def test_local_sink_creates_once_and_never_replaces(tmp_path: Path) -> None:
    sink = LocalSink(tmp_path / "quarantine")
    assert sink.create("record0.0.3/x.rcd.gz", b"first") is True
    assert sink.create("record0.0.3/x.rcd.gz", b"second") is False
    assert [p.name for p in (tmp_path / "quarantine" / "record0.0.3").iterdir()] == ["x.rcd.gz"]
    assert LocalSource(tmp_path / "quarantine").read("record0.0.3/x.rcd.gz") == b"first"
    with pytest.raises(SourceError):
        sink.create("../escape", b"x")


def test_local_sink_writes_atomically_and_replaces(tmp_path: Path) -> None:
    sink = LocalSink(tmp_path / "quarantine")
    sink.write("record0.0.3/x.rcd.gz", b"first")
    sink.write("record0.0.3/x.rcd.gz", b"second")
    assert (tmp_path / "quarantine" / "record0.0.3" / "x.rcd.gz").read_bytes() == b"second"
    assert [p.name for p in (tmp_path / "quarantine" / "record0.0.3").iterdir()] == ["x.rcd.gz"]
    assert LocalSource(tmp_path / "quarantine").read("record0.0.3/x.rcd.gz") == b"second"
    with pytest.raises(SourceError):
        sink.write("../escape", b"x")
