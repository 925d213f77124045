"""The ingest and store steps on the real emulators (GCS, Pub/Sub, Bigtable), called in process.

Every node's copy of every file of a generated stream is "uploaded" in random order with
duplicates and handed to ingest; the messages it publishes are pulled from the store
subscriptions and handed to store in random order with redeliveries. The history tables must then
hold exactly the cells the single-process path (verify + BlockWriter) writes for the same stream.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hedera_history.formats.names import parse_timestamp
from hedera_history.gen.config_and_output import GeneratedStream, GeneratorConfig
from hedera_history.gen.stream import generate_stream
from hedera_history.gen.tamper import tamper
from hedera_history.pipeline.ingest import Outcome, ingest_object
from hedera_history.pipeline.runtime import build_ingest_context
from hedera_history.pipeline.sweep import sweep
from hedera_history.store.reader import HistoryReader

from .harness import Pipeline, history_cells, reference_cells

pytestmark = [pytest.mark.emulator]


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(GeneratorConfig(nodes=4, periods=6, transactions=24, sidecars=True, seed=5))


def test_every_copy_shuffled_with_duplicates_stores_exactly_the_reference_cells(
    pipeline: Pipeline, stream: GeneratedStream, bigtable_instance: Any, tmp_path: Path
) -> None:
    rng = random.Random(7)
    # The key rotated in the stream is only certain once the store advanced the books: the sweep
    # then rechecks the signatures that failed on the old book, and retries what is pending.
    results = pipeline.run_stream(dict(stream.objects), rng, duplicates=10)
    outcomes = [result.outcome for result in results]
    assert Outcome.PUBLISHED in outcomes
    assert [r for r in results if r.outcome is Outcome.QUARANTINED] == []

    reader = HistoryReader(pipeline.gateway)
    numbers = [b["number"] for b in stream.truth["blocks"]]
    assert reader.get_blocks(numbers[0], numbers[-1]) == numbers
    assert pipeline.ingest.state.pending(100) == []
    assert pipeline.ingest.state.quarantined() == []
    assert pipeline.ingest.state.broken_links() == {}
    watermark = pipeline.store.tracker.watermark()
    assert watermark is not None and watermark.number == numbers[-1]
    assert pipeline.completions() == {number: 1 for number in numbers}, "every block completes exactly once"

    assert history_cells(pipeline.gateway) == reference_cells(bigtable_instance, stream, tmp_path)


def test_a_tampered_node_is_quarantined_and_nothing_of_it_is_stored(
    pipeline: Pipeline, stream: GeneratedStream
) -> None:
    rng = random.Random(3)
    victim = stream.nodes[1].account
    tampered = stream
    for period in range(len(stream.periods)):  # every copy damaged, and signed as it is
        tampered = tamper(tampered, victim, period, resign=True)
    pipeline.run_stream(dict(tampered.objects), rng)

    reader = HistoryReader(pipeline.gateway)
    numbers = [b["number"] for b in stream.truth["blocks"]]
    assert reader.get_blocks(numbers[0], numbers[-1]) == numbers
    quarantined = pipeline.ingest.state.quarantined()
    assert quarantined and all(victim in path for path, _ in quarantined)
    for number in numbers:
        block = reader.get_block(number)
        assert block is not None
        assert victim not in {signature.node_account for signature in block.signatures}


def test_a_late_copy_is_read_only_from_a_node_that_did_not_sign_the_block_or_when_every_copy_is_checked(
    pipeline: Pipeline, stream: GeneratedStream
) -> None:
    rng = random.Random(13)
    victim = stream.nodes[2]
    damaged = tamper(stream, victim.account, 0)  # the copy damaged, its signature still of the true file
    copy = damaged.record_path(victim.node_id, 0)
    pipeline.run_stream({name: data for name, data in damaged.objects.items() if name != copy}, rng)
    first = stream.truth["blocks"][0]
    period = pipeline.ingest.state.period(parse_timestamp(first["name"].split(".rcd")[0]))
    assert period is not None and period.published is not None
    assert victim.account in period.published.signers

    [name] = pipeline.upload({copy: damaged.objects[copy]}, rng)
    late = ingest_object(pipeline.ingest, name)
    assert (late.outcome, late.quarantined) == (Outcome.ALREADY_PUBLISHED, ())
    assert pipeline.ingest.state.quarantined() == []

    auditing = build_ingest_context(
        replace(pipeline.settings, check_every_copy=True), pipeline.bucket.name, gateway=pipeline.gateway
    )
    try:
        audited = ingest_object(auditing, name)
    finally:
        auditing.publisher.close()  # type: ignore[attr-defined]
    assert (audited.outcome, audited.quarantined) == (Outcome.QUARANTINED, (copy,))
    assert [path for path, _ in pipeline.ingest.state.quarantined()] == [copy]


def test_a_late_copy_is_read_when_its_nodes_signature_disowns_it_not_when_it_signed_late_or_is_not_in(
    pipeline: Pipeline, stream: GeneratedStream
) -> None:
    rng = random.Random(14)
    late, forked = stream.nodes[2], stream.nodes[3]
    damaged = tamper(stream, late.account, 0)  # its copy damaged, its signature of the true file
    damaged = tamper(damaged, forked.account, 0, resign=True)  # its copy damaged and signed as it is
    signature = {n.account: damaged.signature_path(n.node_id, 0) for n in (late, forked)}
    copy = {n.account: damaged.record_path(n.node_id, 0) for n in (late, forked)}
    held = set(signature.values()) | set(copy.values())
    pipeline.run_stream({name: data for name, data in damaged.objects.items() if name not in held}, rng)
    first = stream.truth["blocks"][0]
    period = pipeline.ingest.state.period(parse_timestamp(first["name"].split(".rcd")[0]))
    assert period is not None and period.published is not None
    assert not {late.account, forked.account} & period.published.signers

    def arrives(path: str) -> tuple[Outcome, tuple[str, ...]]:
        [name] = pipeline.upload({path: damaged.objects[path]}, rng)
        result = ingest_object(pipeline.ingest, name)
        return result.outcome, result.quarantined

    assert arrives(copy[forked.account]) == (Outcome.ALREADY_PUBLISHED, ())  # its signature not in yet
    assert arrives(signature[late.account])[0] is Outcome.SIGNATURE_ADDED
    assert arrives(copy[late.account]) == (Outcome.ALREADY_PUBLISHED, ())  # its signature vouches for it
    assert arrives(signature[forked.account]) == (Outcome.QUARANTINED, (signature[forked.account],))
    assert arrives(copy[forked.account]) == (Outcome.QUARANTINED, (copy[forked.account],))  # disowned
    quarantined = {path for path, _ in pipeline.ingest.state.quarantined()}
    assert quarantined == {signature[forked.account], copy[forked.account]}


def test_too_few_signatures_store_nothing_and_the_period_stays_pending(
    pipeline: Pipeline, stream: GeneratedStream
) -> None:
    rng = random.Random(4)
    only = stream.nodes[0].account
    objects = {name: data for name, data in stream.objects.items() if f"record{only}/" in name}
    for name in pipeline.upload(objects, rng):
        result = ingest_object(pipeline.ingest, name)
        assert result.outcome is Outcome.PENDING
    assert pipeline.drain(rng) == 0
    pending = pipeline.ingest.state.pending(100)
    assert len(pending) == len(stream.truth["blocks"])
    reason = pipeline.ingest.state.period(pending[0].consensus_ns)
    assert reason is not None and "stake" in reason.reason.lower()
    reader = HistoryReader(pipeline.gateway)
    assert reader.first_available_block() is None


def test_concurrent_uploads_of_one_period_publish_it_once(
    pipeline: Pipeline, stream: GeneratedStream, caplog: pytest.LogCaptureFixture
) -> None:
    rng = random.Random(11)
    names = pipeline.upload(dict(stream.objects), rng, duplicates=10)
    caplog.set_level(logging.INFO, logger="hedera_history.pipeline.ingest")
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda name: ingest_object(pipeline.ingest, name), names))
    # A period held for the state in force may be published by the run that released it (its
    # result speaks of that run's own period) or by the sweep: count publications, not results.
    sweep(pipeline.ingest)
    verified = [r for r in caplog.records if r.getMessage() == "period verified"]
    published = Counter(r.fields["period"] for r in verified)  # type: ignore[attr-defined]
    assert published == {p.record_name.period_key: 1 for p in stream.periods}
    pipeline.drain(rng)
    sweep(pipeline.ingest)
    reader = HistoryReader(pipeline.gateway)
    numbers = [b["number"] for b in stream.truth["blocks"]]
    assert reader.get_blocks(numbers[0], numbers[-1]) == numbers


def test_a_block_that_does_not_link_to_its_neighbour_is_recorded_as_broken_and_not_published(
    pipeline: Pipeline, stream: GeneratedStream, caplog: pytest.LogCaptureFixture
) -> None:
    rng = random.Random(12)
    blocks = stream.truth["blocks"]
    before, block = blocks[2], blocks[3]
    pipeline.ingest.state.record_link(before["number"], b"\x07" * 48, b"\x00" * 48, before["name"])
    key = block["name"].split(".rcd")[0]
    objects = {name: data for name, data in stream.objects.items() if key in name}
    with caplog.at_level("ERROR"):
        for name in pipeline.upload(objects, rng):
            ingest_object(pipeline.ingest, name)
    broken = pipeline.ingest.state.broken_links()
    assert list(broken) == [block["number"]]
    assert "names its predecessor" in broken[block["number"]]
    assert any(record.getMessage() == "chain link broken" for record in caplog.records)
    # never published: pending with the break as its reason, nothing of it stored
    [pending] = pipeline.ingest.state.pending(10)
    assert pending.period_key == key
    state = pipeline.ingest.state.period(pending.consensus_ns)
    assert state is not None and state.reason.startswith("broken chain link, kept out of the history")
    pipeline.drain(rng)
    assert HistoryReader(pipeline.gateway).get_block(block["number"]) is None


def test_a_run_that_read_the_period_before_another_published_it_does_not_publish_it_again(
    pipeline: Pipeline, stream: GeneratedStream, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(12)
    first = stream.periods[0]
    objects = {path: data for path, data in stream.objects.items() if first.record_name.period_key in path}
    names = pipeline.upload(objects, rng)
    assert Outcome.PUBLISHED in {ingest_object(pipeline.ingest, name).outcome for name in names}
    # A later run read the period's state just before the first run marked it published and let
    # its claim go: its first read answers "not published", and its claim succeeds.
    read_state = pipeline.ingest.state.period_and_claim
    stale: list[int] = []

    def read_before_the_publication(consensus_ns: int, **options: Any) -> Any:
        if not stale:
            stale.append(consensus_ns)
            return None, read_state(consensus_ns)[1]  # the claim cell as it is now: the claim succeeds
        return read_state(consensus_ns, **options)

    monkeypatch.setattr(pipeline.ingest.state, "period_and_claim", read_before_the_publication)
    caplog.set_level(logging.INFO, logger="hedera_history.pipeline.ingest")
    result = ingest_object(pipeline.ingest, names[0])
    assert stale and result.outcome is not Outcome.PUBLISHED
    assert not [r for r in caplog.records if r.getMessage() == "period verified"]
