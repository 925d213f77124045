"""The local stack's pure parts and its command line, without emulators: ports, configuration, the
state file and stale state, the upload plan, wait targets, function commands, CLI exits."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from hedera_history.cli import stack_cmd
from hedera_history.config import Settings
from hedera_history.deploy.catalogue import INGEST, QUERY, STORE, SWEEP
from hedera_history.errors import PrerequisiteError, StackError
from hedera_history.formats.names import StreamFileKind
from hedera_history.localstack import stack as stack_module
from hedera_history.localstack.function_process import function_command, function_environment, signature_type
from hedera_history.localstack.stack import StackConfig, StackPorts, claim_state_dir, process_env
from hedera_history.localstack.stack_progress import (
    BlockTarget,
    directory_target,
    first_blocks_target,
    format_ranges,
    wait_for_blocks,
)
from hedera_history.localstack.stack_state import (
    STATE_FILE,
    ServiceRecord,
    StackState,
    read_state,
    recorded_group_alive,
    write_state,
)
from hedera_history.localstack.upload import (
    BookInstall,
    distinct_periods,
    find_stream_files,
    install_address_book,
    plan_uploads,
)


def make_state(state_dir: Path, **changes: object) -> StackState:
    state = StackState(
        state_dir=str(state_dir),
        project="p",
        bigtable_instance="inst",
        table_prefix="",
        topic_prefix="t-",
        bucket="streams",
        quarantine_bucket="streams-quarantine",
        first_block=0,
        address_book=str(state_dir / "address-book.bin"),
        bigtable_host="127.0.0.1:1",
        pubsub_host="127.0.0.1:2",
        storage_endpoint="http://127.0.0.1:3",
        ingest_endpoint="http://127.0.0.1:4",
        sweep_endpoint="http://127.0.0.1:5",
        sweep_interval_seconds=5.0,
        poll_interval_seconds=0.2,
        owner_pid=0,
        started_at="2024-01-01T00:00:00+00:00",
    )
    return replace(state, **changes)  # type: ignore[arg-type]


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    """A process leading its own group, with a recognisable command line."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "marker-4711"], process_group=0)
    yield process
    process.kill()
    process.wait()


# ---- ports and configuration ---------------------------------------------------------------------


def test_ports_parse_from_text_and_mapping() -> None:
    assert StackPorts.parse("") == StackPorts()
    ports = StackPorts.parse("query=8080, bigtable=8086")
    assert (ports.query, ports.bigtable, ports.pubsub) == (8080, 8086, 0)
    assert ports.of("query") == 8080
    assert ports.as_text() == "bigtable=8086,query=8080"
    assert StackPorts.parse({"store": 9000}).store == 9000


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("query", "name=port"),
        ("query=x", "not a number"),
        ("nginx=80", "unknown stack service"),
        ("gcs=70000", "range"),
    ],
)
def test_ports_refuse_bad_input(text: str, message: str) -> None:
    with pytest.raises(StackError, match=message):
        StackPorts.parse(text)


def test_config_from_settings() -> None:
    settings = Settings.from_env(
        {
            "GOOGLE_CLOUD_PROJECT": "proj",
            "HEDERA_HISTORY_BIGTABLE_INSTANCE": "inst",
            "HEDERA_HISTORY_STREAM_BUCKET": "bkt",
            "HEDERA_HISTORY_FIRST_BLOCK": "7",
            "HEDERA_HISTORY_ADDRESS_BOOK": "/books/a.bin",
            "HEDERA_HISTORY_STACK_PORTS": "query=8080",
            "HEDERA_HISTORY_STACK_STATE_DIR": "/tmp/somewhere",
            "HEDERA_HISTORY_STACK_SWEEP_INTERVAL_SECONDS": "2.5",
        }
    )
    config = StackConfig.from_settings(settings, detached=True)
    assert (config.project, config.bigtable_instance, config.bucket, config.first_block) == ("proj", "inst", "bkt", 7)
    assert config.address_book == Path("/books/a.bin")
    assert config.ports.query == 8080
    assert config.state_dir == Path("/tmp/somewhere")
    assert config.sweep_interval_seconds == 2.5
    assert config.detached
    assert config.quarantine_bucket == "bkt-quarantine"


