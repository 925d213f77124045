"""The demo's flow for derived balances, in process on the emulators: the generated genesis balances
are loaded after the functions are up but before the first block, the stream goes through ingest
and store in shuffled order, the sweep catches up, and no account's balance is negative: every one
is the ledger's final balance."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.derived.balances import account_balance, read_progress, read_start
from hedera_history.derived.snapshot import load_snapshot, parse_snapshot
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.gen.writer import GENESIS_BALANCES_FILE
from hedera_history.pipeline.ingest import ingest_object
from hedera_history.pipeline.sweep import sweep

from tests.integration.pipeline.harness import Pipeline, make_pipeline

pytestmark = [pytest.mark.emulator]


@pytest.fixture
def pipeline(
    bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path, generated_stream: GeneratedStream
) -> Iterator[Pipeline]:
    yield from make_pipeline(
        bigtable_instance,
        gcs_bucket,
        tmp_path,
        generated_stream.address_book,
        first_block=generated_stream.truth["blocks"][0]["number"],
        balances_blocks_per_store_run=2,
    )


def test_balances_start_from_the_genesis_snapshot_and_never_go_negative(
    pipeline: Pipeline, generated_stream: GeneratedStream, generated_stream_dir: Path
) -> None:
    first = generated_stream.truth["blocks"][0]["number"]
    # The sweep runs as soon as the stack is up: before the first block it must not begin balances
    # from zero, or the snapshot would be refused.
    sweep(pipeline.ingest)
    assert read_start(pipeline.gateway) is None
    snapshot_file = generated_stream_dir / GENESIS_BALANCES_FILE
    load_snapshot(
        pipeline.gateway, pipeline.settings, parse_snapshot(snapshot_file.read_bytes(), snapshot_file.name), first
    )

    rng = random.Random(5)
    for name in pipeline.upload(dict(generated_stream.objects), rng):
        ingest_object(pipeline.ingest, name)
    pipeline.drain(rng, redeliver=0.0)
    for _ in range(3):  # rechecks of the rotated key, then the balance catch-up
        sweep(pipeline.ingest)
        pipeline.drain(rng)
    numbers = [b["number"] for b in generated_stream.truth["blocks"]]
    progress = read_progress(pipeline.gateway)
    assert progress is not None and progress.next_block == numbers[-1] + 1

    truth = generated_stream.truth["balances"]
    for account in set(truth["genesis"]) | set(truth["final"]):
        found = account_balance(pipeline.gateway, account)
        balance = found.balance if found is not None else 0
        assert balance >= 0, f"{account} is negative: {balance}"
        assert balance == truth["final"].get(account, 0), account
