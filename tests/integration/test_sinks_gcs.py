"""GcsSink against the sink contract on the GCS emulator (which ignores ifGenerationMatch: the
create request and a taken name's answers are in tests/unit/test_source_errors.py)."""

from __future__ import annotations

from typing import Any

from hedera_history.config import Settings
from hedera_history.sources import open_sink

from tests.fixtures.emulators import PROJECT
from tests.sink_contract import check_sink_contract


def test_contract_through_open_sink(gcs_bucket: Any) -> None:
    sink = open_sink(f"gs://{gcs_bucket.name}/streams", Settings.from_env(project=PROJECT))
    check_sink_contract(
        sink, lambda name: gcs_bucket.blob("streams/" + name).download_as_bytes(), refuses_taken_names=False
    )
