"""``hedera-history generate OUT``: a valid, signed V6 stream with its address book, keys and truth."""

from __future__ import annotations

import time
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from hedera_history.config import Settings
from hedera_history.errors import ConfigError
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.model import LAYOUT_NAMES
from hedera_history.gen.writer import GROUND_TRUTH_FILE


@click.command("generate")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--nodes", type=int, default=4, show_default=True, help="Consensus nodes (0.0.3 upward).")
@click.option("--periods", type=int, default=10, show_default=True, help="Periods, i.e. blocks.")
@click.option("--transactions", type=int, default=20, show_default=True, help="Record stream items per period.")
@click.option(
    "--sidecars/--no-sidecars",
    default=None,
    help="Write contract sidecar files (default on). [HEDERA_HISTORY_SIDECARS_ENABLED]",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same stream, byte for byte.")
@click.option(
    "--layout",
    type=click.Choice(sorted(LAYOUT_NAMES)),
    default="recordstreams",
    show_default=True,
    help="recordstreams/record0.0.N/ or <network>/0/<nodeId>/record/.",
)
@click.option("--network", default="demo", show_default=True, help="First folder of the node-id layout.")
@click.option(
    "--start-block",
    type=int,
    default=None,
    help="Number of the first block (default 0). [HEDERA_HISTORY_START_BLOCK]",
)
@click.option(
    "--rotate-key/--no-rotate-key",
    default=True,
    show_default=True,
    help="Rotate one node's key through a 0.0.102 update halfway (needs 4 periods or more).",
)
def generate(
    *,
    out: Path,
    nodes: int,
    periods: int,
    transactions: int,
    sidecars: bool | None,
    seed: int,
    layout: str,
    network: str,
    start_block: int | None,
    rotate_key: bool,
) -> None:
    """Generate a signed V6 stream into OUT, with address-book.bin, keys/ and ground-truth.json."""
    settings = Settings.from_env(start_block=start_block, sidecars_enabled=sidecars)
    if settings.start_block < 0:
        raise ConfigError(f"start block must not be negative, got {settings.start_block}")
    config = GeneratorConfig(
        nodes=nodes,
        periods=periods,
        transactions=transactions,
        sidecars=settings.sidecars_enabled,
        seed=seed,
        layout=LAYOUT_NAMES[layout],
        network=network,
        start_block=settings.start_block,
        rotate_key=rotate_key,
    )
    started = time.monotonic()
    console = Console(stderr=True)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    ) as progress:
        task = progress.add_task("node keys and periods", total=periods)
        stream = generate_stream(config, on_period=lambda _period: progress.advance(task))
        progress.update(task, description="writing files")
        write_stream(stream, out)
        progress.update(task, description="done")
    counts = stream.truth["counts"]
    click.echo(
        f"{out}: blocks {config.start_block}-{config.end_block} from {nodes} nodes, "
        f"{counts['transactions']} transactions, {counts['sidecar_files']} sidecar files, "
        f"{len(stream.objects)} stream files; truth in {out / GROUND_TRUTH_FILE} "
        f"({time.monotonic() - started:.1f} s)"
    )