# ---- functions -----------------------------------------------------------------------------------


def test_function_command_and_environment(tmp_path: Path) -> None:
    assert signature_type(INGEST) == "cloudevent"
    assert {signature_type(spec) for spec in (SWEEP, STORE, QUERY)} == {"http"}
    argv = function_command(INGEST, tmp_path, 5000)
    assert argv[:3] == [sys.executable, "-m", "functions_framework"]
    assert argv[argv.index("--target") + 1] == "ingest"
    assert argv[argv.index("--source") + 1] == str(tmp_path / "main.py")
    assert argv[argv.index("--port") + 1] == "5000"
    assert argv[argv.index("--host") + 1] == "127.0.0.1"
    env = function_environment(STORE, {"A": "1"})
    assert env["A"] == "1"
    assert env["THREADS"] == str(STORE.concurrency + 1)  # a spare thread for the readiness check
    assert env["K_SERVICE"] == "store"


def test_the_store_runs_several_worker_processes() -> None:
    assert StackConfig().store_processes == 2
    assert process_env(STORE, {"A": "1"}, 3) == {"A": "1", "WORKERS": "3"}
    assert all("WORKERS" not in process_env(spec, {"A": "1"}, 3) for spec in (INGEST, SWEEP, QUERY))


# ---- the state file ------------------------------------------------------------------------------


def test_state_round_trips_through_its_file(tmp_path: Path) -> None:
    record = ServiceRecord("query", 123, "/logs/q.log", "4444", 4444, "http://127.0.0.1:4444")
    state = make_state(tmp_path, functions=(record,), function_env={"X": "1"})
    write_state(state)
    assert read_state(tmp_path) == state
    assert state.function_url("query") == "http://127.0.0.1:4444"
    assert state.subscription_path("store-history") == "projects/p/subscriptions/t-store-history"
    env = state.client_env()
    assert env["BIGTABLE_EMULATOR_HOST"] == "127.0.0.1:1"
    assert env["STORAGE_EMULATOR_HOST"] == "http://127.0.0.1:3"
    assert env["HEDERA_HISTORY_PUBSUB_TOPIC_PREFIX"] == "t-"
    assert state.settings().bigtable_instance == "inst"
    with pytest.raises(StackError, match="no function named"):
        state.function_url("nope")


def test_a_broken_state_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / STATE_FILE).write_text("{not json")
    with pytest.raises(StackError, match="unreadable stack state"):
        read_state(tmp_path)
    with pytest.raises(StackError, match="delete that file"):
        claim_state_dir(tmp_path)
    (tmp_path / STATE_FILE).write_text(json.dumps({"format": 99}))
    with pytest.raises(StackError, match="format 99"):
        read_state(tmp_path)
    assert read_state(tmp_path / "nothing-here") is None


def test_a_recorded_group_is_alive_only_with_its_marker(sleeper: subprocess.Popen[bytes]) -> None:
    assert recorded_group_alive(sleeper.pid, "marker-4711")
    assert not recorded_group_alive(sleeper.pid, "marker-other")
    sleeper.kill()
    sleeper.wait()
    assert not recorded_group_alive(sleeper.pid, "marker-4711")


