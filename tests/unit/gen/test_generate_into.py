"""``generate_into``: the stream written straight to disk is the stream generated whole, byte for byte,
and the builder behind it keeps nothing of a period once it is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hedera_history.gen import GeneratorConfig, generate_into, generate_stream, write_stream
from hedera_history.gen import writer as gen_writer
from hedera_history.gen.stream import StreamBuilder
from hedera_history.gen.truth import TruthSpill

CONFIG = GeneratorConfig(nodes=4, periods=6, transactions=30, seed=3)
WITH_DUPLICATE_BLOCK = GeneratorConfig(
    nodes=4, periods=6, transactions=12, eras=((5, 2), (6, 4)), start_block=10, duplicate_block_at=13
)
"""Two files of one block number: their balances are merged into one entry of the truth."""


def _tree(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def _whole_and_streamed(
    tmp_path: Path, config: GeneratorConfig = CONFIG
) -> tuple[dict[str, bytes], dict[str, bytes], int]:
    whole, streamed = tmp_path / "whole", tmp_path / "streamed"
    write_stream(generate_stream(config), whole)
    seen: list[int] = []
    stream, files = generate_into(config, streamed, on_period=lambda period: seen.append(period.index))
    assert seen == list(range(config.periods))
    assert stream.truth["counts"]["transactions"] == config.periods * config.transactions
    return _tree(whole), _tree(streamed), files


def test_indented_truth_is_identical(tmp_path: Path) -> None:
    whole, streamed, files = _whole_and_streamed(tmp_path)
    assert streamed == whole
    assert files == sum(1 for name in whole if "/" in name and not name.startswith(("keys/", "address-books/")))


@pytest.mark.parametrize("config", [CONFIG, WITH_DUPLICATE_BLOCK], ids=["v6", "duplicate-block"])
def test_compact_truth_streams_the_spilled_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: GeneratorConfig
) -> None:
    monkeypatch.setattr(gen_writer, "_PRETTY_LIMIT", 10)
    whole, streamed, _files = _whole_and_streamed(tmp_path, config)
    assert streamed == whole
    truth = json.loads(streamed[gen_writer.GROUND_TRUTH_FILE])
    assert len(truth["transactions"]) == config.periods * config.transactions
    assert b"\n" not in streamed[gen_writer.GROUND_TRUTH_FILE].rstrip(b"\n")


def test_a_builder_that_does_not_retain_keeps_no_period_file_or_transaction() -> None:
    whole = generate_stream(CONFIG).truth
    with TruthSpill() as spill:
        builder = StreamBuilder(CONFIG, retain=False, spill=spill)
        for _ in range(CONFIG.periods):
            builder.next_period()
        stream = builder.stream()
        assert builder.generated == CONFIG.periods
        assert stream.objects == {} and stream.periods == ()
        truth = stream.truth
        assert truth["transactions"] == [] and truth["accounts"] == {} and truth["balances"]["by_block"] == {}
        assert truth["counts"] == whole["counts"]
        sections = {where: json.loads("".join(pieces)) for where, pieces in builder.spilled_truth().items()}
    assert sections == {
        ("transactions",): whole["transactions"],
        ("accounts",): whole["accounts"],
        ("balances", "by_block"): whole["balances"]["by_block"],
    }
