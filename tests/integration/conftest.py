"""Fixtures of the integration tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.gen.config_and_output import GeneratedStream

from tests.integration.pipeline.harness import Pipeline, make_pipeline


@pytest.fixture
def pipeline_settings() -> dict[str, Any]:
    """Settings a module's ``pipeline`` takes beyond the harness's; a module overrides this fixture."""
    return {}


@pytest.fixture
def pipeline(
    bigtable_instance: Any,
    gcs_bucket: Any,
    pubsub_emulator: Any,
    tmp_path: Path,
    stream: GeneratedStream,
    pipeline_settings: dict[str, Any],
) -> Iterator[Pipeline]:
    """Ingest and store on the emulators for the module's ``stream``, numbered from its first block."""
    settings = {"first_block": stream.truth["blocks"][0]["number"], **pipeline_settings}
    yield from make_pipeline(bigtable_instance, gcs_bucket, tmp_path, stream.address_book, **settings)
