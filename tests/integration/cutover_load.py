"""``load`` of the generated stream that crosses the cutover (``generated_cutover_stream_dir``) into
an emulator instance under a table prefix, as a user runs it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.config import Settings
from hedera_history.store.bigtable_client import gateway_for_instance


def load_cutover_stream(instance: Any, folder: Path, table_prefix: str) -> None:
    args = ["load", str(folder), "--address-book", str(folder / "address-book.bin")]
    args += ["--instance", instance.instance_id, "--table-prefix", table_prefix]
    # block 0 is a record file: the roster native blocks are checked against is the one it publishes
    env = {"HEDERA_HISTORY_LEDGER_PUBLICATION": str(folder / "ledger-id-publication.bin")}
    result = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output


@contextlib.contextmanager
def loaded_gateway(instance: Any, folder: Path, table_prefix: str) -> Iterator[Any]:
    """:func:`load_cutover_stream`, then a gateway to the tables it wrote; the instance's tables
    deleted at the end."""
    load_cutover_stream(instance, folder, table_prefix)
    gateway = gateway_for_instance(instance, Settings(table_prefix=table_prefix))
    try:
        yield gateway
    finally:
        gateway.close()
        for table in instance.list_tables():
            with contextlib.suppress(Exception):
                table.delete()
