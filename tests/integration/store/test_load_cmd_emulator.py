from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.config import Settings
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader


def test_load_verifies_and_writes_a_directory(bigtable_instance: Any, hedera_data: Path) -> None:
    book = hedera_data / "addressbook" / "test-v6-sidecar-4n.bin"
    args = ["load", str(hedera_data / "v6"), "--address-book", str(book)]
    args += ["--instance", bigtable_instance.instance_id, "--table-prefix", "cli_"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "verified 2 block(s), wrote 2 completely" in result.output

    gateway = gateway_for_instance(bigtable_instance, Settings(table_prefix="cli_"))
    try:
        assert HistoryReader(gateway).get_blocks(0) == [5, 6]
    finally:
        gateway.close()

    again = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert again.exit_code == 0, again.output


def test_load_reports_periods_that_do_not_verify(bigtable_instance: Any, hedera_data: Path) -> None:
    wrong_book = hedera_data / "addressbook" / "test-resources-testnet.bin"
    args = [
        "load",
        str(hedera_data / "v6"),
        "--address-book",
        str(wrong_book),
        "--instance",
        bigtable_instance.instance_id,
    ]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 1
    assert "not verified" in result.output


V5_FIRST = "2021-01-11T22_09_24.063739000Z"


def _load(folder: Path, book: Path, instance: Any, prefix: str) -> Any:
    args = ["load", str(folder), "--address-book", str(book), "--instance", instance.instance_id]
    return CliRunner().invoke(cli, [*args, "--table-prefix", prefix], catch_exceptions=False)


def _stored(instance: Any, prefix: str) -> list[int]:
    gateway = gateway_for_instance(instance, Settings(table_prefix=prefix))
    try:
        return HistoryReader(gateway).get_blocks(0)
    finally:
        gateway.close()


def test_load_refuses_a_real_period_replayed_under_a_later_name(
    bigtable_instance: Any, hedera_data: Path, tmp_path: Path
) -> None:
    # The real V5 period 0 (record and every node's signature) copied under a later name: before,
    # load wrote it as block 2, a full copy of block 0.
    shutil.copytree(hedera_data / "v5", tmp_path / "v5")
    later = "2021-01-11T22_09_44.063739000Z"
    for node in sorted((tmp_path / "v5" / "recordstreams").iterdir()):
        for suffix in (".rcd", ".rcd_sig"):
            shutil.copy(node / f"{V5_FIRST}{suffix}", node / f"{later}{suffix}")
    book = hedera_data / "addressbook" / "test-resources-testnet.bin"
    result = _load(tmp_path / "v5", book, bigtable_instance, "replay_")
    assert result.exit_code == 1, result.output
    text = " ".join(result.output.split())  # the console wraps long lines
    assert "not verified" in text and later in text
    assert "first transaction reached consensus at 1610402964063739000" in text
    assert _stored(bigtable_instance, "replay_") == [0, 1]


def test_load_does_not_write_a_block_whose_link_is_broken(
    bigtable_instance: Any, hedera_data: Path, tmp_path: Path
) -> None:
    # The real V2 files, then the real V5 files: every node signed the first V5 file, but it names
    # a start running hash of its own, not the last V2 file's hash.
    for folder in ("v2", "v5"):
        shutil.copytree(hedera_data / folder / "recordstreams", tmp_path / "recordstreams", dirs_exist_ok=True)
    book = hedera_data / "addressbook" / "test-resources-testnet.bin"
    result = _load(tmp_path, book, bigtable_instance, "broken_")
    assert result.exit_code == 1, result.output
    text = " ".join(result.output.split())
    assert "chain problems" in text and "block 2 not written" in text
    # block 3 follows the refused block: its link is unverifiable, so it is written
    assert _stored(bigtable_instance, "broken_") == [0, 1, 3]
