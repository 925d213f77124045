"""The emulator harness against the real emulators: each service does what the project relies on,
and stopping an emulator leaves no process behind."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from google.api_core.exceptions import DeadlineExceeded
from google.cloud.bigtable.column_family import MaxVersionsGCRule
from hedera_history.errors import PortInUseError
from hedera_history.localstack import emulators, probes
from hedera_history.localstack.emulators import (
    BigtableEmulator,
    EmulatorState,
    GcsEmulator,
    PubSubEmulator,
    stop_recorded,
)
from hedera_history.localstack.ports import free_port
from hedera_history.localstack.processes import process_group_alive, process_group_members

from tests.fixtures.emulators import PubSubResources

pytestmark = pytest.mark.emulator

# ---- Bigtable ------------------------------------------------------------------------------------


def test_bigtable_table_admin_write_and_read(bigtable_emulator: Any, bigtable_instance: Any) -> None:
    assert os.environ["BIGTABLE_EMULATOR_HOST"] == bigtable_emulator.host
    assert bigtable_emulator.host.startswith("127.0.0.1:")

    table = bigtable_instance.table("blocks")
    table.create(column_families={"b": MaxVersionsGCRule(1)})
    assert [t.table_id for t in bigtable_instance.list_tables()] == ["blocks"]
    assert set(table.list_column_families()) == {"b"}

    row = table.direct_row(b"0000000000000042")
    consensus_time = datetime(2024, 1, 1, tzinfo=UTC)
    row.set_cell("b", b"hash", b"\x01\x02", timestamp=consensus_time)
    row.commit()

    read = table.read_row(b"0000000000000042")
    assert read is not None
    cell = read.cells["b"][b"hash"][0]
    assert cell.value == b"\x01\x02"
    assert cell.timestamp == consensus_time
    assert table.read_row(b"0000000000000043") is None


@pytest.mark.parametrize("attempt", [1, 2])
def test_each_test_gets_a_clean_set_of_tables(bigtable_instance: Any, attempt: int) -> None:
    # Both runs create the same table id: the second would fail if tables leaked across tests.
    assert list(bigtable_instance.list_tables()) == []
    bigtable_instance.table("blocks").create(column_families={"b": MaxVersionsGCRule(1)})


# ---- Pub/Sub -------------------------------------------------------------------------------------


def _pull(resources: PubSubResources, subscription: str, timeout: float = 2.0) -> list[Any]:
    try:
        response = resources.subscriber.pull(subscription=subscription, max_messages=10, timeout=timeout)
    except DeadlineExceeded:
        return []
    return list(response.received_messages)


def _pull_until_some(resources: PubSubResources, subscription: str, seconds: float = 30.0) -> list[Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        received = _pull(resources, subscription)
        if received:
            return received
    raise AssertionError(f"nothing arrived on {subscription} within {seconds} s")


def test_pubsub_publish_and_pull(pubsub_emulator: Any, pubsub_resources: PubSubResources) -> None:
    assert os.environ["PUBSUB_EMULATOR_HOST"] == pubsub_emulator.host
    topic = pubsub_resources.topic("history")
    subscription = pubsub_resources.subscription(topic)

    pubsub_resources.publisher.publish(topic, b"rows", key="blocks/0000000000000042").result(timeout=30)

    received = _pull_until_some(pubsub_resources, subscription)
    assert [(m.message.data, m.message.attributes["key"]) for m in received] == [(b"rows", "blocks/0000000000000042")]
    pubsub_resources.subscriber.acknowledge(subscription=subscription, ack_ids=[received[0].ack_id])


def test_pubsub_dead_letter_after_max_delivery_attempts(pubsub_resources: PubSubResources) -> None:
    topic = pubsub_resources.topic("history")
    dead_letters = pubsub_resources.topic("history-dead")
    dead_letter_subscription = pubsub_resources.subscription(dead_letters, "dead")
    subscription = pubsub_resources.subscription(topic, dead_letter_topic=dead_letters, max_delivery_attempts=5)

    pubsub_resources.publisher.publish(topic, b"poison").result(timeout=30)

    attempts: list[int] = []
    deadline = time.monotonic() + 60
    dead: list[Any] = []
    while not dead and time.monotonic() < deadline:
        for received in _pull(pubsub_resources, subscription, timeout=1.0):
            attempts.append(received.delivery_attempt)
            pubsub_resources.subscriber.modify_ack_deadline(
                subscription=subscription, ack_ids=[received.ack_id], ack_deadline_seconds=0
            )
        dead = _pull(pubsub_resources, dead_letter_subscription, timeout=0.5)

    assert attempts == [1, 2, 3, 4, 5]
    assert [m.message.data for m in dead] == [b"poison"]
    assert dead[0].message.attributes["CloudPubSubDeadLetterSourceDeliveryCount"] == "5"


# ---- Cloud Storage -------------------------------------------------------------------------------


def test_gcs_upload_list_download_and_generation(gcs_emulator: Any, gcs_client: Any, gcs_bucket: Any) -> None:
    assert os.environ["STORAGE_EMULATOR_HOST"] == gcs_emulator.endpoint == f"http://{gcs_emulator.host}"
    names = [
        "0.0.3/2024-01-01T00_00_00.000000000Z.rcd.gz",
        "0.0.3/2024-01-01T00_00_00.000000000Z.rcd_sig",
        "0.0.3/sidecar/2024-01-01T00_00_00.000000000Z_01.rcd.gz",
        "0.0.4/2024-01-01T00_00_00.000000000Z.rcd_sig",
    ]
    for name in names:
        gcs_bucket.blob(name).upload_from_string(name.encode())

    top = gcs_client.list_blobs(gcs_bucket, delimiter="/")
    assert [blob.name for blob in top] == []
    assert sorted(top.prefixes) == ["0.0.3/", "0.0.4/"]

    node = gcs_client.list_blobs(gcs_bucket, prefix="0.0.3/", delimiter="/")
    assert sorted(blob.name for blob in node) == names[:2]
    assert sorted(node.prefixes) == ["0.0.3/sidecar/"]

    assert gcs_bucket.blob(names[2]).download_as_bytes() == names[2].encode()

    first = gcs_bucket.get_blob(names[0])
    assert isinstance(first.generation, int) and first.generation > 0
    gcs_bucket.blob(names[0]).upload_from_string(b"replaced")
    second = gcs_bucket.get_blob(names[0])
    assert second.generation != first.generation
    assert second.download_as_bytes() == b"replaced"


# ---- S3 ------------------------------------------------------------------------------------------


def test_s3_put_list_and_get(s3_server: Any, s3_client: Any, s3_bucket: str) -> None:
    assert os.environ["AWS_ENDPOINT_URL_S3"] == s3_server.endpoint_url
    for key in ("recordstreams/record0.0.3/a.rcd.gz", "recordstreams/record0.0.3/a.rcd_sig", "top.txt"):
        s3_client.put_object(Bucket=s3_bucket, Key=key, Body=key.encode())

    listing = s3_client.list_objects_v2(Bucket=s3_bucket, Prefix="recordstreams/", Delimiter="/")
    assert [p["Prefix"] for p in listing["CommonPrefixes"]] == ["recordstreams/record0.0.3/"]
    listing = s3_client.list_objects_v2(Bucket=s3_bucket, Prefix="recordstreams/record0.0.3/")
    assert [o["Key"] for o in listing["Contents"]] == [
        "recordstreams/record0.0.3/a.rcd.gz",
        "recordstreams/record0.0.3/a.rcd_sig",
    ]

    body = s3_client.get_object(Bucket=s3_bucket, Key="top.txt")["Body"].read()
    assert body == b"top.txt"


# ---- process groups ------------------------------------------------------------------------------


def _command_names(pids: list[int]) -> list[str]:
    names = []
    for pid in pids:
        try:
            names.append(Path(f"/proc/{pid}/comm").read_text().strip())
        except OSError:
            names.append("?")
    return names


def test_stopping_kills_the_whole_process_group(tmp_path: Path) -> None:
    emulator = PubSubEmulator(log_dir=tmp_path).start()
    group = emulator.pid
    assert group is not None
    members = process_group_members(group)
    java = [pid for pid, name in zip(members, _command_names(members), strict=True) if name == "java"]
    assert java, _command_names(members)

    emulator.stop()

    assert not process_group_alive(group)
    assert process_group_members(group) == []
    # Each pid is gone, or (reused since) runs something else: no emulator JVM is left.
    for pid in java:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        assert b"pubsub-emulator" not in command
    assert not emulator.is_running()


def test_an_emulator_whose_starter_is_killed_stops_too(tmp_path: Path) -> None:
    """A test run killed before its clean-up must not leave emulators behind (stop_with_parent)."""
    starter = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path;"
            "from hedera_history.localstack.emulators import BigtableEmulator;"
            "e = BigtableEmulator(log_dir=Path(sys.argv[1])).start();"
            "print(e.state().to_json(), flush=True); time.sleep(300)",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert starter.stdout is not None
        state = EmulatorState.from_json(starter.stdout.readline())
        assert process_group_alive(state.pid)
    finally:
        starter.send_signal(signal.SIGKILL)
        starter.wait()

    deadline = time.monotonic() + 20
    while process_group_alive(state.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not process_group_alive(state.pid), _command_names(process_group_members(state.pid))


def test_stop_recorded_stops_an_emulator_by_its_state(tmp_path: Path) -> None:
    emulator = BigtableEmulator(log_dir=tmp_path, stop_with_parent=False).start()
    state = EmulatorState.from_json(emulator.state().to_json())
    try:
        assert stop_recorded(state) is True
        assert not process_group_alive(state.pid)
        assert stop_recorded(state) is False
    finally:
        emulator.stop()


# ---- ports ---------------------------------------------------------------------------------------


@pytest.fixture
def foreign_listener() -> Iterator[int]:
    """A port some other program listens on (and never answers)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


def test_a_port_taken_by_another_process_is_reported_at_once(tmp_path: Path, foreign_listener: int) -> None:
    emulator = GcsEmulator(port=foreign_listener, log_dir=tmp_path, startup_timeout=30)
    started = time.monotonic()
    with pytest.raises(PortInUseError, match=f"port {foreign_listener}"):
        emulator.start()
    assert time.monotonic() - started < 10
    assert not emulator.is_running()


def test_a_free_port_taken_before_start_up_is_replaced(
    tmp_path: Path, foreign_listener: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    offered = [foreign_listener]
    monkeypatch.setattr(emulators, "free_port", lambda host: offered.pop() if offered else free_port(host))

    with GcsEmulator(log_dir=tmp_path) as emulator:
        assert emulator.port != foreign_listener
        assert probes.gcs_answers(emulator.endpoint, "127.0.0.1", emulator.port)
