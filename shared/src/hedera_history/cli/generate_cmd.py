"""``hedera-history generate OUT``: a valid, signed stream (V6, or across format eras) with its
address book, keys and truth; with ``--live``, a network played in real time into a directory,
gs:// or s3:// (``cli/generate_live.py``)."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from hedera_history.config import Settings
from hedera_history.errors import ConfigError
from hedera_history.gen import GeneratorConfig, generate_into
from hedera_history.gen.config_and_output import LAYOUT_NAMES, PeriodKind, StreamShape
from hedera_history.gen.live_schedule import LiveConfig
from hedera_history.gen.writer import GROUND_TRUTH_FILE


@click.command("generate")
@click.argument("out")
@click.option("--nodes", type=int, default=4, show_default=True, help="Consensus nodes (0.0.3 upward).")
@click.option("--periods", type=int, default=None, help="Periods, i.e. record files (default 10, or the eras' sum).")
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
@click.option(
    "--eras",
    default=None,
    metavar="V:P,...",
    help="Record format eras in order, version:periods, e.g. 2:3,5:3,6:4 (versions 1, 2, 5, 6). Default all V6.",
)
@click.option(
    "--duplicate-block",
    type=int,
    default=None,
    metavar="N",
    help="Two consecutive V6 files carry block number N (as mainnet's 44029066).",
)
@click.option(
    "--stake-update",
    "stake_updates",
    multiple=True,
    metavar="P:S,S,...",
    help="A NodeStakeUpdate as period P's first item, one stake per node id (repeatable).",
)
@click.option(
    "--signers",
    "signers",
    multiple=True,
    metavar="P:N,N,...",
    help="Only these node ids sign period P (repeatable); other periods: every node.",
)
@click.option(
    "--block-stream",
    is_flag=True,
    help="Native blocks (HIP-1056, HAPI 0.78) from the first period on, TSS-signed, as .blk.zstd files.",
)
@click.option(
    "--cutover-after",
    type=int,
    default=None,
    metavar="P",
    help="P record periods, then --wrapped-blocks wrapped record blocks (HIP-1427), then native blocks.",
)
@click.option(
    "--wrapped-blocks",
    type=int,
    default=None,
    metavar="W",
    help="Wrapped record blocks after the cutover, signed by the nodes' RSA keys "
    "(default 3 with --cutover-after, 0 with --block-stream).",
)
@click.option(
    "--sign-every",
    type=int,
    default=1,
    show_default=True,
    metavar="N",
    help="Every N-th native block carries its TSS signature; the ones before it a state proof through it.",
)
@click.option(
    "--flat-blocks",
    is_flag=True,
    help="Block files as <network>/block/<19-digit number>.blk.zstd instead of the bucket's folders.",
)
@click.option(
    "--tokens",
    is_flag=True,
    help="Also token create/associate/mint/burn/transfers, allowances, airdrops, account updates and "
    "schedules signed later, with their state in the truth.",
)
@click.option(
    "--node-endpoints",
    is_flag=True,
    help="Address book entries with service endpoints, a certificate hash and a description.",
)
@click.option(
    "--live",
    is_flag=True,
    help="Play the network in real time into OUT (a directory, gs://bucket/prefix or s3://bucket/prefix) "
    "until stopped (Ctrl-C) or --periods are written.",
)
@click.option(
    "--period-seconds", type=float, default=2.0, show_default=True, help="--live: a period every this many seconds."
)
@click.option(
    "--lagging-node",
    "lagging_nodes",
    multiple=True,
    metavar="0.0.N",
    help="--live: this node's files land --lag-seconds late (repeatable; an account or a node id).",
)
@click.option("--lag-seconds", type=float, default=120.0, show_default=True, help="--live: how late lagging nodes are.")
@click.option(
    "--missing-signatures",
    type=float,
    default=0.02,
    show_default=True,
    help="--live: chance a node never uploads a period's signature file (never enough to lose consensus).",
)
@click.option(
    "--late-signatures",
    type=float,
    default=0.05,
    show_default=True,
    help="--live: chance a node's signature file lands 2-5 periods late.",
)
@click.option(
    "--no-consensus",
    "no_consensus",
    type=int,
    multiple=True,
    metavar="P",
    help="--live: period P (0 = first) is signed by too few nodes for consensus (repeatable).",
)
@click.option(
    "--book-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="--live: folder for the address book and keys (before the first period) and the truth (at the end); "
    "default OUT when it is a directory.",
)
def generate(
    *,
    out: str,
    nodes: int,
    periods: int,
    transactions: int,
    sidecars: bool | None,
    seed: int,
    layout: str,
    network: str,
    start_block: int | None,
    rotate_key: bool,
    eras: str | None,
    duplicate_block: int | None,
    stake_updates: tuple[str, ...],
    signers: tuple[str, ...],
    block_stream: bool,
    cutover_after: int | None,
    wrapped_blocks: int | None,
    sign_every: int,
    flat_blocks: bool,
    tokens: bool,
    node_endpoints: bool,
    live: bool,
    period_seconds: float,
    lagging_nodes: tuple[str, ...],
    lag_seconds: float,
    missing_signatures: float,
    late_signatures: float,
    no_consensus: tuple[int, ...],
    book_dir: Path | None,
) -> None:
    """Generate a signed V6 stream into OUT, with address-book.bin, keys/ and ground-truth.json.

    With --block-stream, native blocks instead; with --cutover-after P, a stream that switches from
    record files to blocks after P periods. With --live, play it in real time into OUT (a
    directory, gs:// or s3://) instead."""
    settings = Settings.from_env(start_block=start_block, sidecars_enabled=sidecars)
    if settings.start_block < 0:
        raise ConfigError(f"start block must not be negative, got {settings.start_block}")
    shape = StreamShape(
        nodes=nodes,
        transactions=transactions,
        sidecars=settings.sidecars_enabled,
        seed=seed,
        layout=LAYOUT_NAMES[layout],
        network=network,
        start_block=settings.start_block,
    )
    cutover, wrapped = _cutover(block_stream, cutover_after, wrapped_blocks)
    if live:
        if eras or duplicate_block is not None or stake_updates or signers or sign_every != 1:
            raise ConfigError(
                "--live plays V6 periods and blocks each signed at once: "
                "--eras, --duplicate-block, --stake-update, --signers, --sign-every do not apply"
            )
        from hedera_history.cli import generate_live  # noqa: PLC0415
        from hedera_history.gen.live import book_dir_for  # noqa: PLC0415

        live_config = LiveConfig(
            **shape.shape(),
            period_seconds=period_seconds,
            periods=periods,
            rotate_key=rotate_key,
            lagging_nodes=tuple(_node_ref(n) for n in lagging_nodes),
            lag_seconds=lag_seconds,
            missing_signature_rate=missing_signatures,
            late_signature_rate=late_signatures,
            no_consensus_periods=no_consensus,
            cutover_after=cutover,
            wrapped_periods=wrapped,
            flat_blocks=flat_blocks,
            tokens=tokens,
            node_endpoints=node_endpoints,
        )
        generate_live.play(live_config, out, book_dir_for(out, book_dir), settings)
        return
    if "://" in out:
        raise ConfigError(f"generate writes a stream into a directory; only --live writes to {out}")
    era_list = _parse_eras(eras) if eras is not None else None
    if periods is None:
        periods = sum(count for _, count in era_list) if era_list is not None else 10
    config = GeneratorConfig(
        **shape.shape(),
        periods=periods,
        rotate_key=rotate_key,
        eras=era_list,
        duplicate_block_at=duplicate_block,
        stake_updates=_parse_table("--stake-update", stake_updates),
        signers=_parse_table("--signers", signers),
        cutover_after=cutover,
        wrapped_periods=wrapped,
        sign_every=sign_every,
        flat_blocks=flat_blocks,
        tokens=tokens,
        node_endpoints=node_endpoints,
    )
    if cutover is not None and cutover + wrapped >= periods:
        raise ConfigError(
            f"{cutover} record periods and {wrapped} wrapped blocks leave no native block in {periods} periods"
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
        stream, files = generate_into(config, Path(out), on_period=lambda _period: progress.advance(task))
        progress.update(task, description="done")
    counts = stream.truth["counts"]
    click.echo(
        f"{out}: blocks {config.start_block}-{config.end_block}{_kinds(config)} from {nodes} nodes, "
        f"{counts['transactions']} transactions, {counts['sidecar_files']} sidecar files, "
        f"{files} stream files; truth in {Path(out) / GROUND_TRUTH_FILE} "
        f"({time.monotonic() - started:.1f} s)"
    )


def _cutover(block_stream: bool, cutover_after: int | None, wrapped_blocks: int | None) -> tuple[int | None, int]:
    """(record periods before the cutover, wrapped blocks after it) the flags ask for."""
    if block_stream and cutover_after is not None:
        raise ConfigError("--block-stream is --cutover-after 0: give one of them")
    if block_stream:
        return 0, wrapped_blocks or 0
    if cutover_after is None:
        if wrapped_blocks:
            raise ConfigError("--wrapped-blocks come after a cutover: give --cutover-after or --block-stream")
        return None, 0
    return cutover_after, 3 if wrapped_blocks is None else wrapped_blocks


def _kinds(config: GeneratorConfig) -> str:
    if config.cutover_after is None:
        return ""
    counts = Counter(config.kind_of(period) for period in range(config.periods))
    return (
        f" ({counts[PeriodKind.RECORD]} record files, {counts[PeriodKind.WRAPPED]} wrapped and "
        f"{counts[PeriodKind.NATIVE]} native blocks)"
    )


def _node_ref(text: str) -> int | str:
    """``0.0.5`` or a node id ``2``."""
    return int(text) if text.isdigit() else text


def _numbers(option: str, text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError as e:
        raise click.BadParameter(f"expected comma-separated integers, got {text!r}", param_hint=option) from e


def _parse_eras(text: str) -> tuple[tuple[int, int], ...]:
    """``2:3,5:3,6:4`` -> ((2, 3), (5, 3), (6, 4))."""
    eras = []
    for part in text.split(","):
        version, _, count = part.partition(":")
        numbers = _numbers("--eras", f"{version},{count}") if count else ()
        if len(numbers) != 2:
            raise click.BadParameter(f"expected version:periods, got {part!r}", param_hint="--eras")
        eras.append((numbers[0], numbers[1]))
    return tuple(eras)


def _parse_table(option: str, values: tuple[str, ...]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """``("1:60,10,10,20", ...)`` -> ((1, (60, 10, 10, 20)), ...)."""
    table = []
    for value in values:
        period, _, numbers = value.partition(":")
        if not numbers:
            raise click.BadParameter(f"expected period:n,n,..., got {value!r}", param_hint=option)
        table.append((_numbers(option, period)[0] if period.strip() else -1, _numbers(option, numbers)))
    return tuple(table)
