"""Follower lag on the local stack: a live network's period written -> its block answered.

One local stack (its own emulators and functions) follows its GCS emulator's bucket as a deployment
follows a network's public bucket (``stack up --follow``: the follow function called back to back,
default follower settings). A generated four-node network plays into that bucket, a period every
2 s for ``--seconds`` (120 s: 60 periods). For each period:

- lag: from the moment its last on-time signature file was written (the player's
  ``PeriodWritten.last_signature_ns``) to the moment the query function first answers ``getBlock``
  for its block (polled every 100 ms). This is the issue's "behind the network": a period exists
  for a reader once its last signature file is uploaded, and it is there for users once it is
  answered. The goal is at most 10 s in steady state.
- baseline: from the same moment to the moment a listing of the bucket has returned every on-time
  signature file of the period (each node folder listed after the last name seen, as the follower
  lists, but every 50 ms and from this process). That is the raw operation a follower of a bucket
  that raises no events cannot beat: no follower can hand a period on before a listing shows it,
  so what the storage adds between a write and its listing is the floor, and the lag minus it is
  what the follower adds (its 0.5 s polling and 1 s settle wait, verification of every node's
  signature, publication, the store step and the query). The bucket-event path is no baseline
  here: Hedera's buckets raise no events in a user's project, which is why the follower exists.

The first periods are a warm-up (the functions' first calls build their clients); p50/p99/max are
printed for the steady state after it and for every period, with the follower's own lag as
``GET /api/v1/status`` reports it once a second (now minus the last period it handed off).

With ``--cutover-after P`` the network cuts over after P record periods and writes a native block
every period from then on (``generate --live --cutover-after P``): the follower switches to blocks
by itself, and a block's lag runs from its block file written to its block answered (a block has
no signature files to wait for); the figures are then for the blocks after the switch and a
warm-up, the baseline a listing of the block folder.

``--transactions N`` sets the transactions of each period or block (20 by default; 20,000 is mainnet
at the 10k TPS throttle). The network generates each period as it closes, on the same cores as the
stack: where that takes longer than a period, periods are written late, and the lag, measured from
each file written, counts what the stack takes, not the generator's delay. From 1,000 transactions a
block counts as answered once ``getBlocks`` lists it (one call for every block not answered yet),
not by ``getBlock``, which would render its every transaction at each poll.

After the switch each block's lag is also split where the follower's log (``follower block``: the
read that found the block, its ingest) puts the seams: written -> found by the follower (the poll
and the read), found -> published (parse, verification, publication: the follower's own work), and
published -> answered (the Pub/Sub hop, the store function's rows, the query's 100 ms poll). The
goal after the switch is 5 s (the reference's cutover guide: a mirror node within about 5 s).

``python -m bench.follow_lag_bench [--seconds 120] [--period-seconds 2] [--cutover-after P] [--transactions N]``
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from hedera_history.errors import HistoryError
from hedera_history.gen.config_and_output import LEDGER_PUBLICATION_FILE
from hedera_history.gen.live import LiveConfig, LivePlayer, PeriodWritten
from hedera_history.localstack.balances import load_directory_snapshot
from hedera_history.localstack.live_follow import Arrival, BlockArrivals, follower_lag_seconds, prepare_live_network
from hedera_history.localstack.stack import LocalStack, StackConfig
from hedera_history.sources.base import ObjectSource, open_sink, open_source

from bench.machine import reports_machine
from bench.stack_logs import logged_entries
from bench.timing import percentile

GOAL_SECONDS = 10.0
BLOCK_GOAL_SECONDS = 5.0
WARM_UP_PERIODS = 5
LIST_EVERY_SECONDS = 0.05
STATUS_EVERY_SECONDS = 1.0
WAIT_SECONDS = 300.0
NODE_FOLDERS = "recordstreams/"
LISTING_FROM_TRANSACTIONS = 1000
"""From this many transactions a block, a block counts as answered once ``getBlocks`` lists it:
polling ``getBlock`` would render the whole block each time and time the query function's
rendering, not the lag."""


class Loop:
    """``step`` on a daemon thread every ``seconds`` from ``start()`` until ``stop()``."""

    def __init__(self, name: str, seconds: float, step: Callable[[], None]) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(seconds, step), name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(30)

    def _run(self, seconds: float, step: Callable[[], None]) -> None:
        while not self._stop.wait(seconds):
            step()


@dataclass
class ListingBaseline:
    """Lists the bucket's node folders in a loop and notes when each signature file first shows."""

    source: ObjectSource
    nodes: int
    seen_ns: dict[str, int] = field(default_factory=dict)
    list_calls: int = 0
    _folders: list[str] = field(default_factory=list)
    _after: dict[str, str] = field(default_factory=dict)

    def loop(self) -> Loop:
        return Loop("listing-baseline", LIST_EVERY_SECONDS, self._list_once)

    def _list_once(self) -> None:
        try:
            if len(self._folders) < self.nodes:
                self._folders = self.source.list_prefixes(NODE_FOLDERS)
            for folder in self._folders:
                self.list_calls += 1
                # The delimiter keeps the sidecar/ subfolder out: its names sort after the
                # signature files', and listing after one of them would skip the next periods.
                for info in self.source.list(folder, delimiter="/", start_after=self._after.get(folder)):
                    self._after[folder] = info.name
                    if info.name.endswith(".rcd_sig"):
                        self.seen_ns.setdefault(info.name, time.time_ns())
        except HistoryError:
            return

    def all_seen_ns(self, written: PeriodWritten) -> int | None:
        """When a listing had returned every on-time signature file of ``written``'s period."""
        times = sorted(ns for name, ns in self.seen_ns.items() if written.period_key in name)
        if len(times) < written.signatures or not written.signatures:
            return None
        return times[written.signatures - 1]


