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
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
import requests
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from hedera_history.config import Settings
from hedera_history.errors import PrerequisiteError, StackError
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.gen.live import LiveConfig, LivePlayer, LiveSummary
from hedera_history.gen.writer import GENESIS_BALANCES_FILE, GROUND_TRUTH_FILE
from hedera_history.localstack.balances import SnapshotLoad, load_directory_snapshot
from hedera_history.localstack.live_follow import Arrival, BlockArrivals, PreparedNetwork, prepare_live_network
from hedera_history.localstack.stack import LocalStack, StackConfig, stop_recorded_stack
from hedera_history.localstack.stack_progress import (
    first_blocks_target,
    open_gateway_for,
    read_progress,
    wait_for_blocks,
)
from hedera_history.localstack.stack_state import read_state
from hedera_history.sources.base import open_sink
from hedera_history.store.reader import HistoryReader

WAIT_SECONDS = 300.0
"""After the last period is written: how long the blocks may take to become queryable."""
MISSING_SIGNATURE_RATE = 0.03
LATE_SIGNATURE_RATE = 0.03


@click.command("demo")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("var/demo"),
    show_default=True,
    help="Where the network's book, keys and truth and the stack's state and logs go.",
)
@click.option("--nodes", type=int, default=4, show_default=True)
@click.option("--periods", type=click.IntRange(min=1), default=20, show_default=True)
@click.option(
    "--period-seconds", type=click.FloatRange(min=0.1), default=2.0, show_default=True, help="A period every N s."
)
@click.option("--transactions", type=int, default=20, show_default=True, help="Transactions per period.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--stop/--keep", default=False, show_default=True, help="Stop the stack at the end, or keep it up.")
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
    stop: bool,
) -> None:
    """Play a generated signed network live into the local stack's bucket, follow it, query the result."""
    console = Console(stderr=True)
    started = time.monotonic()
    config = LiveConfig(
        nodes=nodes,
        periods=periods,
        period_seconds=period_seconds,
        transactions=transactions,
        seed=seed,
        missing_signature_rate=MISSING_SIGNATURE_RATE,
        late_signature_rate=LATE_SIGNATURE_RATE,
    )
    network_dir, state_dir = out.resolve() / "network", out.resolve() / "stack"
    start = datetime.now(UTC)
    network = prepare_live_network(config, network_dir)
    stack = _start_stack(ctx, console, network, state_dir, follow_start=start.isoformat())
    stack_ready = time.monotonic()
    try:
        # Before the first block: derived balances start from the generated genesis, not from zero.
        if load_directory_snapshot(stack.state, network.folder) is SnapshotLoad.LOADED:
            console.print(f"balances: starting from the generated genesis ({GENESIS_BALANCES_FILE})")
        played, arrivals = _play(console, stack, config, network)
        target = first_blocks_target(network.first_block, played.periods)
        reader = HistoryReader(open_gateway_for(stack.state))
        with _bar(console, "blocks complete", target.count) as (progress, task):
            outcome = wait_for_blocks(
                reader, target, WAIT_SECONDS, on_progress=lambda n: progress.update(task, completed=n)
            )
        finished = time.monotonic()
        if not outcome.done or played.stream is None:
            console.print(f"[red]blocks still missing after {outcome.seconds:.0f} s: {list(outcome.missing)}[/]")
            console.print(f"logs: {state_dir / 'logs'}")
            ctx.exit(1)
        assert played.stream is not None
        _summary(stack, played, arrivals, started=started, ready=stack_ready, finished=finished)
        _examples(stack, played.stream)
        _next_steps(stack, state_dir, network.folder, stop)
    finally:
        if stop:
            stack.stop()
        else:
            stack.detach()


def _start_stack(
    ctx: click.Context, console: Console, network: PreparedNetwork, state_dir: Path, *, follow_start: str
) -> LocalStack:
    previous = read_state(state_dir)
    if previous is not None:
        console.print(f"stopping the previous demo stack in {state_dir} ...")
        stop_recorded_stack(previous)
    settings = Settings.from_env()
    config = StackConfig.from_settings(
        settings,
        state_dir=state_dir,
        address_book=network.address_book,
        first_block=network.first_block,
        # The stack's own bucket on its GCS emulator stands for the network's public bucket.
        follow_source=f"gs://{settings.stream_bucket}",
        follow_start=follow_start,
        detached=True,
    )
    try:
        with console.status("starting the local stack") as status:
            return LocalStack(config, on_step=lambda step: status.update(f"local stack: {step}")).start()
    except PrerequisiteError as e:
        console.print(f"[red]{e}[/]")
        ctx.exit(2)
    except StackError as e:
        console.print(f"[red]the local stack did not start: {e}[/]")
        ctx.exit(1)


