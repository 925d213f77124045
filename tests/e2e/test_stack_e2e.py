"""End to end on the local stack: uploads into the bucket, CloudEvents to ingest over HTTP, Pub/Sub
pushes to store over HTTP, answers from the query function over HTTP — nothing called in process.

- every node's copy of a generated stream (with sidecars), shuffled, with duplicate uploads: every
  block complete, and every answer equal to the generator's ground truth;
- one node's copies tampered (and signed as tampered): that node is rejected and quarantined,
  consensus holds, nothing of its copies is stored;
- fewer than 1/3 of the stake signed: nothing stored, every period reported pending;
- the real files of ../shared/data/hedera through the same path.
"""

from __future__ import annotations

import base64
import random
import time
from pathlib import Path
from typing import Any

import pytest
import requests
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.gen.tamper import only_nodes, tamper
from hedera_history.localstack.stack import LocalStack
from hedera_history.localstack.stack_progress import (
    directory_target,
    first_blocks_target,
    open_gateway_for,
    read_progress,
    wait_for_blocks,
)
from hedera_history.localstack.upload import find_stream_files, install_address_book, plan_uploads, upload_files
from hedera_history.store.reader import HistoryReader

from tests.conformance.golden import BOOKS, RECORD_FILES
from tests.fixtures.stack import StackFactory

pytestmark = [pytest.mark.emulator, pytest.mark.e2e]

WAIT_SECONDS = 180
SWEEP_MIN_AGE_SECONDS = "2"


def rpc(stack: LocalStack, method: str, *params: Any) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
    answer = requests.post(stack.url("query"), json=body, timeout=30)
    answer.raise_for_status()
    payload = answer.json()
    assert "error" not in payload, payload
    return payload["result"]


def rest(stack: LocalStack, path: str) -> Any:
    answer = requests.get(stack.url("query").rstrip("/") + path, timeout=30)
    answer.raise_for_status()
    return answer.json()


def upload_dir(stack: LocalStack, directory: Path, *, duplicates: int = 0, seed: int = 1) -> None:
    install_address_book(stack.state, directory)
    upload_files(
        stack.state, plan_uploads(find_stream_files(directory), shuffle=True, duplicates=duplicates, seed=seed)
    )


def written(stream: GeneratedStream, directory: Path) -> Path:
    write_stream(stream, directory)
    return directory


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(GeneratorConfig(nodes=4, periods=6, transactions=30, sidecars=True, seed=21))


def test_every_copy_shuffled_with_duplicates_gives_the_ground_truth(
    local_stack_factory: StackFactory, stream: GeneratedStream, tmp_path: Path
) -> None:
    truth = stream.truth
    first = truth["blocks"][0]["number"]
    stack = local_stack_factory(first_block=first)
    directory = written(stream, tmp_path / "stream")
    upload_dir(stack, directory, duplicates=15)
    outcome = wait_for_blocks(HistoryReader(open_gateway_for(stack.state)), directory_target(directory), WAIT_SECONDS)
    assert outcome.done, f"missing blocks {outcome.missing} after {outcome.seconds:.0f} s"

    numbers = [b["number"] for b in truth["blocks"]]
    assert rpc(stack, "getBlocks", numbers[0], numbers[-1]) == numbers
    assert rpc(stack, "getFirstAvailableBlock") == numbers[0]
    for expected in truth["blocks"]:
        block = rest(stack, f"/api/v1/blocks/{expected['number']}")
        assert block["hash"].removeprefix("0x") == expected["end_running_hash"]
        assert block["count"] == expected["item_count"]
    rng = random.Random(0)
    for expected in rng.sample(truth["transactions"], 40):
        got = rpc(stack, "getTransaction", expected["hash"])
        assert got is not None, expected["hash"]
        assert base64.b64decode(got["transaction_hash"]).hex() == expected["hash"]
        assert got["result"] == expected["status"]
        assert got["charged_tx_fee"] == expected["fee"]
    for account, times in list(truth["accounts"].items())[:5]:
        history = rpc(stack, "getTransactionsForAccount", account, {"limit": 1000})
        got_times = [int(t["consensus_timestamp"].replace(".", "")) for t in history["transactions"]]
        assert got_times == sorted(times, reverse=True)

    progress = read_progress(open_gateway_for(stack.state))
    assert progress.complete_blocks == len(numbers)
    assert progress.quarantined == 0
    assert progress.pending_periods == 0