@dataclass
class FollowerLag:
    """The follower's own lag, sampled from the query function's status once a second."""

    query: str
    samples: list[float] = field(default_factory=list)

    def loop(self) -> Loop:
        return Loop("follower-lag", STATUS_EVERY_SECONDS, self._sample_once)

    def _sample_once(self) -> None:
        lag = follower_lag_seconds(self.query)
        if lag is not None:
            self.samples.append(lag)


def figures(label: str, samples: list[float]) -> str:
    if not samples:
        return f"  {label}: no sample"
    return (
        f"  {label}: p50 {statistics.median(samples):.2f} s, p99 {percentile(samples, 0.99):.2f} s, "
        f"max {max(samples):.2f} s, n={len(samples)}"
    )


def run(seconds: float, period_seconds: float, cutover_after: int | None = None, transactions: int = 20) -> None:
    periods = max(1, math.ceil(seconds / period_seconds))
    config = LiveConfig(
        nodes=4,
        periods=periods + (cutover_after or 0),
        period_seconds=period_seconds,
        transactions=transactions,
        seed=5,
        cutover_after=cutover_after,
    )
    with tempfile.TemporaryDirectory(prefix="follow-lag-bench-") as tmp:
        root = Path(tmp)
        started = datetime.now(UTC)
        network = prepare_live_network(config, root / "network")
        stack_config = StackConfig(
            state_dir=root / "stack",
            address_book=network.address_book,
            first_block=network.first_block,
            follow_source="gs://hedera-streams",
            follow_start=started.isoformat(),
            sweep_interval_seconds=5.0,
            extra_env={"HEDERA_HISTORY_LEDGER_PUBLICATION": str(network.folder / LEDGER_PUBLICATION_FILE)},
        )
        with LocalStack(stack_config) as stack:
            load_directory_snapshot(stack.state, network.folder)
            settings = stack.settings()
            query = stack.url("query").rstrip("/")
            baseline = ListingBaseline(open_source(stack.state.follow_source, settings), config.nodes)
            follower = FollowerLag(query)
            written: list[PeriodWritten] = []

            def on_period(period: PeriodWritten) -> None:
                written.append(period)
                arrivals.period_written(period)

            loops = [baseline.loop(), follower.loop()]
            listing = transactions >= LISTING_FROM_TRANSACTIONS
            with BlockArrivals(query, network.first_block, listing=listing) as arrivals:
                for loop in loops:
                    loop.start()
                sink = open_sink(stack.state.follow_source, settings)
                player = LivePlayer(config, sink, book_dir=network.folder, on_period=on_period)
                player.start()
                summary = player.join()
                wanted = {p.block_number for p in written}
                done = arrivals.wait_for(wanted, WAIT_SECONDS)
                for loop in loops:
                    loop.stop()
                answered = arrivals.arrivals()
                followed = follower_blocks(stack)
    report(config, summary.periods, answered, written, baseline, follower, done)
    if cutover_after is not None:
        report_blocks(answered, cutover_after + (answered[0].block_number if answered else 0), followed)


@dataclass(frozen=True, slots=True)
class FollowedBlock:
    """A block as the follower's ``follower block`` log line tells it."""

    published_ns: int
    read_seconds: float
    ingest_seconds: float
    ingest_cpu_seconds: float


def follower_blocks(stack: LocalStack) -> dict[int, FollowedBlock]:
    """Block number -> the follower's ``follower block`` line (the follow function's log)."""
    found: dict[int, FollowedBlock] = {}
    for entry in logged_entries(stack, "follow", "follower block"):
        try:
            published = datetime.fromisoformat(entry["time"])
            found[entry["block"]] = FollowedBlock(
                int(published.timestamp() * 1e9),
                float(entry["read_seconds"]),
                float(entry["ingest_seconds"]),
                float(entry["ingest_cpu_seconds"]),
            )
        except (ValueError, KeyError, TypeError):
            continue
    return found


