"""``hedera-history load DIR``: verify the periods under a directory and write them to Bigtable."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from hedera_history.cli.common import consensus_ratio as consensus_ratio_of
from hedera_history.cli.common import (
    load_address_book,
    local_stream,
    local_stream_arguments,
    local_stream_settings,
    network_options,
)
from hedera_history.errors import ConflictingBlockError
from hedera_history.gen.writer import GENESIS_BALANCES_FILE
from hedera_history.localstack.balances import directory_snapshot
from hedera_history.pipeline.block_load import load_block_runs
from hedera_history.pipeline.history_start import BookStart, SnapshotLoad
from hedera_history.pipeline.local_load import LoadReport, StartFiles, load_periods
from hedera_history.sources.address_book_file import read_address_book_bytes
from hedera_history.sources.local_files import find_local_files
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
@click.option(
    "--ledger-id",
    default=None,
    help="Hex of the TSS ledger id block 0 must publish: the trust root of native blocks [HEDERA_HISTORY_LEDGER_ID].",
)
@click.option(
    "--unsigned-blocks/--no-unsigned-blocks",
    default=None,
    help="Store blocks whose proof is a pre-TSS placeholder as unsigned [HEDERA_HISTORY_UNSIGNED_BLOCKS].",
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
    ledger_id: str | None,
    unsigned_blocks: bool | None,
) -> None:
    """Verify every period under DIR (either bucket layout) and write the verified blocks.

    Records what the history starts from as `stack upload` does (the bootstrap book in force from
    the first period; DIR's genesis-balances.json, written by `generate`, as the starting balances
    when they have not begun), the books the stream puts in force, and applies derived balances.

    Block files (.blk, .blk.gz, .blk.zstd; bucket layout or flat, each folder its own chain) are
    verified and written too, under their own numbers: wrapped record blocks with the address book,
    native blocks with their TSS proofs against block 0's ledger (docs/block-streams.md).

    Blocks that do not verify are not written, nor is a block whose link to its predecessor is
    broken (reported under "chain problems"). Exits 0 only when every period verified and every
    verified block was written completely. Writing again is safe: it rewrites identical cells.
    A block whose number the tables hold with another block (another stream) is refused and ends
    the load, exit 1: one number holds one block.
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
        ledger_id=ledger_id,
        unsigned_blocks=unsigned_blocks,
    )
    ratio = consensus_ratio_of(consensus_ratio, settings)
    files = find_local_files(directory, max_decompressed=settings.max_decompressed_bytes)
    if not files.count:
        raise click.ClickException(f"no stream files in a known bucket layout and no block files under {directory}")
    stream = local_stream(directory, settings, files.periods) if files.periods else None
    book_location = stream.book_location if stream is not None else settings.address_book
    start = (
        StartFiles(read_address_book_bytes(book_location, settings), directory_snapshot(directory))
        if book_location
        else None
    )
    if create_tables:
        ensure_tables(open_admin_instance(settings), settings)
    console = Console(stderr=True)
    gateway = open_gateway(settings)
    try:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console) as progress:
            bars = _ProgressBars(progress, files.count)
            report = LoadReport()
            if stream is not None:
                report = load_periods(
                    stream.periods,
                    stream.book,
                    stream.numbering,
                    ratio=ratio,
                    settings=settings,
                    gateway=gateway,
                    progress=bars,
                    start=start,
                )
            book = stream.book if stream is not None else None
            if book is None and settings.address_book:
                book = load_address_book(settings.address_book, settings)
            load_block_runs(
                files.block_runs,
                book,
                ratio=ratio,
                settings=settings,
                gateway=gateway,
                report=report,
                progress=bars,
                start=start if stream is None else None,
            )
    except ConflictingBlockError as e:
        raise click.ClickException(
            f"{e}; the tables hold another stream: load this one under another --table-prefix or --instance"
        ) from e
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
    start = report.history_start
    if start is not None:
        if start.book is BookStart.RECORDED:
            console.print("address book: recorded in force from the first period (served by /api/v1/network/nodes)")
        if start.balances is SnapshotLoad.LOADED:
            console.print(f"balances: {GENESIS_BALANCES_FILE} loaded as the starting balances")
        if start.balances is SnapshotLoad.GENESIS_BLOCK:
            console.print("balances: block 0's initial account state changes loaded as the opening balances")
        console.print(f"balances: {report.balances_applied} block(s) applied")
    for title, lines in (
        ("not verified", report.not_verified),
        ("chain problems", report.chain_problems),
        ("not written", report.not_written),
    ):
        for line in lines:
            console.print(f"[red]{title}[/red]: {line}", markup=True, highlight=False)
