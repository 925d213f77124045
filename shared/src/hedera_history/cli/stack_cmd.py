"""``hedera-history stack``: the whole pipeline on loopback (see docs/local-stack.md).

``up`` starts it and returns (the services keep running), ``down`` stops it, ``upload DIR`` writes
a stream into its bucket as nodes would, ``wait`` waits until blocks are complete, ``status``
prints endpoints and progress. They find the stack through its state file in ``--state-dir``.
``block-node DIR`` serves a folder of block files as a block node does, on its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from hedera_history.config import Settings, env_name
from hedera_history.errors import NameValueError, PrerequisiteError
from hedera_history.interrupts import wait_until_interrupted
from hedera_history.localstack.stack_state import LOG_FOLDER, StackState, read_state, require_running_state
from hedera_history.name_values import name_values
from hedera_history.networks import NAMES
from hedera_history.sources.block_node_api import DEFAULT_PORT as DEFAULT_BLOCK_NODE_PORT

PREREQUISITE_EXIT_CODE = 2


def _state_dir_option(function: Any) -> Any:
    return click.option(
        "--state-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Folder of the stack's state file and logs [HEDERA_HISTORY_STACK_STATE_DIR] (default var/stack).",
    )(function)


def _state_dir(option: Path | None) -> Path:
    return (option or Path(Settings.from_env().stack_state_dir)).resolve()


def _pairs(values: Sequence[str], what: str) -> dict[str, str]:
    try:
        return name_values(values, what)
    except NameValueError as e:
        raise click.BadParameter(f"expected NAME=VALUE, got {e.pair!r}", param_hint=what) from e


def export_lines(state: StackState) -> list[str]:
    """``export NAME=value`` for each variable a client of the stack needs."""
    return [f"export {name}={value}" for name, value in sorted(state.client_env().items())]


def _endpoint_table(state: StackState, alive: dict[str, bool] | None = None) -> Table:
    table = Table(title=f"local stack ({state.state_dir})", caption=f"logs in {Path(state.state_dir) / LOG_FOLDER}")
    for column in ("service", "endpoint", "pid", "running", "log"):
        table.add_column(column)
    hosts = {"bigtable": state.bigtable_host, "pubsub": state.pubsub_host, "gcs": state.storage_endpoint}
    if state.s3_endpoint:
        hosts["s3"] = state.s3_endpoint
    rows: list[tuple[str, str, str, str]] = []
    for record in state.emulators:
        rows.append((record.name, hosts.get(record.name, ""), str(record.pid), record.log_path))
    for name in sorted(set(hosts) - {record.name for record in state.emulators}):
        rows.append((name, hosts[name], "-", "(attached)"))
    for record in state.functions:
        rows.append((record.name, record.url, str(record.pid), record.log_path))
    if state.bridge is not None:
        feeds = "follow calls" if state.following else "events"
        rows.append(("bridge", f"({feeds}, pushes, sweeps)", str(state.bridge.pid), state.bridge.log_path))
    for name, endpoint, pid, log in rows:
        running = "" if alive is None else ("yes" if alive.get(name, True) else "[red]no[/]")
        table.add_row(name, endpoint, pid, running, Path(log).name if log.startswith("/") else log)
    return table


@contextmanager
def _prerequisites_exit(ctx: click.Context) -> Iterator[None]:
    """A missing tool: its message and fix, exit status 2, no traceback."""
    try:
        yield
    except PrerequisiteError as e:
        click.echo(str(e), err=True)
        ctx.exit(PREREQUISITE_EXIT_CODE)


@click.group("stack")
def stack() -> None:
    """The local stack: emulators, the four functions and the event bridges on loopback."""


@stack.command("up")
@_state_dir_option
@click.option(
    "--address-book",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Bootstrap address book the functions verify with [HEDERA_HISTORY_ADDRESS_BOOK]; "
    "without one, the first `stack upload` brings its directory's address-book.bin.",
)
@click.option(
    "--first-block", type=int, default=None, help="First block number of the chain [HEDERA_HISTORY_FIRST_BLOCK]."
)
@click.option(
    "--port",
    "ports",
    multiple=True,
    metavar="NAME=PORT",
    help="Fixed port of a service (bigtable, pubsub, gcs, ingest, sweep, store, query); repeatable; "
    "others take a free port [HEDERA_HISTORY_STACK_PORTS].",
)
@click.option(
    "--env",
    "extra_env",
    multiple=True,
    metavar="KEY=VALUE",
    help="Another variable for every function (e.g. HEDERA_HISTORY_LOG_LEVEL=DEBUG); repeatable.",
)
@click.option(
    "--sweep-interval",
    type=float,
    default=None,
    help="Seconds between scheduled sweep calls; 0 never [HEDERA_HISTORY_STACK_SWEEP_INTERVAL_SECONDS] (default 5).",
)
@click.option("--project", default=None, help="Google Cloud project id [GOOGLE_CLOUD_PROJECT].")
@click.option("--instance", default=None, help="Bigtable instance id [HEDERA_HISTORY_BIGTABLE_INSTANCE].")
@click.option("--bucket", default=None, help="Stream bucket name [HEDERA_HISTORY_STREAM_BUCKET].")
@click.option(
    "--network",
    type=click.Choice(NAMES, case_sensitive=False),
    default=None,
    help="Network preset for the functions (block pin and the network's other facts; docs/networks.md). "
    "The stack keeps its own bucket and book (following, the preset's book unless --address-book) "
    "[HEDERA_HISTORY_NETWORK].",
)
@click.option(
    "--follow",
    "follow_source",
    default=None,
    metavar="SOURCE",
    help="Follow SOURCE as the deployed follower follows a network's bucket: a directory, gs://BUCKET on the "
    "stack's GCS emulator or s3://BUCKET on HEDERA_HISTORY_S3_ENDPOINT_URL (else a moto server it starts). The follow "
    "function is called back to back instead of ingest taking bucket events.",
)
@click.option(
    "--follow-start",
    default=None,
    metavar="backfill|now|TIME|block:N",
    help="Where the follower starts without a stored position [HEDERA_HISTORY_FOLLOW_START] (default backfill: "
    "after the last complete block, on an empty store now; block:N on a network already on block streams).",
)
@click.option(
    "--block-node",
    "block_nodes",
    multiple=True,
    metavar="HOST:PORT",
    help="A block node the follower reads blocks from after the cutover, before the bucket (e.g. one "
    "`hedera-history stack block-node DIR` serves); repeatable [HEDERA_HISTORY_BLOCK_NODES].",
)
@click.option(
    "--ledger-publication",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Block 0's ledger id publication native blocks are checked against (default, following a "
    "directory: its ledger-id-publication.bin, as `generate` writes it) [HEDERA_HISTORY_LEDGER_PUBLICATION].",
)
@click.option(
    "--repo",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Repository root holding functions/ (default: found from the installation).",
)
@click.option(
    "--foreground",
    is_flag=True,
    help="Stay in the foreground, bridges in this process; Ctrl-C stops everything.",
)
@click.pass_context
def up(
    ctx: click.Context,
    *,
    state_dir: Path | None,
    address_book: Path | None,
    first_block: int | None,
    ports: tuple[str, ...],
    extra_env: tuple[str, ...],
    sweep_interval: float | None,
    project: str | None,
    instance: str | None,
    bucket: str | None,
    network: str | None,
    follow_source: str | None,
    follow_start: str | None,
    block_nodes: tuple[str, ...],
    ledger_publication: Path | None,
    repo: Path | None,
    foreground: bool,
) -> None:
    """Start the emulators, create buckets, tables and topics, start the functions and the bridges."""
    from hedera_history.localstack.stack import LocalStack  # noqa: PLC0415
    from hedera_history.localstack.stack_options import stack_config_for  # noqa: PLC0415

    console = Console(stderr=True)
    settings = Settings.from_env(
        project=project,
        bigtable_instance=instance,
        stream_bucket=bucket,
        first_block=first_block,
        stack_sweep_interval_seconds=sweep_interval,
        address_book=str(address_book) if address_book else None,
    )
    named = _pairs(ports, "--port")
    if not all(port.strip().isdigit() for port in named.values()):
        raise click.BadParameter("a port is a number, e.g. --port query=8080", param_hint="--port")
    if (follow_start or block_nodes or ledger_publication) and not follow_source:
        raise click.UsageError("--follow-start, --block-node and --ledger-publication need --follow SOURCE")
    blocks_env = {
        **({env_name("block_nodes"): ",".join(block_nodes)} if block_nodes else {}),
        **({env_name("ledger_publication"): str(ledger_publication.resolve())} if ledger_publication else {}),
    }
    config = stack_config_for(
        settings,
        state_dir=_state_dir(state_dir),
        ports={name: int(port) for name, port in named.items()},
        extra_env={**blocks_env, **_pairs(extra_env, "--env")},
        network=network,
        follow_source=follow_source or "",
        follow_start=follow_start or "",
        repo_root=repo,
        detached=not foreground,
    )
    with _prerequisites_exit(ctx), console.status("starting the local stack") as status:
        local = LocalStack(config, on_step=lambda step: status.update(f"local stack: {step}"))
        local.start()
    state = local.state
    console.print(_endpoint_table(state))
    book = Path(state.address_book)
    if state.following:
        console.print(f"Following {state.follow_source}: `hedera-history stack status` shows how far behind.")
    if not book.is_file():
        console.print("No address book yet: the first `stack upload DIR` installs DIR's address-book.bin.")
    console.print("Set these to use the stack from a shell (also printed on stdout):")
    click.echo("\n".join(export_lines(state)))
    if not foreground:
        local.detach()
        console.print(f"Stop it with: hedera-history stack down --state-dir {state.state_dir}")
        return
    console.print("Running in the foreground; Ctrl-C stops it.")
    wait_until_interrupted()
    console.print("stopping the local stack ...")
    local.stop()


@stack.command("down")
@_state_dir_option
def down(*, state_dir: Path | None) -> None:
    """Stop the bridge, the functions and the emulators of the recorded stack."""
    from hedera_history.localstack.stack import stop_recorded_stack  # noqa: PLC0415

    folder = _state_dir(state_dir)
    state = read_state(folder)
    if state is None:
        click.echo(f"no stack is recorded in {folder}; nothing to stop")
        return
    stopped = stop_recorded_stack(state)
    for name, was_running in stopped.items():
        click.echo(f"{name:>9}: {'stopped' if was_running else 'was not running'}")
    click.echo(f"the local stack in {folder} is down")


@stack.command("upload")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@_state_dir_option
@click.option("--shuffle", is_flag=True, help="Upload the files in a random order instead of period by period.")
@click.option(
    "--duplicates", type=click.IntRange(min=0), default=0, show_default=True, help="Files uploaded a second time."
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of --shuffle and --duplicates.")
def upload(*, directory: Path, state_dir: Path | None, shuffle: bool, duplicates: int, seed: int) -> None:
    """Write every stream file under DIR into the stack's bucket at the same path, as nodes would.

    DIR's genesis-balances.json (written by `generate`) seeds derived balances when they have not
    begun yet, and the stack's bootstrap book is recorded in force from DIR's first period, as
    `load` records them."""
    from hedera_history.gen.writer import GENESIS_BALANCES_FILE  # noqa: PLC0415
    from hedera_history.localstack.directory_upload import ready_directory  # noqa: PLC0415
    from hedera_history.localstack.upload import BookInstall, plan_uploads, upload_files  # noqa: PLC0415
    from hedera_history.pipeline.history_start import BookStart, SnapshotLoad  # noqa: PLC0415

    console = Console(stderr=True)
    state = require_running_state(_state_dir(state_dir))
    ready = ready_directory(state, directory)
    if ready.book is BookInstall.INSTALLED:
        console.print(f"address book: installed {directory}/address-book.bin as the stack's bootstrap book")
    elif ready.book is BookInstall.KEPT_OTHER:
        console.print(
            f"[yellow]address book: the stack keeps its own ({state.address_book}); "
            f"{directory}/address-book.bin differs[/]"
        )
    if ready.start.book is BookStart.RECORDED:
        console.print("address book: recorded in force from the first period (served by /api/v1/network/nodes)")
    if ready.start.balances is SnapshotLoad.LOADED:
        console.print(f"balances: {directory}/{GENESIS_BALANCES_FILE} loaded as the starting balances")
    files = ready.files
    plan = plan_uploads(files, shuffle=shuffle, duplicates=duplicates, seed=seed)
    with Progress(
        TextColumn("uploading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress:
        task = progress.add_task("upload", total=len(plan))
        upload_files(state, plan, on_upload=lambda _upload: progress.advance(task))
    click.echo(f"uploaded {len(files)} files (+{duplicates} duplicate uploads) to gs://{state.bucket}")


@stack.command("wait")
@_state_dir_option
@click.option("--blocks", type=click.IntRange(min=1), default=None, help="Wait for blocks FIRST .. FIRST+N-1.")
@click.option(
    "--for",
    "for_directory",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Wait for the blocks of DIR's ground-truth.json, else for as many blocks as DIR has periods.",
)
@click.option("--timeout", type=float, default=300.0, show_default=True, help="Seconds before giving up.")
@click.pass_context
def wait(
    ctx: click.Context, *, state_dir: Path | None, blocks: int | None, for_directory: Path | None, timeout: float
) -> None:
    """Wait until blocks are complete; exit 1 on timeout, naming the blocks still missing, and at
    once when the stack's follower is failing, with its error. ``--blocks N`` counts from the
    stack's first block: where its follower began the history, when it began it mid-stream."""
    from hedera_history.localstack.stack_progress import (  # noqa: PLC0415
        directory_target,
        first_blocks_target,
        format_ranges,
        open_gateway_for,
        wait_for_blocks,
    )
    from hedera_history.localstack.status import follower_failure  # noqa: PLC0415
    from hedera_history.pipeline.address_books import first_block_of_stream  # noqa: PLC0415
    from hedera_history.store.reader import HistoryReader  # noqa: PLC0415

    if (blocks is None) == (for_directory is None):
        raise click.UsageError("give exactly one of --blocks N and --for DIR")
    console = Console(stderr=True)
    folder = _state_dir(state_dir)
    state = require_running_state(folder)
    gateway = open_gateway_for(state)
    if for_directory is not None:
        target = directory_target(for_directory)
    else:
        target = first_blocks_target(first_block_of_stream(gateway, state.first_block), blocks or 0)
    with Progress(
        TextColumn("complete blocks"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    ) as progress:
        task = progress.add_task("wait", total=target.count)
        outcome = wait_for_blocks(
            HistoryReader(gateway),
            target,
            timeout,
            on_progress=lambda done: progress.update(task, completed=done),
            stop_reason=lambda: follower_failure(state, folder),
        )
    if outcome.done:
        click.echo(f"{target.description}: all {target.count} complete after {outcome.seconds:.1f} s")
        return
    if outcome.stopped is not None:
        click.echo(
            f"the follower is failing, no block will come: {outcome.stopped} "
            f"({outcome.complete} of {target.count} complete, {target.description})",
            err=True,
        )
        ctx.exit(1)
        return
    missing = f"; missing: {format_ranges(outcome.missing)}" if outcome.missing else ""
    click.echo(
        f"timed out after {outcome.seconds:.1f} s: {outcome.complete} of {target.count} complete "
        f"({target.description}){missing}",
        err=True,
    )
    ctx.exit(1)


@stack.command("status")
@_state_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables.")
@click.pass_context
def status(ctx: click.Context, *, state_dir: Path | None, as_json: bool) -> None:
    """Endpoints, processes, complete blocks, first/last block, pending and quarantined periods,
    the follower's position; exit 1 when a process of the stack is not running."""
    from hedera_history.localstack.status import stack_report  # noqa: PLC0415

    folder = _state_dir(state_dir)
    state = read_state(folder)
    if state is None:
        click.echo(f"no stack is recorded in {folder}", err=True)
        ctx.exit(1)
        return
    alive = state.alive()
    report = stack_report(state, alive, folder)
    if as_json:
        click.echo(json.dumps(report, indent=1, sort_keys=True))
    else:
        _print_status(state, alive, report)
    if not all(alive.values()):
        ctx.exit(1)


def _print_status(state: StackState, alive: dict[str, bool], report: dict[str, Any]) -> None:
    console = Console()
    console.print(_endpoint_table(state, alive))
    summary = Table(show_header=False, title="progress")
    progress = report["progress"]
    if progress is not None:
        first, last = progress["first_block"], progress["last_block"]
        summary.add_row("complete blocks", str(progress["complete_blocks"]))
        summary.add_row("first / last block", f"{_or_dash(first)} / {_or_dash(last)}")
        summary.add_row("pending periods", str(progress["pending_periods"]))
        summary.add_row("unconfirmed periods (reconciler)", str(progress["unconfirmed_periods"]))
        summary.add_row("quarantined files", str(progress["quarantined"]))
        rows = ", ".join(f"{kind} {count}" for kind, count in progress["ingest_rows"].items()) or "none"
        summary.add_row("ingest_progress rows", rows)
    else:
        summary.add_row("Bigtable", str(report["error"]))
    if report["follower"] is not None:
        summary.add_row("follower", follower_line(report["follower"]))
    bridge = report["bridge"]
    if bridge is not None and state.following:
        running = ", one following now" if bridge.get("follow_in_flight") else ""
        summary.add_row(
            "follow calls",
            f"{bridge.get('follow_calls', 0)} returned ({bridge.get('follow_failures', 0)} failed){running}",
        )
    elif bridge is not None:
        summary.add_row(
            "bucket events",
            f"{bridge['events_sent']} sent, {bridge['events_retried']} retried, {bridge['events_dropped']} dropped",
        )
        summary.add_row("store pushes", f"{bridge['store_acked']} acked, {bridge['store_nacked']} rejected")
        summary.add_row("sweep calls", f"{bridge['sweep_calls']} ({bridge['sweep_failures']} failed)")
    console.print(summary)
    console.print("\n".join(export_lines(state)), highlight=False)


def follower_line(follower: dict[str, Any]) -> str:
    """One line of the follower's status (``api.status.follower_status``, or failing and why)."""
    if follower.get("error"):
        return f"{follower['status']}: {follower['error']}"
    if follower["status"] != "following":
        return str(follower["status"])
    at = f"block {follower['next_block']} next" if follower.get("mode") == "blocks" else f"period {follower['period']}"
    return (
        f"{follower['source']}: {at}, {follower['lag_seconds']:.1f} s behind, "
        f"position written {follower['last_update_seconds_ago']:.1f} s ago"
    )


def _or_dash(value: int | None) -> str:
    return "-" if value is None else str(value)


@stack.command("block-node")
@click.argument("directory", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_BLOCK_NODE_PORT,
    show_default=True,
    help="Port to listen on (0: a free one).",
)
def block_node(*, directory: Path, host: str, port: int) -> None:
    """Serve the block files under DIRECTORY as a block node does (HIP-1081: serverStatus, getBlock,
    subscribeBlockStream; files that appear later are streamed too) until Ctrl-C.

    Read it with HEDERA_HISTORY_BLOCK_NODES=HOST:PORT (docs/block-streams.md)."""
    from hedera_history.localstack.block_node_server import BlockNodeServer  # noqa: PLC0415

    with BlockNodeServer(directory, host=host, port=port) as server:
        first, last = server.folder.first, server.folder.last
        blocks = "no block yet" if first is None else f"blocks {first}..{last}"
        click.echo(f"block node {server.endpoint} serving {blocks} from {directory}; Ctrl-C stops it")
        wait_until_interrupted()


@stack.command("bridge", hidden=True)
@click.option("--state-dir", type=click.Path(file_okay=False, path_type=Path), required=True)
def bridge(*, state_dir: Path) -> None:
    """The detached bridge process of a stack started by `stack up` (not for direct use)."""
    from hedera_history import logs  # noqa: PLC0415
    from hedera_history.localstack.bridges import run_bridge_process  # noqa: PLC0415

    logs.configure("stack-bridge", Settings.from_env().log_level)
    run_bridge_process(state_dir.resolve())
