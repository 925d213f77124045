"""StreamBuilder: a stream period by period is the stream generated whole, and can stop anywhere."""

from __future__ import annotations

import pytest
from hedera_history.errors import ConfigError, GeneratorError
from hedera_history.gen import GeneratorConfig, generate_stream
from hedera_history.gen.config_and_output import NS_PER_SECOND
from hedera_history.gen.stream import StreamBuilder

CONFIG = GeneratorConfig(nodes=3, periods=6, transactions=12, seed=4)


def test_built_period_by_period_is_the_whole_stream() -> None:
    whole = generate_stream(CONFIG)
    builder = StreamBuilder(CONFIG)
    uploaded: dict[str, bytes] = {}
    for index in range(CONFIG.periods):
        period, objects = builder.next_period()
        assert period.index == index
        assert set(objects) == {p for node in range(CONFIG.nodes) for p in whole.period_paths(node, index)}
        uploaded.update(objects)
    built = builder.stream()
    assert uploaded == whole.objects
    assert built.objects == whole.objects
    assert built.truth == whole.truth
    assert built.address_books == whole.address_books
    with pytest.raises(GeneratorError):
        builder.next_period()


def test_a_stream_stopped_early_is_consistent() -> None:
    builder = StreamBuilder(CONFIG)
    for _ in range(2):
        builder.next_period()
    partial = builder.stream()
    assert builder.generated == 2
    assert partial.config.periods == 2
    assert partial.truth["config"]["periods"] == 2
    assert [b["number"] for b in partial.truth["blocks"]] == [0, 1]
    assert len(partial.address_books) == 1  # the rotation (period 3) was not reached
    assert partial.address_books[0].last_block == 1
    assert partial.truth["rotated_node"] is None
    whole = generate_stream(CONFIG)
    assert partial.truth["blocks"] == whole.truth["blocks"][:2]
    assert {k: v for k, v in whole.objects.items() if k in partial.objects} == partial.objects


def test_stopped_after_the_rotation_keeps_the_new_book() -> None:
    builder = StreamBuilder(CONFIG)
    for _ in range(5):
        builder.next_period()
    partial = builder.stream()
    assert [(e.first_block, e.last_block) for e in partial.address_books] == [(0, 3), (4, 4)]
    assert partial.truth["rotated_node"] == "0.0.4"


def test_sub_second_periods() -> None:
    config = GeneratorConfig(nodes=1, periods=3, transactions=8, period_seconds=0.2, rotate_key=False)
    stream = generate_stream(config)
    starts = [p.consensus_start_ns for p in stream.periods]
    assert all(
        0 <= s - config.start_time_ns - i * NS_PER_SECOND // 5 < NS_PER_SECOND // 5 for i, s in enumerate(starts)
    )
    assert stream.periods[-1].consensus_end_ns < config.start_time_ns + 3 * NS_PER_SECOND // 5
    with pytest.raises(ConfigError):
        GeneratorConfig(period_seconds=0)
