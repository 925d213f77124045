"""GcsSource and GcsSink against the GCS emulator."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from hedera_history.config import Settings
from hedera_history.errors import ObjectNotFoundError, SourceError
from hedera_history.sources import open_sink, open_source
from hedera_history.sources.gcs import GcsSource

from tests.fixtures.emulators import PROJECT, RecordingGcsClient
from tests.source_contract import OBJECTS, ROOT, check_source_contract, load


@pytest.fixture
def loaded_bucket(gcs_bucket: Any) -> Any:
    load(lambda name, data: gcs_bucket.blob(name).upload_from_string(data))
    return gcs_bucket


def test_contract_through_open_source(loaded_bucket: Any) -> None:
    source = open_source(f"gs://{loaded_bucket.name}/{ROOT}", Settings.from_env(project=PROJECT))
    assert isinstance(source, GcsSource)
    check_source_contract(source)


def test_whole_bucket_root(loaded_bucket: Any) -> None:
    source = open_source(f"gs://{loaded_bucket.name}", Settings.from_env(project=PROJECT))
    assert source.list_prefixes() == ["elsewhere/", "streams/"]
    assert source.read(ROOT + "readme.txt") == OBJECTS["readme.txt"]


def test_versions_are_generations(loaded_bucket: Any) -> None:
    source = open_source(f"gs://{loaded_bucket.name}/{ROOT}", Settings.from_env(project=PROJECT))
    blob = loaded_bucket.get_blob(ROOT + "readme.txt")
    (info,) = [o for o in source.list() if o.name == "readme.txt"]
    assert info.version == str(blob.generation)


def test_missing_bucket(gcs_emulator: Any) -> None:
    source = open_source("gs://no-such-bucket-here/x", Settings.from_env(project=PROJECT))
    with pytest.raises(SourceError) as caught:
        list(source.list())
    assert not isinstance(caught.value, ObjectNotFoundError)
    with pytest.raises(ObjectNotFoundError):
        source.read("a")


def test_requester_pays_project_is_sent_with_every_call(
    loaded_bucket: Any, recording_gcs_client: RecordingGcsClient
) -> None:
    source = GcsSource(loaded_bucket.name, ROOT, user_project="billing-project", client=recording_gcs_client.client)
    name = "record0.0.3/2024-01-01T00_00_00.000000000Z.rcd.gz"
    assert source.read(name) == OBJECTS[name]
    assert source.exists(name)
    assert source.list_prefixes() == ["record0.0.10/", "record0.0.3/", "record0.0.4/"]
    assert len(list(source.list())) == len(OBJECTS)
    assert [o.name for o in source.list("record0.0.4/", delimiter="/", start_after="record0.0.4/e")] == [
        "record0.0.4/empty.rcd_sig"
    ]
    # Each call on an object must name the project to bill.
    object_calls = recording_gcs_client.object_calls()
    assert len(object_calls) == 5
    for url in object_calls:
        assert parse_qs(urlparse(url).query)["userProject"] == ["billing-project"]


def test_sink_writes_where_the_source_reads(gcs_bucket: Any) -> None:
    settings = Settings.from_env(project=PROJECT)
    sink = open_sink(f"gs://{gcs_bucket.name}/quarantine", settings)
    sink.write("record0.0.3/x.rcd.gz", b"first")
    sink.write("record0.0.3/x.rcd.gz", b"second")
    source = open_source(f"gs://{gcs_bucket.name}/quarantine", settings)
    assert source.read("record0.0.3/x.rcd.gz") == b"second"
    assert [o.name for o in source.list()] == ["record0.0.3/x.rcd.gz"]


def test_sink_creates_where_the_source_reads(gcs_bucket: Any) -> None:
    # The emulator ignores ifGenerationMatch, so a second create is not refused here: that request
    # and the answers of a taken name are in tests/unit/test_source_errors.py.
    settings = Settings.from_env(project=PROJECT)
    sink = open_sink(f"gs://{gcs_bucket.name}/quarantine", settings)
    assert sink.create("record0.0.3/x.rcd.gz", b"first") is True
    source = open_source(f"gs://{gcs_bucket.name}/quarantine", settings)
    assert source.read("record0.0.3/x.rcd.gz") == b"first"
    assert [o.name for o in source.list()] == ["record0.0.3/x.rcd.gz"]
