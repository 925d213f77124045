"""Pre-V6 block numbers counted from a block pin, on the real V5 files (testnet, 2021-01-11).

The two files end at 1610402964063739000 and 1610402974097416003 (README of the data). A pin on
either numbers both as the mirror node's BlockNumberMigration would; a pin no file ends at is an
error, never a renumbering.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from hedera_history.cli.main import cli

FIRST_END, SECOND_END = 1610402964063739000, 1610402974097416003


def _verify(hedera_data: Path, *extra: str) -> tuple[int, list[dict[str, object]], str]:
    book = hedera_data / "addressbook" / "test-resources-testnet.bin"
    result = CliRunner().invoke(
        cli, ["verify", str(hedera_data / "v5"), "--address-book", str(book), "--json", *extra], env={}
    )
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    # A HistoryError reaches main() (which prints it) through the group: CliRunner keeps it.
    said = result.output + (str(result.exception) if result.exception else "")
    return result.exit_code, lines, said


def test_numbers_count_back_from_a_pin_on_the_last_file(hedera_data: Path) -> None:
    code, lines, _ = _verify(hedera_data, "--block-pin", f"{SECOND_END}:34305852")
    assert code == 0
    assert [line["block_number"] for line in lines] == [34305851, 34305852]
    assert all(line["ok"] for line in lines)


def test_numbers_count_on_from_a_pin_on_the_first_file(hedera_data: Path) -> None:
    code, lines, _ = _verify(hedera_data, "--block-pin", f"{FIRST_END}:7")
    assert code == 0
    assert [line["block_number"] for line in lines] == [7, 8]


def test_a_pin_no_file_ends_at_is_refused(hedera_data: Path) -> None:
    code, _, output = _verify(hedera_data, "--block-pin", f"{FIRST_END + 1}:7")
    assert code == 1
    assert "no file ends at the pin" in output


def test_files_that_do_not_reach_the_pin_are_not_numbered_from_it(hedera_data: Path) -> None:
    # The testnet preset pins a file of 2022: these 2021 files end before it.
    code, lines, output = _verify(hedera_data, "--network", "testnet")
    assert code == 1 and lines == []
    assert "end before the pinned file" in output
    code, lines, _ = _verify(hedera_data, "--network", "testnet", "--start-block", "40")
    assert code == 0
    assert [line["block_number"] for line in lines] == [40, 41]
