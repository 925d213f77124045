"""Errata files and their node signatures uploaded with the stream, in random order, handled by the
same ingest function as the record files: once everything is in, the missing record is there, the
inconsistent one is gone, and the answers carry the errata marker."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hedera_history.errata.read import errata_marker, mirror_errata_field
from hedera_history.pipeline.ingest import Outcome, ingest_object
from hedera_history.pipeline.sweep import sweep
from hedera_history.store.reader import HistoryReader

from tests.integration.pipeline.harness import make_pipeline

from .conftest import WrittenScenario

pytestmark = [pytest.mark.emulator]


def test_errata_uploaded_with_the_stream_are_applied_through_ingest(
    written_scenario: WrittenScenario, bigtable_instance: Any, gcs_bucket: Any, pubsub_emulator: Any, tmp_path: Path
) -> None:
    scenario = written_scenario.scenario
    stream = scenario.stream
    first = stream.truth["blocks"][0]["number"]
    keys = ",".join(scenario.council_keys)
    for pipeline in make_pipeline(
        bigtable_instance, gcs_bucket, tmp_path, stream.address_book, first_block=first, errata_council_keys=keys
    ):
        rng = random.Random(5)
        outcomes: Counter[Outcome] = Counter()
        for name in pipeline.upload(scenario.objects, rng):
            outcomes[ingest_object(pipeline.ingest, name).outcome] += 1
        pipeline.drain(rng)
        for _ in range(2):  # blocks first, then the errata that waited for them, then rechecks
            sweep(pipeline.ingest)
            pipeline.drain(rng)
        assert Outcome.QUARANTINED not in outcomes
        assert pipeline.ingest.state.errata_pending(10) == []

        reader = HistoryReader(pipeline.gateway)
        missing, phantom = scenario.missing, scenario.inconsistent
        inserted = reader.transaction(missing["consensus_ns"])
        assert inserted is not None
        assert inserted.record().transactionHash.hex() == missing["hash"]
        marker = errata_marker(pipeline.gateway, missing["consensus_ns"])
        assert mirror_errata_field(marker) == "INSERT"
        assert reader.transaction_by_hash(bytes.fromhex(phantom["hash"])) is None
