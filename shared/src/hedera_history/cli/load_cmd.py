"""``hedera-history load DIR``: verify the periods under a directory and write them to Bigtable."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from hedera_history.block import VerifiedBlock
from hedera_history.cli.common import consensus_ratio as consensus_ratio_of
from hedera_history.cli.common import local_stream, network_options
from hedera_history.config import Settings
from hedera_history.errata.network_pass import network_errata_pass
from hedera_history.errors import BrokenChainError
from hedera_history.store.bigtable_client import open_admin_instance, open_gateway
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter, BlockWriteResult
from hedera_history.verify.block_pin import with_pin_checks
from hedera_history.verify.stream import PeriodResult, verify_stream


@dataclass
class LoadReport:
    verified: int = 0
    written: int = 0
    not_verified: list[str] = field(default_factory=list)
    chain_problems: list[str] = field(default_factory=list)
    not_written: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.not_verified or self.chain_problems or self.not_written)


@click.command("load")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--address-book",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="NodeAddressBook file (0.0.102) in force at the first period [HEDERA_HISTORY_ADDRESS_BOOK].",
)
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
    settings = Settings.from_env(
        address_book=str(address_book) if address_book else None,
        project=project,
        bigtable_instance=instance,
        table_prefix=table_prefix,
        start_block=start_block,
        sidecars_enabled=sidecars,
        network=network,
        block_pin=block_pin,
    )
    ratio = consensus_ratio_of(consensus_ratio, settings)
    stream = local_stream(directory, settings)
    periods, book, numbering = stream.periods, stream.book, stream.numbering

    if create_tables:
        ensure_tables(open_admin_instance(settings), settings)
    console = Console(stderr=True)
    report = LoadReport()
    gateway = open_gateway(settings)
    try:
        writer = BlockWriter(gateway, settings)
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console) as progress:
            verifying = progress.add_task("verified", total=len(periods))
            writing = progress.add_task("written", total=None)
            results = with_pin_checks(
                verify_stream(
                    periods,
                    book,
                    ratio=ratio,
                    start_block=numbering.start_block,
                    sidecars=settings.sidecars_enabled,
                    max_decompressed=settings.max_decompressed_bytes,
                ),
                numbering,
            )

            def on_period() -> None:
                progress.advance(verifying)
                progress.update(writing, total=report.verified)

            blocks = _verified_blocks(results, report, on_period)
            written_numbers = []
            for written in writer.iter_write(blocks):
                _count(written, report)
                progress.advance(writing)
                written_numbers.append(written.block_number)
        errata_pass = network_errata_pass(gateway, settings)
        if errata_pass is not None and written_numbers:
            applied = errata_pass.apply_blocks(min(written_numbers), max(written_numbers))
            console.print(f"{len(applied.applied)} network errata applied ({settings.network})")
    finally:
        gateway.close()
    _print_summary(console, report)
    if not report.ok:
        ctx.exit(1)


def _verified_blocks(
    results: Iterable[PeriodResult], report: LoadReport, on_period: Callable[[], None]
) -> Iterator[VerifiedBlock]:
    for result in results:
        block = result.report.block
        if isinstance(result.error, BrokenChainError):
            # Never written: a block whose link is broken would lie about its place in the history.
            report.chain_problems.append(f"block {result.block_number} not written: {result.error}")
        elif block is None:
            report.not_verified.append(f"{result.period_key}: {result.error}")
        else:
            report.verified += 1
            if result.error is not None:
                report.chain_problems.append(f"block {block.block_number}: {result.error}")
        on_period()
        if block is not None:
            yield block


def _count(result: BlockWriteResult, report: LoadReport) -> None:
    if result.complete:
        report.written += 1
    else:
        report.not_written.append(f"block {result.block_number}: {result.error}")


def _print_summary(console: Console, report: LoadReport) -> None:
    console.print(f"verified {report.verified} block(s), wrote {report.written} completely")
    for title, lines in (
        ("not verified", report.not_verified),
        ("chain problems", report.chain_problems),
        ("not written", report.not_written),
    ):
        for line in lines:
            console.print(f"[red]{title}[/red]: {line}", markup=True, highlight=False)