def test_claim_refuses_a_running_stack_and_replaces_a_stale_one(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    live = ServiceRecord("bridge", sleeper.pid, "/logs/b.log", "marker-4711")
    write_state(make_state(tmp_path, bridge=live))
    with pytest.raises(StackError, match="already running"):
        claim_state_dir(tmp_path)
    assert (tmp_path / STATE_FILE).exists()
    sleeper.kill()
    sleeper.wait()
    stale = claim_state_dir(tmp_path)
    assert stale is not None and stale.bridge == live
    assert not (tmp_path / STATE_FILE).exists()
    assert claim_state_dir(tmp_path) is None


def test_stop_recorded_stack_stops_live_groups_and_removes_the_state(
    tmp_path: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    live = ServiceRecord("query", sleeper.pid, "/logs/q.log", "marker-4711")
    gone = ServiceRecord("gcs", 2**22 + 12345, "/logs/g.log", "1")
    state = make_state(tmp_path, functions=(live,), emulators=(gone,))
    write_state(state)
    assert stack_module.stop_recorded_stack(state, grace_seconds=5) == {"query": True, "gcs": False}
    sleeper.wait(timeout=5)
    assert read_state(tmp_path) is None


# ---- uploads -------------------------------------------------------------------------------------


def test_stream_files_are_found_in_node_order(generated_stream_dir: Path) -> None:
    files = find_stream_files(generated_stream_dir)
    names = [f.relative for f in files]
    assert names, "the generated stream has stream files"
    assert not any(n.endswith(("address-book.bin", ".json", ".pem")) for n in names)
    assert all(not (generated_stream_dir / n).is_dir() for n in names)
    truth = json.loads((generated_stream_dir / "ground-truth.json").read_text())
    assert distinct_periods(files) == len(truth["blocks"])
    # Period by period; within a period record files and sidecars before signatures.
    keys = [(f.consensus_ns, f.kind) for f in files]
    assert [k[0] for k in keys] == sorted(k[0] for k in keys)
    for ns in {k[0] for k in keys}:
        kinds = [kind for t, kind in keys if t == ns]
        assert kinds.index(StreamFileKind.SIGNATURE) > max(
            (i for i, kind in enumerate(kinds) if kind is not StreamFileKind.SIGNATURE), default=-1
        )


def test_upload_plan_shuffles_and_duplicates_deterministically(generated_stream_dir: Path) -> None:
    files = find_stream_files(generated_stream_dir)
    plain = plan_uploads(files)
    assert [u.file for u in plain] == files and not any(u.repeat for u in plain)
    shuffled = plan_uploads(files, shuffle=True, seed=3)
    assert sorted(u.file.relative for u in shuffled) == sorted(f.relative for f in files)
    assert [u.file for u in shuffled] != files
    assert plan_uploads(files, shuffle=True, seed=3) == shuffled
    with_duplicates = plan_uploads(files, shuffle=True, duplicates=5, seed=3)
    assert len(with_duplicates) == len(files) + 5
    assert sum(u.repeat for u in with_duplicates) == 5
    for position, upload in enumerate(with_duplicates):
        if upload.repeat:
            first = next(i for i, u in enumerate(with_duplicates) if u.file is upload.file and not u.repeat)
            assert first < position
    with pytest.raises(StackError):
        plan_uploads(files, duplicates=-1)


def test_install_address_book(tmp_path: Path, generated_stream_dir: Path) -> None:
    state = make_state(tmp_path / "stack")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(StackError, match="no address book"):
        install_address_book(state, empty)
    assert install_address_book(state, generated_stream_dir) is BookInstall.INSTALLED
    assert Path(state.address_book).read_bytes() == (generated_stream_dir / "address-book.bin").read_bytes()
    assert install_address_book(state, generated_stream_dir) is BookInstall.SAME
    assert install_address_book(state, empty) is BookInstall.NONE_IN_DIRECTORY
    other = tmp_path / "other"
    other.mkdir()
    (other / "address-book.bin").write_bytes(b"another book")
    assert install_address_book(state, other) is BookInstall.KEPT_OTHER


# ---- waiting -------------------------------------------------------------------------------------


def test_wait_targets(tmp_path: Path, generated_stream_dir: Path) -> None:
    assert first_blocks_target(10, 3).numbers == (10, 11, 12)
    with pytest.raises(StackError):
        first_blocks_target(0, 0)
    truth = json.loads((generated_stream_dir / "ground-truth.json").read_text())
    target = directory_target(generated_stream_dir)
    assert target.numbers == tuple(sorted(b["number"] for b in truth["blocks"]))
    # Without ground truth: as many blocks as the directory has periods.
    copy = tmp_path / "copy"
    for f in find_stream_files(generated_stream_dir):
        (copy / f.relative).parent.mkdir(parents=True, exist_ok=True)
        (copy / f.relative).write_bytes(f.path.read_bytes())
    counted = directory_target(copy)
    assert (counted.numbers, counted.count) == (None, len(truth["blocks"]))
    (tmp_path / "none").mkdir()
    with pytest.raises(StackError, match="no record files"):
        directory_target(tmp_path / "none")


def test_format_ranges() -> None:
    assert format_ranges([]) == ""
    assert format_ranges([7, 0, 1, 2, 3, 9, 10]) == "0-3, 7, 9-10"


class FakeReader:
    """Blocks become complete one more per read."""

    def __init__(self, numbers: Iterable[int]) -> None:
        self.pending = list(numbers)
        self.done: set[int] = set()

    def _tick(self) -> None:
        if self.pending:
            self.done.add(self.pending.pop(0))

    def complete_blocks(self, numbers: Iterable[int]) -> set[int]:
        self._tick()
        return self.done & set(numbers)

    def get_blocks(self, start: int, end: int | None = None, limit: int = 10_000) -> list[int]:
        return sorted(n for n in self.done if start <= n and (end is None or n <= end))[:limit]

    def first_available_block(self) -> int | None:
        self._tick()
        return min(self.done, default=None)

    def latest_block(self) -> int | None:
        return max(self.done, default=None)


def test_wait_for_blocks_returns_when_done_or_timed_out() -> None:
    seen: list[int] = []
    outcome = wait_for_blocks(
        FakeReader([0, 1, 2]), first_blocks_target(0, 3), 10, on_progress=seen.append, poll_seconds=0
    )
    assert outcome.done and outcome.missing == ()
    assert seen == [1, 2, 3]
    counted = wait_for_blocks(FakeReader([4, 5]), BlockTarget(2, None, "two"), 10, poll_seconds=0)
    assert counted.done and counted.complete == 2
    started = time.monotonic()
    late = wait_for_blocks(FakeReader([0]), first_blocks_target(0, 3), 0.2, poll_seconds=0.05)
    assert not late.done and late.missing == (1, 2) and time.monotonic() - started < 5


# ---- the command line ----------------------------------------------------------------------------


def test_status_and_down_without_a_stack(tmp_path: Path) -> None:
    runner = CliRunner()
    status = runner.invoke(stack_cmd.stack, ["status", "--state-dir", str(tmp_path)])
    assert status.exit_code == 1
    assert "no stack is recorded" in status.output
    down = runner.invoke(stack_cmd.stack, ["down", "--state-dir", str(tmp_path)])
    assert down.exit_code == 0
    assert "nothing to stop" in down.output


def test_wait_wants_exactly_one_target(tmp_path: Path) -> None:
    result = CliRunner().invoke(stack_cmd.stack, ["wait", "--state-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "exactly one of --blocks N and --for DIR" in result.output


def test_upload_to_a_stack_that_is_not_running(tmp_path: Path, generated_stream_dir: Path) -> None:
    gone = ServiceRecord("query", 2**22 + 54321, "/logs/q.log", "1")
    write_state(make_state(tmp_path, functions=(gone,), owner_pid=2**22 + 54322))
    result = CliRunner().invoke(stack_cmd.stack, ["upload", str(generated_stream_dir), "--state-dir", str(tmp_path)])
    assert isinstance(result.exception, StackError)
    assert "not (fully) running" in str(result.exception)


def test_up_with_a_missing_prerequisite_exits_2_with_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def missing_java(self: stack_module.LocalStack) -> stack_module.LocalStack:
        raise PrerequisiteError("the local stack cannot start:\n  - Java >= 17: no java in PATH; fix: install it")

    monkeypatch.setattr(stack_module.LocalStack, "start", missing_java)
    result = CliRunner().invoke(stack_cmd.stack, ["up", "--state-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "no java in PATH; fix: install it" in result.output
    assert "Traceback" not in result.output


def test_up_refuses_malformed_ports_and_env(tmp_path: Path) -> None:
    runner = CliRunner()
    bad_port = runner.invoke(stack_cmd.stack, ["up", "--state-dir", str(tmp_path), "--port", "query=abc"])
    assert bad_port.exit_code == 2 and "a port is a number" in bad_port.output
    bad_env = runner.invoke(stack_cmd.stack, ["up", "--state-dir", str(tmp_path), "--env", "NOVALUE"])
    assert bad_env.exit_code == 2 and "NAME=VALUE" in bad_env.output
