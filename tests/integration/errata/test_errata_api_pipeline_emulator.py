"""Derived balances at run time, on the emulators: the balance lease (one applier at a time), the
store function applying balances behind the contiguous watermark, and the sweep catching up."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.derived.applier import BalanceApplier
from hedera_history.derived.balances import account_balance, read_progress
from hedera_history.derived.lease import BalanceLease, ExclusiveBalanceApplier
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.pipeline.ingest import ingest_object
from hedera_history.pipeline.sweep import sweep
from hedera_history.store.reader import HistoryReader

from tests.integration.pipeline.harness import Pipeline, make_pipeline
from tests.integration.store.conftest import Store

from .conftest import WrittenScenario

pytestmark = [pytest.mark.emulator]


class Clock:
    def __init__(self, now: float = 1_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_the_lease_admits_one_holder_and_lapses(errata_store: Store) -> None:
    clock = Clock()
    first = BalanceLease(errata_store.gateway, ttl_seconds=10, holder="first", clock=clock)
    second = BalanceLease(errata_store.gateway, ttl_seconds=10, holder="second", clock=clock)
    assert first.acquire() and first.held
    assert not second.acquire()
    assert first.acquire(), "the holder may take its own lease again"
    clock.now += 4
    assert first.keep(), "more than half left: kept without a write"
    clock.now += 2
    assert first.keep(), "less than half left: renewed"
    clock.now += 9
    assert not second.acquire(), "the renewal moved the expiry on"
    clock.now += 2
    assert second.acquire(), "a lapsed lease is free"
    assert not first.keep(), "the old holder finds out at its next renewal"
    second.release()
    assert first.acquire()
    first.release()
    first.release()  # releasing twice is harmless


def test_an_applier_waits_while_another_holds_the_lease(errata_store: Store, written_scenario: WrittenScenario) -> None:
    store = errata_store
    assert all(r.complete for r in store.writer.write_blocks(written_scenario.blocks))
    numbers = [b.block_number for b in written_scenario.blocks]
    settings = store.settings.with_(first_block=numbers[1])
    holder = BalanceLease(store.gateway, holder="another instance")
    assert holder.acquire()
    waiting = ExclusiveBalanceApplier(store.gateway, settings)
    assert waiting.run() is None
    assert read_progress(store.gateway) is None, "nothing written without the lease"
    holder.release()
    report = waiting.run(max_blocks=2)
    assert report is not None and report.applied == numbers[1:3]
    report = waiting.run()
    assert report is not None and report.applied == numbers[3:] and report.stopped_at == numbers[-1] + 1
    assert not waiting.lease.held


def test_threads_sharing_one_applier_take_turns(errata_store: Store, written_scenario: WrittenScenario) -> None:
    store = errata_store
    assert all(r.complete for r in store.writer.write_blocks(written_scenario.blocks))
    entered, go_on = threading.Event(), threading.Event()

    class SlowLease(BalanceLease):
        def acquire(self) -> bool:
            entered.set()
            go_on.wait(10)
            return super().acquire()

    applier = ExclusiveBalanceApplier(store.gateway, store.settings, lease=SlowLease(store.gateway))
    reports: list[Any] = []
    worker = threading.Thread(target=lambda: reports.append(applier.run()))
    worker.start()
    assert entered.wait(10)
    assert applier.run() is None, "the same lease holder in another thread must not run alongside"
    go_on.set()
    worker.join(10)
    assert reports and reports[0] is not None and reports[0].applied


def test_a_run_stops_when_told_to(errata_store: Store, written_scenario: WrittenScenario) -> None:
    store = errata_store
    assert all(r.complete for r in store.writer.write_blocks(written_scenario.blocks))
    calls = iter([True, True, False])
    report = BalanceApplier(store.gateway, store.settings).run(should_continue=lambda: next(calls))
    assert len(report.applied) == 2 and report.interrupted


@pytest.fixture
def pipeline(
    bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path, generated_stream: GeneratedStream
) -> Iterator[Pipeline]:
    first = generated_stream.truth["blocks"][0]["number"]
    yield from make_pipeline(
        bigtable_instance,
        gcs_bucket,
        tmp_path,
        generated_stream.address_book,
        first_block=first,
        balances_blocks_per_store_run=1,
    )


def test_store_applies_balances_behind_the_watermark_and_the_sweep_catches_up(
    pipeline: Pipeline, generated_stream: GeneratedStream
) -> None:
    rng = random.Random(11)
    for name in pipeline.upload(dict(generated_stream.objects), rng):
        ingest_object(pipeline.ingest, name)
    pipeline.drain(rng, redeliver=0.0)
    numbers = [b["number"] for b in generated_stream.truth["blocks"]]
    progress = read_progress(pipeline.gateway)
    assert progress is not None and numbers[0] < progress.next_block, "the store calls applied balances"
    watermark = pipeline.store.tracker.watermark()
    assert watermark is not None and progress.next_block <= watermark.number + 1, "never ahead of the watermark"

    # The sweep rechecks what the rotated key left pending; the next sweep applies what is left.
    sweep(pipeline.ingest)
    pipeline.drain(rng)
    report = sweep(pipeline.ingest)
    assert not report.balances_busy and not report.errors
    progress = read_progress(pipeline.gateway)
    assert progress is not None and progress.next_block == numbers[-1] + 1
    assert HistoryReader(pipeline.gateway).latest_block() == numbers[-1]
    # No snapshot was loaded: derived balances are the stream's transfers from zero.
    truth = generated_stream.truth["balances"]
    for account in set(truth["final"]) | set(truth["genesis"]):
        found = account_balance(pipeline.gateway, account)
        delta = truth["final"].get(account, 0) - truth["genesis"].get(account, 0)
        assert (found.balance if found is not None else 0) == delta, account