def test_a_tampered_node_is_rejected_while_consensus_holds(
    local_stack_factory: StackFactory, stream: GeneratedStream, tmp_path: Path
) -> None:
    victim = stream.nodes[2].account
    tampered = stream
    for period in range(len(stream.periods)):
        tampered = tamper(tampered, victim, period, resign=True)
    first = stream.truth["blocks"][0]["number"]
    stack = local_stack_factory(first_block=first)
    directory = written(tampered, tmp_path / "tampered")
    upload_dir(stack, directory, seed=2)
    target = first_blocks_target(first, len(stream.periods))
    outcome = wait_for_blocks(HistoryReader(open_gateway_for(stack.state)), target, WAIT_SECONDS)
    assert outcome.done, f"missing blocks {outcome.missing}"

    for expected in stream.truth["blocks"]:
        block = rest(stack, f"/api/v1/blocks/{expected['number']}")
        assert block["hash"].removeprefix("0x") == expected["end_running_hash"]  # the honest nodes' file
        stored = HistoryReader(open_gateway_for(stack.state)).get_block(expected["number"])
        assert stored is not None
        assert victim not in {s.node_account for s in stored.signatures}
    deadline = time.monotonic() + 30
    while read_progress(open_gateway_for(stack.state)).quarantined == 0 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert read_progress(open_gateway_for(stack.state)).quarantined > 0


def test_too_little_stake_stores_nothing_and_reports_every_period(
    local_stack_factory: StackFactory, stream: GeneratedStream, tmp_path: Path
) -> None:
    lonely = only_nodes(stream, [stream.nodes[0].account])
    stack = local_stack_factory(first_block=stream.truth["blocks"][0]["number"])
    directory = written(lonely, tmp_path / "lonely")
    upload_dir(stack, directory)
    deadline = time.monotonic() + 60
    progress = read_progress(open_gateway_for(stack.state))
    while progress.pending_periods < len(stream.periods) and time.monotonic() < deadline:
        time.sleep(0.5)
        progress = read_progress(open_gateway_for(stack.state))
    time.sleep(3)  # a few sweeps
    progress = read_progress(open_gateway_for(stack.state))
    assert progress.pending_periods == len(stream.periods)
    assert progress.complete_blocks == 0
    assert rpc(stack, "getFirstAvailableBlock") is None


def real_set(hedera_data: Path, folder: str, tmp_path: Path) -> Path:
    """A copy of one real set with its address book beside it, as ``upload_dir`` takes it."""
    directory = tmp_path / folder
    for path in (hedera_data / folder).rglob("*"):
        if path.is_file() and path.name != "EXPECTED.json":
            target = directory / path.relative_to(hedera_data / folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    (directory / "address-book.bin").write_bytes((hedera_data / BOOKS[folder]).read_bytes())
    return directory


def test_the_real_v6_files_through_the_same_path(
    local_stack_factory: StackFactory, hedera_data: Path, tmp_path: Path
) -> None:
    directory = real_set(hedera_data, "v6", tmp_path)
    stack = local_stack_factory(first_block=5)
    upload_dir(stack, directory, duplicates=3)
    outcome = wait_for_blocks(HistoryReader(open_gateway_for(stack.state)), first_blocks_target(5, 2), WAIT_SECONDS)
    assert outcome.done, f"missing blocks {outcome.missing}"
    block = rest(stack, "/api/v1/blocks/6")
    assert block["hash"].removeprefix("0x").startswith("3064b824b8b9f9ece011f88a26")
    actions = rest(stack, "/api/v1/contracts/results/1657701971.304284003/actions")
    assert isinstance(actions["actions"], list)


@pytest.mark.parametrize("folder", ["v1", "v2", "v5"])
def test_the_real_files_before_v6_through_the_same_path(
    local_stack_factory: StackFactory, hedera_data: Path, tmp_path: Path, folder: str
) -> None:
    goldens = [g for g in RECORD_FILES if g.folder == folder]
    # The sweep numbers the first block start_block (0); it retries a period once its newest upload
    # is SWEEP_MIN_AGE_SECONDS old (production: 60 s, the most of this test's wall time).
    stack = local_stack_factory(
        first_block=0, extra_env={"HEDERA_HISTORY_SWEEP_MIN_AGE_SECONDS": SWEEP_MIN_AGE_SECONDS}
    )
    upload_dir(stack, real_set(hedera_data, folder, tmp_path), duplicates=1)
    outcome = wait_for_blocks(HistoryReader(open_gateway_for(stack.state)), first_blocks_target(0, 2), WAIT_SECONDS)
    assert outcome.done, f"missing blocks {outcome.missing}"
    for number, golden in enumerate(goldens):
        block = rest(stack, f"/api/v1/blocks/{number}")
        assert block["name"] == golden.name
        assert block["count"] == golden.count
        assert block["record_file_version"] == golden.version
        assert block["hapi_version"] == ".".join(str(part) for part in golden.hapi_version)
        assert block["hash"] == "0x" + golden.end_running_hash
        assert block["file_hash"] == "0x" + golden.file_hash
        assert block["previous_hash"] == "0x" + golden.previous_hash
        assert block["timestamp"]["from"] == f"{golden.consensus_start // 10**9}.{golden.consensus_start % 10**9:09d}"
        assert block["timestamp"]["to"] == f"{golden.consensus_end // 10**9}.{golden.consensus_end % 10**9:09d}"
        if golden.index is not None:
            assert number == golden.index
