"""``hedera-history load DIR``: verify the periods under a directory and write them to Bigtable."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from hedera_history.cli.common import consensus_ratio as consensus_ratio_of
from hedera_history.cli.common import local_stream, local_stream_arguments, local_stream_settings, network_options
from hedera_history.pipeline.local_load import LoadReport, load_periods
from hedera_history.store.bigtable_client import open_admin_instance, open_gateway
from hedera_history.store.schema import ensure_tables


@click.command("load")
@local_stream_arguments
@click.option("--project", default=None, help="Google Cloud project [GOOGLE_CLOUD_PROJECT].")
@click.option("--instance", default=None, help="Bigtable instance id [HEDERA_HISTORY_BIGTABLE_INSTANCE].")
@click.option("--table-prefix", default=None, help="Prefix of every table id [HEDERA_HISTORY_TABLE_PREFIX].")
@click.option(
    "--consensus-ratio",
    default=None,
    help="Share of stake that must sign, e.g. 1/3 [HEDERA_HISTORY_CONSENSUS_RATIO].",
)
@click.option(
    "--start-block", type=int, default=None, help="First block number before V6 [HEDERA_HISTORY_START_BLOCK]."
)
@click.option(
    "--sidecars/--no-sidecars",
    default=None,
    help="Verify and store sidecars [HEDERA_HISTORY_SIDECARS_ENABLED].",
)
@click.option(
    "--create-tables/--no-create-tables",
    default=True,
    show_default=True,
    help="Create missing tables and families and set their GC rules first.",
)
@network_options
@click.pass_context
def load(
    ctx: click.Context,
    *,
    directory: Path,
    address_book: Path | None,
    project: str | None,
    instance: str | None,
    table_prefix: str | None,
    consensus_ratio: str | None,
    start_block: int | None,
    sidecars: bool | None,
    create_tables: bool,
    network: str | None,
    block_pin: str | None,
) -> None:
    """Verify every period under DIR (either bucket layout) and write the verified blocks.

    Blocks that do not verify are not written, nor is a block whose link to its predecessor is
    broken (reported under "chain problems"). Exits 0 only when every period verified and every
    verified block was written completely. Writing again is safe: it rewrites identical cells.
    """
    settings = local_stream_settings(
        address_book,
        start_block,
        sidecars,
        network,
        block_pin,
        project=project,
        bigtable_instance=instance,
        table_prefix=table_prefix,
    )
    ratio = consensus_ratio_of(consensus_ratio, settings)
    stream = local_stream(directory, settings)
    if create_tables:
        ensure_tables(open_admin_instance(settings), settings)
    console = Console(stderr=True)
    gateway = open_gateway(settings)
    try:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console) as progress:
            report = load_periods(
                stream.periods,
                stream.book,
                stream.numbering,
                ratio=ratio,
                settings=settings,
                gateway=gateway,
                progress=_ProgressBars(progress, len(stream.periods)),
            )
    finally:
        gateway.close()
    if report.errata_applied is not None:
        console.print(f"{report.errata_applied} network errata applied ({settings.network})")
    _print_summary(console, report)
    if not report.ok:
        ctx.exit(1)


class _ProgressBars:
    def __init__(self, progress: Progress, periods: int) -> None:
        self.progress = progress
        self.verifying = progress.add_task("verified", total=periods)
        self.writing = progress.add_task("written", total=None)

    def period_done(self, report: LoadReport) -> None:
        self.progress.advance(self.verifying)
        self.progress.update(self.writing, total=report.verified)

    def block_written(self, report: LoadReport) -> None:
        self.progress.advance(self.writing)


def _print_summary(console: Console, report: LoadReport) -> None:
    console.print(f"verified {report.verified} block(s), wrote {report.written} completely")
    for title, lines in (
        ("not verified", report.not_verified),
        ("chain problems", report.chain_problems),
        ("not written", report.not_written),
    ):
        for line in lines:
            console.print(f"[red]{title}[/red]: {line}", markup=True, highlight=False)
