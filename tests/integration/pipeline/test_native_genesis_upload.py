"""A network on block streams from its first block, uploaded: block 0 has no predecessor to look
up in the store (asking for block -1 raised ``RowLayoutError`` and quarantined it, so nothing of the
stream was ever published). Every block is published and completes, on the real emulators."""

from __future__ import annotations

import random

import pytest
from hedera_history.gen.config_and_output import GeneratedStream, GeneratorConfig
from hedera_history.gen.stream import generate_stream
from hedera_history.pipeline.ingest import Outcome
from hedera_history.store.reader import HistoryReader

from .harness import Pipeline

pytestmark = [pytest.mark.emulator]


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(GeneratorConfig(nodes=4, periods=4, transactions=6, seed=11, cutover_after=0))


def test_native_blocks_from_block_zero_are_published_and_complete(pipeline: Pipeline, stream: GeneratedStream) -> None:
    numbers = [b.block_number for b in stream.blocks]
    assert numbers[0] == 0

    results = pipeline.run_stream(dict(stream.objects), random.Random(5))

    assert [r for r in results if r.outcome is Outcome.QUARANTINED] == []
    assert pipeline.ingest.state.quarantined() == []
    assert HistoryReader(pipeline.gateway).get_blocks(numbers[0], numbers[-1]) == numbers
    assert pipeline.completions() == {number: 1 for number in numbers}
