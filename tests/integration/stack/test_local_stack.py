"""The local stack on the real emulators: every function answers, an upload becomes exactly one
CloudEvent, a generated stream goes all the way to the query API, and `stack down` (from the
command line) leaves no process behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests
from hedera_history.localstack.bridges import StackBridges
from hedera_history.localstack.function_process import framework_answers
from hedera_history.localstack.processes import process_group_alive
from hedera_history.localstack.stack import LocalStack
from hedera_history.localstack.stack_progress import directory_target, open_gateway_for, read_progress, wait_for_blocks
from hedera_history.localstack.stack_state import read_state
from hedera_history.localstack.upload import find_stream_files, install_address_book, plan_uploads, upload_files
from hedera_history.sources.gcs import GcsSink
from hedera_history.store.reader import HistoryReader

from tests.fixtures.stack import StackFactory
from tests.http_recorder import Recorded, RecordingServer

pytestmark = [pytest.mark.emulator, pytest.mark.e2e]

OBJECT = "recordstreams/record0.0.3/2024-01-01T00_00_02.000000000Z.rcd_sig"


def _rpc(url: str, method: str, params: list[Any]) -> Any:
    answer = requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, timeout=30)
    answer.raise_for_status()
    return answer.json()["result"]


def _children(parent: int) -> list[int]:
    """The processes whose parent is ``parent`` (Linux: /proc/<pid>/stat's fourth field)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent:
            children.append(int(stat.parent.name))
    return children


def _wait(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def _ingest_events(server: RecordingServer) -> list[Recorded]:
    return [r for r in server.requests if r.path == "/ingest"]


def test_every_function_answers_and_an_upload_makes_exactly_one_cloud_event(
    local_stack_factory: StackFactory, generated_stream_dir: Path
) -> None:
    with RecordingServer() as recorder:
        stack = local_stack_factory(
            address_book=generated_stream_dir / "address-book.bin",
            ingest_endpoint=recorder.url + "/ingest",
            sweep_endpoint=recorder.url + "/sweep",
            sweep_interval_seconds=0.3,
        )
        state = stack.state
        assert Path(state.address_book).read_bytes() == (generated_stream_dir / "address-book.bin").read_bytes()

        openapi = requests.get(stack.url("query") + "/openapi.json", timeout=30)
        assert openapi.status_code == 200 and "openapi" in openapi.json()
        assert framework_answers(stack.url("ingest"))
        swept = requests.post(stack.url("sweep"), json={}, timeout=60)
        assert swept.status_code == 200, swept.text
        refused = requests.post(
            stack.url("store"), data=b"{}", headers={"Content-Type": "application/json"}, timeout=30
        )
        assert refused.status_code == 400  # the store function itself answered: no message in the body
        arbiter = stack.function("store").record().pid  # gunicorn's, whose children are the workers
        workers = stack.config.store_processes
        assert workers > 1
        assert _wait(lambda: len(_children(arbiter)) == workers, 60), _children(arbiter)

        sink = GcsSink(state.bucket, project=state.project, emulator_host=state.storage_endpoint)
        sink.write(OBJECT, b"first")
        assert recorder.wait_for(lambda r: len(_ingest_events(recorder)) >= 1, timeout=30)
        time.sleep(1.0)  # five more polls of an unchanged bucket
        events = _ingest_events(recorder)
        assert len(events) == 1
        first = events[0]
        assert first.method == "POST"
        assert first.headers["ce-type"] == "google.cloud.storage.object.v1.finalized"
        assert first.headers["ce-source"] == f"//storage.googleapis.com/projects/_/buckets/{state.bucket}"
        assert first.headers["ce-subject"] == f"objects/{OBJECT}"
        data = json.loads(first.body)
        assert (data["bucket"], data["name"], data["size"]) == (state.bucket, OBJECT, "5")

        sink.write(OBJECT, b"second")  # a re-upload: a new generation, a new event
        assert recorder.wait_for(lambda r: len(_ingest_events(recorder)) >= 2, timeout=30)
        second = json.loads(_ingest_events(recorder)[1].body)
        assert second["generation"] != data["generation"]

        assert recorder.wait_for(lambda r: any(x.path == "/sweep" for x in r), timeout=30)
        sweep_call = next(r for r in recorder.requests if r.path == "/sweep")
        assert (sweep_call.method, sweep_call.body) == ("POST", b"{}")
        stack.stop()


def test_a_generated_stream_goes_all_the_way_to_the_query_api(
    local_stack: LocalStack, generated_stream_dir: Path
) -> None:
    state = local_stack.state
    install_address_book(state, generated_stream_dir)
    files = find_stream_files(generated_stream_dir)
    uploads = upload_files(state, plan_uploads(files, shuffle=True, duplicates=4, seed=1))
    target = directory_target(generated_stream_dir)
    outcome = wait_for_blocks(HistoryReader(open_gateway_for(state)), target, timeout=180)
    assert outcome.done, f"missing blocks {outcome.missing} after {outcome.seconds:.0f} s"

    query = local_stack.url("query")
    assert _rpc(query, "getBlocks", [0, 100]) == list(target.numbers or ())
    progress = read_progress(open_gateway_for(state))
    assert progress.complete_blocks == target.count
    assert (progress.first_block, progress.last_block) == (min(target.numbers or ()), max(target.numbers or ()))
    assert progress.quarantined == 0
    bridges = local_stack.bridges
    assert isinstance(bridges, StackBridges)
    stats = bridges.stats()
    # Every file had its event; a re-upload polled together with its first upload shares that one.
    assert len(files) <= stats.events_sent <= uploads and stats.events_dropped == 0
    assert stats.store_acked > 0


# ---- the command line (detached stack, its own emulators) ------------------------------------------


def _cli(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hedera_history.cli.main", "stack", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_cli_up_upload_wait_status_down_leaves_no_process_behind(tmp_path: Path, generated_stream_dir: Path) -> None:
    state_dir = tmp_path / "stack"
    started = _cli("up", "--state-dir", str(state_dir), "--sweep-interval", "0")
    assert started.returncode == 0, started.stderr
    assert "export BIGTABLE_EMULATOR_HOST=127.0.0.1:" in started.stdout
    state = read_state(state_dir)
    assert state is not None
    try:
        pids = [record.pid for record in state.services()]
        assert {record.name for record in state.services()} == {
            "bridge",
            "ingest",
            "sweep",
            "store",
            "query",
            "bigtable",
            "pubsub",
            "gcs",
        }
        assert all(process_group_alive(pid) for pid in pids)

        status = _cli("status", "--state-dir", str(state_dir), "--json")
        assert status.returncode == 0, status.stderr
        report = json.loads(status.stdout)
        assert all(report["running"].values())
        assert report["progress"]["complete_blocks"] == 0
        assert report["endpoints"]["query"] == state.function_url("query")

        again = _cli("up", "--state-dir", str(state_dir))
        assert again.returncode == 1 and "already running" in again.stderr

        too_soon = _cli("wait", "--state-dir", str(state_dir), "--blocks", "2", "--timeout", "1")
        assert too_soon.returncode == 1
        assert "0 of 2 complete" in too_soon.stderr and "missing: 0-1" in too_soon.stderr
        uploaded = _cli("upload", str(generated_stream_dir), "--state-dir", str(state_dir), "--duplicates", "3")
        assert uploaded.returncode == 0, uploaded.stderr
        assert "installed" in uploaded.stderr  # the directory's address book: up was given none
        said = " ".join(uploaded.stderr.split())  # the console wraps long lines
        assert "address book: recorded in force from the first period" in said
        assert "genesis-balances.json loaded as the starting balances" in said
        waited = _cli("wait", "--state-dir", str(state_dir), "--for", str(generated_stream_dir), "--timeout", "120")
        assert waited.returncode == 0, waited.stderr
        report = json.loads(_cli("status", "--state-dir", str(state_dir), "--json").stdout)
        blocks = len(json.loads((generated_stream_dir / "ground-truth.json").read_text())["blocks"])
        assert report["progress"]["complete_blocks"] == blocks
        assert report["progress"]["quarantined"] == 0
        # What load records too (pipeline.history_start): the books and the balances answer.
        nodes = requests.get(state.function_url("query") + "/api/v1/network/nodes", timeout=30).json()["nodes"]
        assert [n["node_account_id"] for n in nodes] == ["0.0.3", "0.0.4", "0.0.5", "0.0.6"]

        assert state.bridge is not None
        os.killpg(state.bridge.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while process_group_alive(state.bridge.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        broken = _cli("status", "--state-dir", str(state_dir), "--json")
        assert broken.returncode == 1
        assert json.loads(broken.stdout)["running"]["bridge"] is False
    finally:
        stopped = _cli("down", "--state-dir", str(state_dir))
    assert stopped.returncode == 0, stopped.stderr
    assert "bridge: was not running" in stopped.stdout
    assert "query: stopped" in stopped.stdout
    assert not any(process_group_alive(pid) for pid in pids)
    assert read_state(state_dir) is None
    assert "nothing to stop" in _cli("down", "--state-dir", str(state_dir)).stdout
