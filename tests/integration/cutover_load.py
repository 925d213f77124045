"""``load`` of the generated stream that crosses the cutover (``generated_cutover_stream_dir``) into
an emulator instance under a table prefix, as a user runs it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hedera_history.cli.main import cli


def load_cutover_stream(instance: Any, folder: Path, table_prefix: str) -> None:
    args = ["load", str(folder), "--address-book", str(folder / "address-book.bin")]
    args += ["--instance", instance.instance_id, "--table-prefix", table_prefix]
    # block 0 is a record file: the roster native blocks are checked against is the one it publishes
    env = {"HEDERA_HISTORY_LEDGER_PUBLICATION": str(folder / "ledger-id-publication.bin")}
    result = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
