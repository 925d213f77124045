"""The demo's run: the local stack follows its own bucket while a generated network plays into it live.

The steps, in order: stop a previous demo stack in the same folder, write the network's book, keys
and genesis balances, bring the stack up following its GCS emulator's bucket (as a deployment
follows a network's public bucket), load the genesis balances, play the network in real time while
watching each block become queryable, wait until every block is complete, then gather what there is
to show (a summary and a few queries answered over HTTP) while the stack still runs, and stop it or
leave it running. :func:`run_demo` does all of it and tells a :class:`DemoView` as it goes; the
command (``hedera-history demo``) only draws that view and prints the :class:`DemoResult`.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import requests

from hedera_history.config import Settings, env_name
from hedera_history.errors import StackError
from hedera_history.gen.config_and_output import LEDGER_PUBLICATION_FILE, GeneratedStream
from hedera_history.gen.live import LiveConfig, LivePlayer, LiveSummary
from hedera_history.gen.writer import GROUND_TRUTH_FILE
from hedera_history.localstack.balances import load_directory_snapshot
from hedera_history.localstack.live_follow import (
    Arrival,
    BlockArrivals,
    PreparedNetwork,
    follower_lag_seconds,
    follower_mode,
    prepare_live_network,
)
from hedera_history.localstack.stack import LocalStack, StackConfig, stop_recorded_stack
from hedera_history.localstack.stack_progress import (
    WaitOutcome,
    first_blocks_target,
    open_gateway_for,
    read_progress,
    wait_for_blocks,
)
from hedera_history.localstack.stack_state import read_state
from hedera_history.pipeline.history_start import SnapshotLoad
from hedera_history.sources.base import open_sink
from hedera_history.store.reader import HistoryReader

WAIT_SECONDS = 300.0
"""After the last period is written: how long the blocks may take to become queryable."""
MISSING_SIGNATURE_RATE = 0.03
LATE_SIGNATURE_RATE = 0.03
CUTOVER_QUIET_SECONDS = 4.0
"""The demo follower's ``follow_cutover_seconds``."""
ANSWER_CHARS = 900
"""An example answer is cut after this many characters of indented JSON."""


@dataclass(frozen=True, slots=True)
class DemoOptions:
    out: Path
    """Where the network's book, keys and truth (``network/``) and the stack's state and logs (``stack/``) go."""
    nodes: int = 4
    periods: int = 20
    period_seconds: float = 2.0
    transactions: int = 20
    seed: int = 1
    stop: bool = False
    """Stop the stack at the end (else it keeps running for further queries)."""
    cutover_after: int | None = None
    """Record periods before the network cuts over to blocks (one wrapped record block, then native
    blocks); None: half the periods; negative: never."""

    @property
    def network_dir(self) -> Path:
        return self.out.resolve() / "network"

    @property
    def state_dir(self) -> Path:
        return self.out.resolve() / "stack"

    def live_config(self) -> LiveConfig:
        cutover = self.periods // 2 if self.cutover_after is None else self.cutover_after
        crosses = 0 <= cutover < self.periods - 1
        return LiveConfig(
            nodes=self.nodes,
            periods=self.periods,
            period_seconds=self.period_seconds,
            transactions=self.transactions,
            seed=self.seed,
            missing_signature_rate=MISSING_SIGNATURE_RATE,
            late_signature_rate=LATE_SIGNATURE_RATE,
            cutover_after=cutover if crosses else None,
            wrapped_periods=1 if crosses else 0,
        )


@dataclass(frozen=True, slots=True)
class BlockShown:
    """A block the query function started answering, as the demo shows it."""

    arrival: Arrival
    follower_lag: str
    """The follower's own lag at that moment (``"1.2 s"``, ``"? s"`` when its status did not answer)."""
    follower_reads: str = "?"
    """What the follower reads at that moment: ``record files`` or ``blocks`` (``?``: no answer)."""


