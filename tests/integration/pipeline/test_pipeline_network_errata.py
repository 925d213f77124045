"""``--network mainnet`` on the Pub/Sub pipeline: a generated stream over 2019-09-17T00:32:56Z, where
mainnet's record files miss 27 transactions, gets them inserted with the errata marker by the store
function (the network errata pass after each move of the watermark)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.errata.network import mainnet_errata
from hedera_history.errata.read import errata_marker, mirror_errata_field
from hedera_history.gen import GeneratorConfig, generate_stream
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.store.reader import HistoryReader

from .harness import Pipeline, make_pipeline

pytestmark = [pytest.mark.emulator]

NS = 1_000_000_000


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(
        GeneratorConfig(periods=4, transactions=5, seed=7, start_time_ns=1_568_680_376 * NS, rotate_key=False)
    )


@pytest.fixture
def pipeline(
    bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path, stream: GeneratedStream
) -> Iterator[Pipeline]:
    yield from make_pipeline(bigtable_instance, gcs_bucket, tmp_path, stream.address_book, network="mainnet")


def test_the_store_function_inserts_mainnet_s_missing_transactions(pipeline: Pipeline, stream: GeneratedStream) -> None:
    assert pipeline.store.network_errata is not None
    rng = random.Random(5)
    pipeline.run_stream(dict(stream.objects), rng)
    watermark = pipeline.store.tracker.watermark()
    assert watermark is not None and watermark.number == stream.truth["blocks"][-1]["number"]

    first, last = stream.periods[0].consensus_start_ns, stream.periods[-1].consensus_end_ns
    expected = [e for e in mainnet_errata().missing if first <= e.time_of_error <= last]
    assert len(expected) >= 20
    reader = HistoryReader(pipeline.gateway)
    for errata in expected:
        stored = reader.transaction(errata.time_of_error)
        assert stored is not None and errata.body.correct_item is not None
        assert stored.record_bytes == errata.body.correct_item.record_bytes
        assert mirror_errata_field(errata_marker(pipeline.gateway, errata.time_of_error)) == "INSERT"
