"""``hedera-history demo``: the README's main job on the embedded default.

Generates a signed four-node V6 stream (with sidecars and an address-book rotation) with the
project's own test keys, then verifies every period of it exactly as ``verify`` does, and prints a
summary with the commands to go further.
"""

from __future__ import annotations

import time
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.writer import ADDRESS_BOOK_FILE
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.address_book import parse_address_book
from hedera_history.verify.consensus import DEFAULT_RATIO
from hedera_history.verify.stream import verify_stream


@click.command("demo")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("var/demo"),
    show_default=True,
    help="Where the generated stream is written.",
)
@click.option("--nodes", type=int, default=4, show_default=True)
@click.option("--periods", type=int, default=12, show_default=True)
@click.option("--transactions", type=int, default=50, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.pass_context
def demo(ctx: click.Context, *, out: Path, nodes: int, periods: int, transactions: int, seed: int) -> None:
    """Generate a signed stream and verify every period of it."""
    console = Console(stderr=True)
    settings = Settings.from_env()
    started = time.monotonic()
    console.print(f"[bold]Generating[/] {periods} periods x {transactions} transactions for {nodes} nodes ...")
    stream = generate_stream(GeneratorConfig(nodes=nodes, periods=periods, transactions=transactions, seed=seed))
    write_stream(stream, out)
    generated = time.monotonic()

    book = parse_address_book((out / ADDRESS_BOOK_FILE).read_bytes(), name=ADDRESS_BOOK_FILE)
    found = find_local_periods(out)
    ok = failed = items = 0
    with Progress(
        TextColumn("verifying"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress:
        task = progress.add_task("verify", total=len(found))
        for result in verify_stream(
            found,
            book,
            ratio=DEFAULT_RATIO,
            start_block=settings.start_block,
            sidecars=True,
            max_decompressed=settings.max_decompressed_bytes,
        ):
            progress.advance(task)
            if result.ok and result.report.block is not None:
                ok += 1
                items += len(result.report.block.record.items)
            else:
                failed += 1
                console.print(f"[red]{result.report.period_key}: {result.error}[/]")
    finished = time.monotonic()

    table = Table(title="hedera-history demo", show_header=False)
    table.add_row("stream", str(out))
    table.add_row("nodes", str(nodes))
    table.add_row("periods verified", f"{ok} of {len(found)}")
    table.add_row("transactions verified", str(items))
    table.add_row("generate", f"{generated - started:.2f} s")
    table.add_row("verify", f"{finished - generated:.2f} s ({items / max(finished - generated, 1e-9):,.0f} tx/s)")
    Console().print(table)
    Console().print(
        "Next: "
        f"`hedera-history verify {out} --address-book {out / ADDRESS_BOOK_FILE} --json` for every period, "
        f"`hedera-history inspect <file>` for any file, and {out / 'ground-truth.json'} for what the stream holds."
    )
    if failed:
        ctx.exit(1)