class DemoView(Protocol):
    """What the demo tells as it runs (the command draws it)."""

    def stopping_previous(self, state_dir: Path) -> None: ...

    def starting_stack(self) -> AbstractContextManager[Callable[[str], None]]:
        """Entered while the stack starts; the callable takes each start-up step's name."""
        ...

    def genesis_balances_loaded(self) -> None: ...

    def playing(self, config: LiveConfig, follow_source: str) -> None: ...

    def block_queryable(self, block: BlockShown) -> None:
        """Called from a polling thread, once per block."""
        ...

    def not_queryable_yet(self, numbers: list[int]) -> None: ...

    def waiting_for_blocks(self, total: int) -> AbstractContextManager[Callable[[int], None]]:
        """Entered while the blocks complete; the callable takes how many are complete so far."""
        ...


@dataclass(frozen=True, slots=True)
class ExampleQuery:
    command: str
    """The curl command that asks it."""
    answer: str
    """The answer as indented JSON, cut after :data:`ANSWER_CHARS`."""


@dataclass(frozen=True)
class DemoResult:
    outcome: WaitOutcome
    """Whether every played block completed (``done``), and if not which are missing."""
    state_dir: Path
    network_dir: Path
    query_url: str
    stopped: bool
    summary: list[tuple[str, str]] = field(default_factory=list)
    """(what, value) rows; empty when blocks were missing."""
    examples: list[ExampleQuery] = field(default_factory=list)

    @property
    def truth_file(self) -> Path:
        """What the network played."""
        return self.network_dir / GROUND_TRUTH_FILE


def run_demo(options: DemoOptions, view: DemoView) -> DemoResult:
    """Run the demo (see the module's description). The stack's start-up failures propagate:
    :class:`~hedera_history.errors.PrerequisiteError` when a tool is missing, else
    :class:`~hedera_history.errors.StackError`."""
    started = time.monotonic()
    config = options.live_config()
    start = datetime.now(UTC)
    network = prepare_live_network(config, options.network_dir)
    stack = _start_stack(view, network, options.state_dir, follow_start=start.isoformat())
    stack_ready = time.monotonic()
    try:
        # Before the first block: derived balances start from the generated genesis, not from zero.
        if load_directory_snapshot(stack.state, network.folder) is SnapshotLoad.LOADED:
            view.genesis_balances_loaded()
        played, arrivals = _play(view, stack, config, network)
        target = first_blocks_target(network.first_block, played.periods)
        reader = HistoryReader(open_gateway_for(stack.state))
        with view.waiting_for_blocks(target.count) as on_progress:
            outcome = wait_for_blocks(reader, target, WAIT_SECONDS, on_progress=on_progress)
        finished = time.monotonic()
        result = DemoResult(outcome, options.state_dir, network.folder, stack.url("query"), stopped=options.stop)
        if not outcome.done or played.stream is None:
            return result
        summary = _summary(stack, played, arrivals, startup=stack_ready - started, playing=finished - stack_ready)
        return replace(result, summary=summary, examples=_examples(result.query_url, played.stream))
    finally:
        if options.stop:
            stack.stop()
        else:
            stack.detach()


def _start_stack(view: DemoView, network: PreparedNetwork, state_dir: Path, *, follow_start: str) -> LocalStack:
    previous = read_state(state_dir)
    if previous is not None:
        view.stopping_previous(state_dir)
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
        # The network's block 0 publishes its ledger id: native blocks after the cutover are
        # checked against it; the cutover is looked for after two quiet periods, not three.
        extra_env={
            env_name("ledger_publication"): str(network.folder / LEDGER_PUBLICATION_FILE),
            env_name("follow_cutover_seconds"): str(CUTOVER_QUIET_SECONDS),
        },
        detached=True,
    )
    try:
        with view.starting_stack() as on_step:
            return LocalStack(config, on_step=on_step).start()
    except StackError as e:
        raise StackError(f"the local stack did not start: {e}") from e