def _play(
    console: Console, stack: LocalStack, config: LiveConfig, network: PreparedNetwork
) -> tuple[LiveSummary, list[Arrival]]:
    """Play the network into the followed bucket, printing each block as it becomes queryable."""
    query = stack.url("query").rstrip("/")
    console.print(
        f"[bold]Playing[/] {config.nodes} nodes into {stack.state.follow_source}: {config.periods} periods, "
        f"one every {config.period_seconds:g} s, {config.transactions} transactions each; the stack follows it"
    )

    def show(arrival: Arrival) -> None:
        written = arrival.written
        after = arrival.lag_seconds
        notes = [f"late {','.join(written.late)}" if written.late else ""]
        notes.append(f"missing {','.join(written.missing)}" if written.missing else "")
        extra = "; ".join(n for n in notes if n)
        click.echo(
            f"block {arrival.block_number:>3} queryable "
            + (f"{after:5.1f} s after its last signature file" if after is not None else "")
            + f", follower {_follower_lag(query)} behind the network"
            + (f" [{extra}]" if extra else "")
        )

    sink = open_sink(stack.state.follow_source, stack.settings())
    with BlockArrivals(query, network.first_block, on_arrival=show) as arrivals:
        player = LivePlayer(config, sink, book_dir=network.folder, on_period=arrivals.period_written)
        player.start()
        summary = player.join()
        wanted = set(range(network.first_block, network.first_block + summary.periods))
        if not arrivals.wait_for(wanted, WAIT_SECONDS):
            console.print(f"[yellow]not queryable yet: {sorted(wanted - arrivals.answered())}[/]")
        return summary, arrivals.arrivals()


def _follower_lag(query: str) -> str:
    """The follower's own lag (GET /api/v1/status): now minus the last period it handed off."""
    try:
        follower = requests.get(f"{query}/api/v1/status", timeout=10).json()["follower"]
        return f"{float(follower['lag_seconds']):.1f} s"
    except (requests.RequestException, ValueError, KeyError, TypeError):
        return "? s"


@contextmanager
def _bar(console: Console, label: str, total: int) -> Iterator[tuple[Progress, TaskID]]:
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console) as progress:
        yield progress, progress.add_task(label, total=total)


def _summary(
    stack: LocalStack,
    played: LiveSummary,
    arrivals: list[Arrival],
    *,
    started: float,
    ready: float,
    finished: float,
) -> None:
    assert played.stream is not None
    stream = played.stream
    truth = stream.truth
    progress = read_progress(open_gateway_for(stack.state))
    lags = [a.lag_seconds for a in arrivals if a.lag_seconds is not None]
    table = Table(title="hedera-history demo", show_header=False)
    table.add_row("nodes", str(len(stream.nodes)))
    table.add_row(
        "files written live",
        f"{played.files_written} ({played.missing_signatures} signature files missing, {played.late_signatures} late)",
    )
    table.add_row("blocks complete", f"{progress.complete_blocks} ({progress.first_block}-{progress.last_block})")
    table.add_row("transactions", str(len(truth["transactions"])))
    table.add_row("accounts with history", str(len(truth["accounts"])))
    table.add_row("quarantined files", str(progress.quarantined))
    table.add_row("stack start-up", f"{ready - started:.1f} s")
    if lags:
        table.add_row(
            "last signature file -> block queryable",
            f"median {statistics.median(lags):.1f} s, max {max(lags):.1f} s over {len(lags)} blocks",
        )
    # The network's pace sets this, not the pipeline: `python -m bench.follow_lag_bench` measures the lag.
    table.add_row("first period played to last block complete", f"{finished - ready:.1f} s")
    Console().print(table)


def _examples(stack: LocalStack, stream: GeneratedStream) -> None:
    truth = stream.truth
    query = stack.url("query").rstrip("/")
    rng = random.Random(0)
    transaction = rng.choice(truth["transactions"])
    busiest = max(truth["accounts"].items(), key=lambda item: len(item[1]))[0]
    first = truth["blocks"][0]["number"]
    calls: list[tuple[str, Any]] = [
        ("getBlock", [first]),
        ("getTransaction", [transaction["hash"]]),
        ("getTransactionsForAccount", [busiest, {"limit": 2}]),
    ]
    for method, params in calls:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        answer = requests.post(query, json=body, timeout=30).json()
        click.secho(f"curl -s {query} -d '{json.dumps(body)}'", bold=True)
        click.echo(_shorten(answer.get("result", answer.get("error"))))
    for path in ("/api/v1/blocks?order=desc&limit=2", f"/api/v1/balances?account.id={busiest}", "/api/v1/status"):
        click.secho(f"curl -s '{query}{path}'", bold=True)
        click.echo(_shorten(requests.get(query + path, timeout=30).json()))


def _shorten(value: Any, limit: int = 900) -> str:
    text = json.dumps(value, indent=2)
    return text if len(text) <= limit else text[:limit] + "\n  ... (cut)"


def _next_steps(stack: LocalStack, state_dir: Path, network_dir: Path, stop: bool) -> None:
    console = Console()
    query = stack.url("query")
    console.print(
        f"\nThe query API: {query} (JSON-RPC on POST /, REST under /api/v1, {query.rstrip('/')}/openapi.json)"
    )
    console.print(f"What the network played: {network_dir / GROUND_TRUTH_FILE}")
    if stop:
        console.print("The stack is stopped (--stop).")
        return
    console.print(f"More: `hedera-history stack status --state-dir {state_dir}` (the follower's position and lag).")
    console.print(f"Stop it with: hedera-history stack down --state-dir {state_dir}")
