"""``hedera-history demo``: the README's main job on the embedded default.

Generates a signed four-node V6 stream (sidecars, an address-book key rotation) with the
project's own test keys, brings the local stack up (emulators, the functions, the bridges),
loads the generated genesis balances (so derived balances never go negative), uploads every
node's copy of every file in shuffled order with duplicate uploads, as nodes would, waits until
every block is complete, then prints a summary and a few queries answered by the
query function over HTTP. The stack keeps running for further queries (``--stop`` stops it).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
import requests
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from hedera_history.config import Settings
from hedera_history.errors import PrerequisiteError, StackError
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.model import GeneratedStream
from hedera_history.gen.writer import ADDRESS_BOOK_FILE, GENESIS_BALANCES_FILE
from hedera_history.localstack.balances import SnapshotLoad, load_directory_snapshot
from hedera_history.localstack.progress import directory_target, open_gateway_for, read_progress, wait_for_blocks
from hedera_history.localstack.stack import LocalStack, StackConfig, stop_recorded_stack
from hedera_history.localstack.stack_state import read_state
from hedera_history.localstack.upload import Upload, find_stream_files, plan_uploads, upload_files
from hedera_history.store.reader import HistoryReader

WAIT_SECONDS = 600.0


@click.command("demo")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("var/demo"),
    show_default=True,
    help="Where the generated stream and the stack's state and logs go.",
)
@click.option("--nodes", type=int, default=4, show_default=True)
@click.option("--periods", type=int, default=12, show_default=True)
@click.option("--transactions", type=int, default=50, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--stop/--keep", default=False, show_default=True, help="Stop the stack at the end, or keep it up.")
@click.pass_context
def demo(ctx: click.Context, *, out: Path, nodes: int, periods: int, transactions: int, seed: int, stop: bool) -> None:
    """Generate a signed stream, run it through the local pipeline, and query the result."""
    console = Console(stderr=True)
    started = time.monotonic()
    console.print(f"[bold]Generating[/] {periods} periods x {transactions} transactions for {nodes} nodes ...")
    stream = generate_stream(
        GeneratorConfig(nodes=nodes, periods=periods, transactions=transactions, sidecars=True, seed=seed)
    )
    stream_dir, state_dir = out.resolve() / "stream", out.resolve() / "stack"
    write_stream(stream, stream_dir)

    stack = _start_stack(ctx, console, stream, stream_dir, state_dir)
    stack_ready = time.monotonic()
    try:
        # Before the first block: derived balances start from the generated genesis, not from zero.
        if load_directory_snapshot(stack.state, stream_dir) is SnapshotLoad.LOADED:
            console.print(f"balances: starting from the generated genesis ({GENESIS_BALANCES_FILE})")
        files = find_stream_files(stream_dir)
        plan = plan_uploads(files, shuffle=True, duplicates=max(1, len(files) // 5), seed=seed)
        uploaded = _upload(console, stack, plan)
        target = directory_target(stream_dir)
        reader = HistoryReader(open_gateway_for(stack.state))
        with _bar(console, "blocks complete", target.count) as (progress, task):
            outcome = wait_for_blocks(
                reader, target, WAIT_SECONDS, on_progress=lambda n: progress.update(task, completed=n)
            )
        finished = time.monotonic()
        if not outcome.done:
            console.print(f"[red]blocks still missing after {outcome.seconds:.0f} s: {list(outcome.missing)}[/]")
            console.print(f"logs: {state_dir / 'logs'}")
            ctx.exit(1)
        _summary(stack, stream, uploaded, started=started, ready=stack_ready, finished=finished)
        _examples(stack, stream)
        _next_steps(stack, state_dir, stream_dir, stop)
    finally:
        if stop:
            stack.stop()
        else:
            stack.detach()


def _start_stack(
    ctx: click.Context, console: Console, stream: GeneratedStream, stream_dir: Path, state_dir: Path
) -> LocalStack:
    previous = read_state(state_dir)
    if previous is not None:
        console.print(f"stopping the previous demo stack in {state_dir} ...")
        stop_recorded_stack(previous)
    config = StackConfig.from_settings(
        Settings.from_env(),
        state_dir=state_dir,
        address_book=stream_dir / ADDRESS_BOOK_FILE,
        first_block=int(stream.truth["blocks"][0]["number"]),
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


@contextmanager
def _bar(console: Console, label: str, total: int) -> Iterator[tuple[Progress, TaskID]]:
    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console) as progress:
        yield progress, progress.add_task(label, total=total)


def _upload(console: Console, stack: LocalStack, plan: list[Upload]) -> int:
    with _bar(console, "uploading (every node's copy, shuffled, with duplicates)", len(plan)) as (progress, task):
        return upload_files(stack.state, plan, on_upload=lambda _: progress.advance(task))


def _summary(
    stack: LocalStack, stream: GeneratedStream, uploaded: int, *, started: float, ready: float, finished: float
) -> None:
    truth = stream.truth
    transactions = len(truth["transactions"])
    progress = read_progress(open_gateway_for(stack.state))
    pipeline_seconds = finished - ready
    table = Table(title="hedera-history demo", show_header=False)
    table.add_row("nodes", str(len(stream.nodes)))
    table.add_row("objects uploaded", f"{uploaded} (with duplicate uploads)")
    table.add_row("blocks complete", f"{progress.complete_blocks} ({progress.first_block}-{progress.last_block})")
    table.add_row("transactions", str(transactions))
    table.add_row("accounts with history", str(len(truth["accounts"])))
    table.add_row("quarantined files", str(progress.quarantined))
    table.add_row("stack start-up", f"{ready - started:.1f} s (generation included)")
    # A stream this small measures latency, not throughput: `python -m bench.e2e_bench` measures that.
    table.add_row("first upload to last block complete", f"{pipeline_seconds:.1f} s (uploads included)")
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
    for path in ("/api/v1/blocks?order=desc&limit=2", f"/api/v1/balances?account.id={busiest}"):
        click.secho(f"curl -s '{query}{path}'", bold=True)
        click.echo(_shorten(requests.get(query + path, timeout=30).json()))


def _shorten(value: Any, limit: int = 900) -> str:
    text = json.dumps(value, indent=2)
    return text if len(text) <= limit else text[:limit] + "\n  ... (cut)"


def _next_steps(stack: LocalStack, state_dir: Path, stream_dir: Path, stop: bool) -> None:
    console = Console()
    query = stack.url("query")
    console.print(
        f"\nThe query API: {query} (JSON-RPC on POST /, REST under /api/v1, {query.rstrip('/')}/openapi.json)"
    )
    console.print(f"What the stream holds: {stream_dir / 'ground-truth.json'}")
    if stop:
        console.print("The stack is stopped (--stop).")
        return
    console.print(f"More: `hedera-history stack status --state-dir {state_dir}`, `stack upload DIR`, `stack wait`.")
    console.print(f"Stop it with: hedera-history stack down --state-dir {state_dir}")