def report_blocks(answered: list[Arrival], first_block: int, followed: dict[int, FollowedBlock]) -> None:
    """The blocks after the switch and a warm-up: block file written -> block answered, and where
    the follower's log splits that time."""
    blocks = [a for a in answered if a.is_block_file and a.block_number >= first_block + WARM_UP_PERIODS]
    lags = [a.lag_seconds or 0.0 for a in blocks]
    print("after the cutover: block file written -> block answered by getBlock:")
    print(figures(f"native blocks (after {WARM_UP_PERIODS} blocks)", lags))
    split = [(a, followed[a.block_number]) for a in blocks if a.block_number in followed]
    print(f"  split by the follower's log ({len(split)} blocks):")
    found = [(f.published_ns - a.written.last_written_ns) / 1e9 - f.ingest_seconds for a, f in split]
    print(figures("  written -> found by the follower (poll + read)", found))
    print(figures("  of which the read", [f.read_seconds for _, f in split]))
    print(figures("  found -> published (parse, verify, publish)", [f.ingest_seconds for _, f in split]))
    cpu = [f.ingest_cpu_seconds for _, f in split]
    print(figures("  of which CPU, the follow process's (against a block every 2 s)", cpu))
    print(
        figures(
            "  published -> answered (Pub/Sub, store, query poll)",
            [(a.answered_ns - f.published_ns) / 1e9 for a, f in split],
        )
    )
    if lags:
        p50, p99 = statistics.median(lags), percentile(lags, 0.99)
        verdict = "meets" if p99 <= BLOCK_GOAL_SECONDS else "DOES NOT MEET"
        print(f"verdict: blocks p50 {p50:.2f} s, p99 {p99:.2f} s {verdict} the goal (at most {BLOCK_GOAL_SECONDS:g} s)")


def report(
    config: LiveConfig,
    played: int,
    answered: list[Arrival],
    written: list[PeriodWritten],
    baseline: ListingBaseline,
    follower: FollowerLag,
    done: bool,
) -> None:
    lags = {a.block_number: a.lag_seconds for a in answered if a.lag_seconds is not None}
    listed: dict[int, float] = {}
    for period in written:
        seen = baseline.all_seen_ns(period)
        if seen is not None and period.last_signature_ns is not None:
            listed[period.block_number] = (seen - period.last_signature_ns) / 1e9
    first = min((p.block_number for p in written), default=0)
    steady = [lag for number, lag in lags.items() if number >= first + WARM_UP_PERIODS]
    steady_listed = [lag for number, lag in listed.items() if number >= first + WARM_UP_PERIODS]
    print(
        f"follow lag: {config.nodes} nodes, {config.transactions:,} transactions a period, a period every "
        f"{config.period_seconds:g} s, {played} periods played "
        f"into the local stack's GCS emulator bucket, followed by its follow function (default settings)"
    )
    print(f"last signature file written -> block answered by getBlock ({len(lags)} of {played} answered):")
    print(figures(f"steady state (after {WARM_UP_PERIODS} periods)", steady))
    print(figures("every period", list(lags.values())))
    print("baseline: last signature file written -> every on-time signature file returned by a listing (50 ms):")
    print(figures("steady state", steady_listed))
    print(f"  ({baseline.list_calls} list calls)")
    print("the follower's own lag (GET /api/v1/status once a second: now - the last period it handed off):")
    print(figures("samples", follower.samples[WARM_UP_PERIODS:]))
    if not done or not steady:
        print(f"verdict: NOT MET: blocks not all answered within {WAIT_SECONDS:.0f} s of the last period")
        return
    p99 = percentile(steady, 0.99)
    verdict = "meets" if p99 <= GOAL_SECONDS else "DOES NOT MEET"
    print(f"verdict: steady-state p99 {p99:.2f} s {verdict} the goal (at most {GOAL_SECONDS:g} s behind)")


@reports_machine
def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=120.0, help="How long the network plays (default 120).")
    parser.add_argument("--period-seconds", type=float, default=2.0, help="A period every N s (default 2).")
    parser.add_argument(
        "--cutover-after", type=int, default=None, help="Record periods before the network cuts over to blocks."
    )
    parser.add_argument(
        "--transactions", type=int, default=20, help="Transactions a period or block (default 20; mainnet: 20000)."
    )
    args = parser.parse_args(argv)
    run(args.seconds, args.period_seconds, args.cutover_after, args.transactions)


if __name__ == "__main__":
    main()
