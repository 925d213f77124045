"""The emulator classes without running an emulator: commands, state, and fast prerequisite failures."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from gcp_storage_emulator.storage import Storage
from hedera_history.errors import EmulatorError, PrerequisiteError
from hedera_history.localstack.cloud_sdk import CloudSdk
from hedera_history.localstack.emulators import (
    BigtableEmulator,
    EmulatorState,
    GcsEmulator,
    PubSubEmulator,
    S3Emulator,
    stop_recorded,
)
from hedera_history.localstack.gcs_in_memory import skip_journal_in_memory


def test_commands_bind_loopback_on_the_given_port() -> None:
    sdk = CloudSdk(Path("/sdk"))
    assert BigtableEmulator(sdk=sdk).command(9000) == [
        "/sdk/platform/bigtable-emulator/cbtemulator",
        "-host",
        "127.0.0.1",
        "-port",
        "9000",
    ]
    assert PubSubEmulator(sdk=sdk).command(8085) == [
        "/sdk/platform/pubsub-emulator/bin/cloud-pubsub-emulator",
        "--host=127.0.0.1",
        "--port=8085",
    ]
    gcs = GcsEmulator().command(9023)
    assert gcs[:3] == [sys.executable, "-m", "hedera_history.localstack.gcs_in_memory"]
    assert "--in-memory" in gcs and "127.0.0.1" in gcs and "9023" in gcs
    assert S3Emulator().command(5000) == [
        sys.executable,
        "-m",
        "moto.server",
        "-H",
        "127.0.0.1",
        "-p",
        "5000",
    ]


def test_a_stopped_emulator_has_no_address_and_stopping_it_is_harmless() -> None:
    emulator = GcsEmulator()
    with pytest.raises(EmulatorError, match="not started"):
        _ = emulator.port
    with pytest.raises(EmulatorError, match="not started"):
        emulator.state()
    assert emulator.pid is None and emulator.log_path is None and not emulator.is_running()
    emulator.stop()
    assert repr(emulator) == "<GcsEmulator stopped>"


def test_a_missing_bigtable_component_fails_at_once_with_its_fix(tmp_path: Path) -> None:
    emulator = BigtableEmulator(sdk=CloudSdk(tmp_path), log_dir=tmp_path)
    started = time.monotonic()
    with pytest.raises(PrerequisiteError) as raised:
        emulator.start()
    assert time.monotonic() - started < 5
    assert "the bigtable emulator cannot start" in str(raised.value)
    assert "gcloud components install beta bigtable" in str(raised.value)
    assert not emulator.is_running()
    assert list(tmp_path.iterdir()) == [], "nothing was started, so nothing was logged"


def test_a_missing_java_fails_the_pubsub_emulator_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    emulator = PubSubEmulator(sdk=CloudSdk(tmp_path), log_dir=tmp_path)
    with pytest.raises(PrerequisiteError) as raised:
        emulator.start()
    message = str(raised.value)
    assert "sudo apt-get install -y openjdk-17-jre-headless" in message
    assert "gcloud components install beta pubsub-emulator" in message


def test_state_survives_a_round_trip_through_json() -> None:
    state = EmulatorState("pubsub", 4242, 8085, "/tmp/pubsub.log", {"PUBSUB_EMULATOR_HOST": "127.0.0.1:8085"})
    assert EmulatorState.from_json(state.to_json()) == state


@pytest.mark.parametrize(
    "text", ["", "[]", '{"name": "x"}', '{"name": "x", "pid": "p", "port": 1, "log_path": "", "env": {}}']
)
def test_a_broken_state_is_an_emulator_error(text: str) -> None:
    with pytest.raises(EmulatorError, match="not a recorded emulator state"):
        EmulatorState.from_json(text)


def test_stop_recorded_leaves_a_finished_emulator_alone() -> None:
    finished = subprocess.Popen(["true"], process_group=0)
    finished.wait()
    assert stop_recorded(EmulatorState("s3", finished.pid, 5000, "/tmp/s3.log", {})) is False


def test_stop_recorded_refuses_a_group_that_is_not_the_emulator(tmp_path: Path) -> None:
    """A recorded pid reused by an unrelated program is not signalled."""
    unrelated = subprocess.Popen(["sleep", "60"], process_group=0)
    try:
        assert stop_recorded(EmulatorState("s3", unrelated.pid, 5000, "/tmp/s3.log", {})) is False
        assert unrelated.poll() is None
    finally:
        unrelated.kill()
        unrelated.wait()


def test_the_in_memory_gcs_emulator_skips_its_metadata_journal_only_in_memory() -> None:
    class Journalled(Storage):  # type: ignore[misc]
        """The emulator's storage with its journal writes counted (the emulator's class is left as it was)."""

        writes = 0

        def _write_config_to_file(self) -> None:
            type(self).writes += 1

    assert skip_journal_in_memory(Journalled)
    in_memory, on_disk = Journalled(use_memory_fs=True), Journalled(use_memory_fs=True)
    on_disk._use_memory_fs = False
    in_memory._write_config_to_file()
    on_disk._write_config_to_file()
    assert Journalled.writes == 1  # the one on disk
    assert not skip_journal_in_memory(object)  # another emulator version: nothing to change
