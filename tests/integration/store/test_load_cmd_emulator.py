from __future__ import annotations

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