def _play(
    view: DemoView, stack: LocalStack, config: LiveConfig, network: PreparedNetwork
) -> tuple[LiveSummary, list[Arrival]]:
    """Play the network into the followed bucket, showing each block as it becomes queryable."""
    query = stack.url("query").rstrip("/")
    view.playing(config, stack.state.follow_source)

    def show(arrival: Arrival) -> None:
        view.block_queryable(BlockShown(arrival, follower_lag(query), follower_reads(query)))

    sink = open_sink(stack.state.follow_source, stack.settings())
    with BlockArrivals(query, network.first_block, on_arrival=show) as arrivals:
        player = LivePlayer(config, sink, book_dir=network.folder, on_period=arrivals.period_written)
        player.start()
        summary = player.join()
        wanted = set(range(network.first_block, network.first_block + summary.periods))
        if not arrivals.wait_for(wanted, WAIT_SECONDS):
            view.not_queryable_yet(sorted(wanted - arrivals.answered()))
        return summary, arrivals.arrivals()


def follower_reads(query: str) -> str:
    """What the follower reads (:func:`follower_mode`) as the demo shows it."""
    return {"records": "record files", "blocks": "blocks"}.get(follower_mode(query) or "", "?")


def follower_lag(query: str) -> str:
    """The follower's own lag (:func:`follower_lag_seconds`) as the demo shows it."""
    lag = follower_lag_seconds(query)
    return "? s" if lag is None else f"{lag:.1f} s"


def _summary(
    stack: LocalStack, played: LiveSummary, arrivals: list[Arrival], *, startup: float, playing: float
) -> list[tuple[str, str]]:
    assert played.stream is not None
    stream = played.stream
    truth = stream.truth
    progress = read_progress(open_gateway_for(stack.state))
    lags = [a.lag_seconds for a in arrivals if a.lag_seconds is not None]
    rows = [
        ("nodes", str(len(stream.nodes))),
        (
            "files written live",
            f"{played.files_written} ({played.missing_signatures} signature files missing, "
            f"{played.late_signatures} late)",
        ),
        ("blocks complete", f"{progress.complete_blocks} ({progress.first_block}-{progress.last_block})"),
        ("transactions", str(len(truth["transactions"]))),
        ("accounts with history", str(len(truth["accounts"]))),
        ("quarantined files", str(progress.quarantined)),
        ("stack start-up", f"{startup:.1f} s"),
    ]
    if lags:
        rows.append(
            (
                "last signature file -> block queryable",
                f"median {statistics.median(lags):.1f} s, max {max(lags):.1f} s over {len(lags)} blocks",
            )
        )
    # The network's pace sets this, not the pipeline: `python -m bench.follow_lag_bench` measures the lag.
    rows.append(("first period played to last block complete", f"{playing:.1f} s"))
    return rows


def _examples(query_url: str, stream: GeneratedStream) -> list[ExampleQuery]:
    """A few JSON-RPC and REST queries about what was played, asked of the query function."""
    truth = stream.truth
    query = query_url.rstrip("/")
    rng = random.Random(0)
    transaction = rng.choice(truth["transactions"])
    busiest = max(truth["accounts"].items(), key=lambda item: len(item[1]))[0]
    first = truth["blocks"][0]["number"]
    calls: list[tuple[str, Any]] = [
        ("getBlock", [first]),
        ("getTransaction", [transaction["hash"]]),
        ("getTransactionsForAccount", [busiest, {"limit": 2}]),
    ]
    examples = []
    for method, params in calls:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        answer = requests.post(query, json=body, timeout=30).json()
        examples.append(
            ExampleQuery(
                f"curl -s {query} -d '{json.dumps(body)}'", _shorten(answer.get("result", answer.get("error")))
            )
        )
    for path in ("/api/v1/blocks?order=desc&limit=2", f"/api/v1/balances?account.id={busiest}", "/api/v1/status"):
        examples.append(
            ExampleQuery(f"curl -s '{query}{path}'", _shorten(requests.get(query + path, timeout=30).json()))
        )
    return examples


def _shorten(value: Any, limit: int = ANSWER_CHARS) -> str:
    text = json.dumps(value, indent=2)
    return text if len(text) <= limit else text[:limit] + "\n  ... (cut)"
