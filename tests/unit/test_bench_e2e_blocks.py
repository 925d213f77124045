"""The native-block mode of the end-to-end bench: its quick shape, the block files it plays, its floor."""

from __future__ import annotations

from pathlib import Path

from hedera_history.gen import GeneratorConfig, generate_into

from bench import e2e_blocks


def test_the_quick_mode_is_small_and_the_default_is_mainnet_at_the_throttle() -> None:
    quick = e2e_blocks.parse_block_shape(["--block-stream", "--quick"])
    assert (quick.transactions, quick.seconds) == (2000, 20.0)
    full = e2e_blocks.parse_block_shape(["--block-stream"])
    assert (full.transactions, full.period_seconds, full.measured_blocks) == (20_000, 2.0, 60)
    assert full.blocks == full.warmup_blocks + 60


def test_the_played_files_are_the_generated_blocks_in_number_order(tmp_path: Path) -> None:
    generate_into(GeneratorConfig(nodes=2, periods=3, transactions=6, seed=3, cutover_after=0), tmp_path)
    files = e2e_blocks.block_files(tmp_path)
    assert [f.number for f in files] == [0, 1, 2]
    assert all(f.relative.startswith("demo/block/") and f.relative.endswith(".blk.zstd") for f in files)
    assert e2e_blocks.floor_seconds(files) > 0
