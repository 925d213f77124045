"""``hedera-history balances load``: seed derived hbar balances from a balance snapshot.

Derived balances are sums of transfers; they are right only from a snapshot of every account's
balance on. A generated stream carries ``genesis-balances.json``; on mainnet the nodes publish
``<time>_Balances.pb.gz`` files (docs/errata.md, "Starting balances").
"""

from __future__ import annotations

from pathlib import Path

import click

from hedera_history.config import Settings
from hedera_history.derived.snapshot_file import load_snapshot_file
from hedera_history.formats.names import format_timestamp


@click.group("balances")
def balances() -> None:
    """Derived hbar balances (docs/errata.md)."""


@balances.command("load")
@click.argument("snapshot", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--first-block",
    type=int,
    default=None,
    help="Block that balances are applied from: the first whose items may follow the snapshot's time "
    "[HEDERA_HISTORY_FIRST_BLOCK].",
)
@click.option("--project", default=None, help="Google Cloud project [GOOGLE_CLOUD_PROJECT].")
@click.option("--instance", default=None, help="Bigtable instance id [HEDERA_HISTORY_BIGTABLE_INSTANCE].")
@click.option("--table-prefix", default=None, help="Prefix of every table id [HEDERA_HISTORY_TABLE_PREFIX].")
def load(
    *, snapshot: Path, first_block: int | None, project: str | None, instance: str | None, table_prefix: str | None
) -> None:
    """Write SNAPSHOT (AllAccountBalances .pb or .pb.gz, or genesis-balances.json) as the starting
    balances. Only an empty balances table is seeded: load it before the first block completes."""
    settings = Settings.from_env(
        project=project, bigtable_instance=instance, table_prefix=table_prefix, first_block=first_block
    )
    parsed = load_snapshot_file(settings, snapshot)
    click.echo(
        f"loaded {len(parsed.balances)} balances as of {format_timestamp(parsed.consensus_ns)}; "
        f"derived balances apply from block {settings.first_block}"
    )
