"""``hedera-history demo``: the README's main job on the embedded default, live.

Brings the local stack up (emulators, the functions, the bridges) following its GCS emulator's
bucket as a deployment follows a network's public bucket (``stack up --follow``), then plays a
generated signed network into that bucket in real time (:class:`~hedera_history.gen.live.LivePlayer`:
four nodes with the project's own test keys, sidecars, an address-book key rotation, a period every
``--period-seconds``, each node uploading after its own delay, a few signature files late or
missing). Each block is printed as the query function starts answering it, with how long after its
period's last signature file that was and how far behind the follower is. Then every block is
checked complete, and a summary and a few queries answered by the query function over HTTP are
printed. The stack keeps running for further queries (``--stop`` stops it).

The run is :func:`hedera_history.localstack.demo.run_demo`; this command parses and draws.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from hedera_history.errors import PrerequisiteError, StackError
from hedera_history.gen.live import LiveConfig
from hedera_history.gen.writer import GENESIS_BALANCES_FILE
from hedera_history.localstack.demo import BlockShown, DemoOptions, DemoResult, run_demo

_DEFAULTS = DemoOptions(Path("var/demo"))


@click.command("demo")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=_DEFAULTS.out,
    show_default=True,
    help="Where the network's book, keys and truth and the stack's state and logs go.",
)
@click.option("--nodes", type=int, default=_DEFAULTS.nodes, show_default=True)
@click.option("--periods", type=click.IntRange(min=1), default=_DEFAULTS.periods, show_default=True)
@click.option(
    "--period-seconds",
    type=click.FloatRange(min=0.1),
    default=_DEFAULTS.period_seconds,
    show_default=True,
    help="A period every N s.",
)
@click.option(
    "--transactions", type=int, default=_DEFAULTS.transactions, show_default=True, help="Transactions per period."
)
@click.option("--seed", type=int, default=_DEFAULTS.seed, show_default=True)
@click.option(
    "--cutover-after",
    type=int,
    default=None,
    help="Record periods before the network cuts over to blocks (default half the periods; -1 never).",
)
@click.option(
    "--stop/--keep", default=_DEFAULTS.stop, show_default=True, help="Stop the stack at the end, or keep it up."
)
@click.pass_context
def demo(
    ctx: click.Context,
    *,
    out: Path,
    nodes: int,
    periods: int,
    period_seconds: float,
    transactions: int,
    seed: int,
    cutover_after: int | None,
    stop: bool,
) -> None:
    """Play a generated signed network live into the local stack's bucket, follow it, query the result."""
    console = Console(stderr=True)
    options = DemoOptions(out, nodes, periods, period_seconds, transactions, seed, stop, cutover_after)
    try:
        result = run_demo(options, _ConsoleView(console))
    except PrerequisiteError as e:
        console.print(f"[red]{e}[/]")
        ctx.exit(2)
    except StackError as e:
        console.print(f"[red]{e}[/]")
        ctx.exit(1)
    if not result.outcome.done:
        console.print(
            f"[red]blocks still missing after {result.outcome.seconds:.0f} s: {list(result.outcome.missing)}[/]"
        )
        console.print(f"logs: {result.state_dir / 'logs'}")
        ctx.exit(1)
    _print_result(result)


class _ConsoleView:
    """The demo as it runs, on the terminal."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def stopping_previous(self, state_dir: Path) -> None:
        self.console.print(f"stopping the previous demo stack in {state_dir} ...")

    @contextmanager
    def starting_stack(self) -> Iterator[Callable[[str], None]]:
        with self.console.status("starting the local stack") as status:
            yield lambda step: status.update(f"local stack: {step}")

    def genesis_balances_loaded(self) -> None:
        self.console.print(f"balances: starting from the generated genesis ({GENESIS_BALANCES_FILE})")

    def playing(self, config: LiveConfig, follow_source: str) -> None:
        self.console.print(
            f"[bold]Playing[/] {config.nodes} nodes into {follow_source}: {config.periods} periods, "
            f"one every {config.period_seconds:g} s, {config.transactions} transactions each; the stack follows it"
            + (
                f"; the network cuts over to blocks after {config.cutover_after} record periods"
                if config.cutover_after is not None
                else ""
            )
        )

    def block_queryable(self, block: BlockShown) -> None:
        arrival = block.arrival
        written = arrival.written
        after = arrival.lag_seconds
        notes = [f"late {','.join(written.late)}" if written.late else ""]
        notes.append(f"missing {','.join(written.missing)}" if written.missing else "")
        extra = "; ".join(n for n in notes if n)
        source = "block file" if arrival.is_block_file else "last signature file"
        click.echo(
            f"block {arrival.block_number:>3} queryable "
            + (f"{after:5.1f} s after its {source}" if after is not None else "")
            + f", follower {block.follower_lag} behind the network, reading {block.follower_reads}"
            + (f" [{extra}]" if extra else "")
        )

    def not_queryable_yet(self, numbers: list[int]) -> None:
        self.console.print(f"[yellow]not queryable yet: {numbers}[/]")

    @contextmanager
    def waiting_for_blocks(self, total: int) -> Iterator[Callable[[int], None]]:
        label = "blocks complete"
        columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=self.console) as progress:
            task = progress.add_task(label, total=total)
            yield lambda complete: progress.update(task, completed=complete)


def _print_result(result: DemoResult) -> None:
    table = Table(title="hedera-history demo", show_header=False)
    for what, value in result.summary:
        table.add_row(what, value)
    console = Console()
    console.print(table)
    for example in result.examples:
        click.secho(example.command, bold=True)
        click.echo(example.answer)
    query = result.query_url
    console.print(
        f"\nThe query API: {query} (JSON-RPC on POST /, REST under /api/v1, {query.rstrip('/')}/openapi.json)"
    )
    console.print(f"What the network played: {result.truth_file}")
    if result.stopped:
        console.print("The stack is stopped (--stop).")
        return
    console.print(
        f"More: `hedera-history stack status --state-dir {result.state_dir}` (the follower's position and lag)."
    )
    console.print(f"Stop it with: hedera-history stack down --state-dir {result.state_dir}")
