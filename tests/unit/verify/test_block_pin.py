"""A block pin over a generated V6 stream: V6 files carry their numbers, the pin only checks them."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from hedera_history.cli.main import cli


def _verify(folder: Path, *extra: str) -> tuple[int, list[dict[str, object]]]:
    book = folder / "address-book.bin"
    result = CliRunner().invoke(cli, ["verify", str(folder), "--address-book", str(book), "--json", *extra], env={})
    return result.exit_code, [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def test_a_pin_that_agrees_with_a_v6_file_changes_nothing(generated_stream_dir: Path) -> None:
    code, plain = _verify(generated_stream_dir)
    assert code == 0
    third = plain[3]
    code, pinned = _verify(generated_stream_dir, "--block-pin", f"{third['consensus_end']}:{third['block_number']}")
    assert code == 0
    assert [line["block_number"] for line in pinned] == [line["block_number"] for line in plain]


def test_a_v6_file_at_the_pin_with_another_number_is_a_mismatch(generated_stream_dir: Path) -> None:
    _, plain = _verify(generated_stream_dir)
    third = plain[3]
    assert isinstance(third["block_number"], int)
    code, pinned = _verify(generated_stream_dir, "--block-pin", f"{third['consensus_end']}:{third['block_number'] + 1}")
    assert code == 1
    assert [line["error_kind"] for line in pinned] == [None, None, None, "block_pin_mismatch", None, None]


def test_a_v6_stream_after_a_networks_pin_verifies_with_the_preset(generated_stream_dir: Path) -> None:
    # Mainnet's pin is of 2022; the generated stream starts in 2024 and is V6: nothing to count.
    code, lines = _verify(generated_stream_dir, "--network", "mainnet")
    assert code == 0
    assert [line["block_number"] for line in lines] == list(range(6))
