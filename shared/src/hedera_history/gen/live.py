"""A generated network played in real time into a sink (a directory, gs:// or s3://), as nodes upload.

::

    player = LivePlayer(LiveConfig(nodes=4, periods=60), open_sink(url, settings), book_dir="book")
    summary = player.run()          # blocks; player.stop() (another thread, a signal) ends it early
    player.start(); ...; player.stop(); summary = player.join()   # the same in a background thread

One period every ``period_seconds``, its consensus times at the wall clock: the first period
starts when ``run`` starts (after the node keys are derived), so a period's file name (its first
transaction's consensus time) is about one period and the node's upload delay before the file
lands, and a follower's lag can be measured against real time. Each period is generated when it
closes (:class:`~hedera_history.gen.stream.StreamBuilder`: the hashes chain exactly as in a
stream generated whole) and its files are written on the :class:`UploadSchedule`: per node the
record file and sidecars, then the signature file, each node after its own delay; lagging nodes,
late and missing signature files as configured.

Before the first period the bootstrap address book and the keys go to ``book_dir``
(``address-book.bin``, ``address-books/from-block-N.bin``, ``keys/``), what a follower needs to
verify; at the end the ground truth, every book and the genesis balances, as ``write_stream``
writes them. The truth's ``signers`` name the nodes whose signature file was (or was to be)
uploaded, and its ``live`` section says how the files landed.

Stopping (``stop()``, ``until``): no new period; the files of the periods already generated are
written at once (lagging and late ones included, missing ones never), so the sink and the truth
agree. A second stop request while flushing ends at once.
"""

from __future__ import annotations

import heapq
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from hedera_history.errors import ConfigError, GeneratorError, SourceUnavailableError
from hedera_history.formats.names import format_timestamp
from hedera_history.gen import keys as keygen
from hedera_history.gen.config_and_output import (
    LEDGER_PUBLICATION_FILE,
    NS_PER_SECOND,
    GeneratedBlock,
    GeneratedStream,
    GeneratedUnit,
    node_object_path,
)
from hedera_history.gen.live_schedule import (
    LiveConfig,
    NodeFiles,
    PeriodPlan,
    SignatureFate,
    Upload,
    UploadKind,
    UploadSchedule,
)
from hedera_history.gen.stream import StreamBuilder
from hedera_history.gen.writer import write_book_and_keys, write_stream_support
from hedera_history.logs import event
from hedera_history.sources.base import ObjectSink, parse_url

__all__ = [
    "Clock",
    "LiveConfig",
    "LivePlayer",
    "LiveSummary",
    "PeriodWritten",
    "SignatureFate",
    "SystemClock",
    "UploadKind",
    "UploadSchedule",
    "book_dir_for",
]

logger = logging.getLogger(__name__)

_WRITE_ATTEMPTS = 5


class Clock(Protocol):
    """Wall-clock time and waiting; tests pass one that moves only when waited on."""

    def time_ns(self) -> int: ...

    def wait(self, seconds: float, stop: threading.Event) -> None:
        """Return after ``seconds`` or as soon as ``stop`` is set."""
        ...


class SystemClock:
    def time_ns(self) -> int:
        return time.time_ns()

    def wait(self, seconds: float, stop: threading.Event) -> None:
        stop.wait(max(0.0, seconds))


@dataclass(frozen=True, slots=True)
class PeriodWritten:
    """A period whose on-time files (not lagging nodes', not late signatures) have all landed."""

    period: int
    block_number: int
    period_key: str
    """The record file's timestamp part (its first transaction's consensus time); for a block, its
    first transaction's consensus time in the same form."""
    consensus_start_ns: int
    files: int
    """Files written on time."""
    first_written_ns: int
    last_written_ns: int
    last_signature_ns: int | None
    """When the last on-time signature file landed (None when none did)."""
    signatures: int
    """Signature files on time."""
    late: tuple[str, ...]
    """Accounts whose signature file lands later."""
    missing: tuple[str, ...]
    """Accounts that never upload a signature file for this period."""
    lagging: tuple[str, ...]
    """Accounts whose files land ``lag_seconds`` later."""
    kind: str = "record"
    """``record``, or after the cutover ``wrapped`` or ``native`` (one block file, no signature files)."""
    proof: str | None = None
    """A block's proof kind (a native block proven through a later one's signature: ``block_state_proof``)."""


@dataclass
class LiveSummary:
    periods: int = 0
    """Periods generated and written."""
    first_block: int | None = None
    last_block: int | None = None
    files_written: int = 0
    missing_signatures: int = 0
    late_signatures: int = 0
    flushed: int = 0
    """Files written early because the player was stopped."""
    unwritten: int = 0
    """Files not written because a second stop request cut the flush short."""
    started_ns: int = 0
    ended_ns: int = 0
    stopped: bool = False
    """Stopped before ``periods`` (a stop request or ``until``)."""
    stream: GeneratedStream | None = field(default=None, repr=False)
    """The stream played: its objects those uploaded (no missing signature file), its truth amended
    (``signers``, the ``live`` section); None when no period was generated."""


@dataclass
class _PeriodProgress:
    period: GeneratedUnit
    plan: PeriodPlan
    on_time_left: int
    all_count: bool = False
    """No file is on time (every node lags): the period is reported when all its files are in."""
    first_written_ns: int | None = None
    last_written_ns: int = 0
    last_signature_ns: int | None = None
    written: int = 0
    signed: dict[int, int] = field(default_factory=dict)
    """Node id -> when its signature file landed."""


class LivePlayer:
    """Plays ``config`` into ``sink``; see the module documentation."""

    def __init__(
        self,
        config: LiveConfig,
        sink: ObjectSink,
        *,
        book_dir: Path | str | None = None,
        clock: Clock | None = None,
        on_period: Callable[[PeriodWritten], None] | None = None,
        until: Callable[[], bool] | None = None,
    ) -> None:
        """``on_period``: called once per period when its on-time files have landed. ``until``:
        checked between writes; True stops the player like :meth:`stop`."""
        self.config = config
        self.sink = sink
        self.book_dir = Path(book_dir) if book_dir is not None else None
        self.clock: Clock = clock or SystemClock()
        self.on_period = on_period
        self.until = until
        self.schedule = UploadSchedule(config)
        self._stop = threading.Event()
        self._abort = threading.Event()
        self._stop_requests = 0
        self._lock = threading.Lock()
        self._objects: dict[int, dict[str, bytes]] = {}
        self._thread: threading.Thread | None = None
        self._summary: LiveSummary | None = None
        self._error: Exception | None = None
        """Period index -> the objects of it not yet written."""

    def start(self) -> threading.Thread:
        """Run in a background thread (a local stack, a benchmark); :meth:`join` waits for the summary."""
        if self._thread is not None:
            raise GeneratorError("the live player was started already")
        self._thread = threading.Thread(target=self._run_in_thread, name="live-network", daemon=True)
        self._thread.start()
        return self._thread

    def join(self, timeout: float | None = None) -> LiveSummary:
        """The summary of a run begun with :meth:`start` (its error, if it failed)."""
        if self._thread is None:
            raise GeneratorError("the live player was not started")
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise GeneratorError(f"the live player is still running after {timeout} s")
        if self._error is not None:
            raise self._error
        assert self._summary is not None
        return self._summary

    def _run_in_thread(self) -> None:
        try:
            self._summary = self.run()
        except Exception as e:  # noqa: BLE001 - handed to join(), which raises it in the caller's thread
            self._error = e

    def stop(self) -> None:
        """Ask the player to stop (thread- and signal-safe); a second call cuts the flush short."""
        with self._lock:
            self._stop_requests += 1
            if self._stop_requests > 1:
                self._abort.set()
        self._stop.set()

    def run(self) -> LiveSummary:
        config = self.config
        _derive_keys(config)
        start_ns = self.clock.time_ns()
        builder = StreamBuilder(config.generator_config(start_ns))
        accounts = [node.account for node in builder.nodes]
        if self.book_dir is not None:
            write_book_and_keys(builder.bootstrap_book, builder.nodes, builder.keys, self.book_dir)
            epoch_file = self.book_dir / address_book_file_for(config.start_block)
            epoch_file.parent.mkdir(parents=True, exist_ok=True)
            epoch_file.write_bytes(builder.bootstrap_book)
            if builder.ledger_publication is not None:
                (self.book_dir / LEDGER_PUBLICATION_FILE).write_bytes(builder.ledger_publication)
        summary = LiveSummary(started_ns=start_ns)
        event(logger, "live network started", nodes=config.nodes, periods=config.periods, sink=self.sink.url)
        pending: list[Upload] = []
        progress: dict[int, _PeriodProgress] = {}
        total = config.periods

        def due(at: float) -> int:
            """An offset from the schedule as a clock time (whole ns, so waiting to it reaches it)."""
            return start_ns + math.ceil(at * NS_PER_SECOND)

        while True:
            if self._stopping():
                summary.stopped = total is None or builder.generated < total
                break
            generating = True
            while generating:
                # A period generated late lands its files before the next overdue one is generated:
                # a network that falls behind writes each block as it is made, not in one burst.
                generating = (total is None or builder.generated < total) and self.clock.time_ns() >= due(
                    self.schedule.close_of(builder.generated)
                )
                if generating:
                    self._generate(builder, pending, progress)
                while pending and self.clock.time_ns() >= due(pending[0].at) and not self._stopping():
                    self._land(heapq.heappop(pending), progress, summary, accounts)
            if self._stopping():
                continue
            more = total is None or builder.generated < total
            if not more and not pending:
                break
            next_at = [pending[0].at] if pending else []
            if more:
                next_at.append(self.schedule.close_of(builder.generated))
            self.clock.wait((due(min(next_at)) - self.clock.time_ns()) / NS_PER_SECOND, self._stop)
        while pending and not self._abort.is_set():
            self._land(heapq.heappop(pending), progress, summary, accounts, flushing=True)
        summary.unwritten = len(pending)
        summary.ended_ns = self.clock.time_ns()
        if builder.generated:
            summary.stream = self._finish(builder, progress, accounts, summary)
        event(
            logger,
            "live network stopped",
            periods=summary.periods,
            files=summary.files_written,
            flushed=summary.flushed,
            unwritten=summary.unwritten,
        )
        return summary

    def _stopping(self) -> bool:
        if not self._stop.is_set() and self.until is not None and self.until():
            self._stop.set()
        return self._stop.is_set()

    def _generate(self, builder: StreamBuilder, pending: list[Upload], progress: dict[int, _PeriodProgress]) -> None:
        period, objects = builder.next_period()
        gen_config = builder.config
        if isinstance(period, GeneratedBlock):
            plan = self.schedule.block_plan(period.index, sorted(objects))
        else:
            files = [
                NodeFiles(
                    record=node_object_path(gen_config, node, period.record_name),
                    sidecars=tuple(node_object_path(gen_config, node, s.name) for s in period.sidecars),
                    signature=node_object_path(gen_config, node, period.record_name.signature()),
                )
                for node in builder.nodes
            ]
            plan = self.schedule.plan(period.index, files)
        for upload in plan.uploads:
            heapq.heappush(pending, upload)
        on_time = sum(1 for u in plan.uploads if u.on_time)
        # When every node lags, the period is reported once all its files are in.
        progress[period.index] = _PeriodProgress(
            period=period, plan=plan, on_time_left=on_time or len(plan.uploads), all_count=not on_time
        )
        self._objects[period.index] = objects

    def _land(
        self,
        upload: Upload,
        progress: dict[int, _PeriodProgress],
        summary: LiveSummary,
        accounts: list[str],
        *,
        flushing: bool = False,
    ) -> None:
        data = self._objects[upload.period].pop(upload.name)
        self._write(upload.name, data)
        written_ns = self.clock.time_ns()
        summary.files_written += 1
        summary.flushed += flushing
        state = progress[upload.period]
        state.written += 1
        if upload.kind is UploadKind.SIGNATURE:
            state.signed[upload.node_id] = written_ns
        if not self._objects[upload.period]:
            del self._objects[upload.period]
        if not upload.on_time and not state.all_count:
            return
        state.first_written_ns = state.first_written_ns if state.first_written_ns is not None else written_ns
        state.last_written_ns = written_ns
        if upload.kind is UploadKind.SIGNATURE:
            state.last_signature_ns = written_ns
        state.on_time_left -= 1
        if state.on_time_left == 0:
            self._period_done(state, summary, accounts)

    def _period_done(self, state: _PeriodProgress, summary: LiveSummary, accounts: list[str]) -> None:
        period, plan = state.period, state.plan
        summary.periods += 1
        # After a cutover a block can land before the record file before it.
        number = period.block_number
        summary.first_block = number if summary.first_block is None else min(summary.first_block, number)
        summary.last_block = number if summary.last_block is None else max(summary.last_block, number)
        summary.missing_signatures += sum(f is SignatureFate.MISSING for f in plan.fates)
        summary.late_signatures += sum(f is SignatureFate.LATE for f in plan.fates)
        if self.on_period is None:
            return
        on_time = [u for u in plan.uploads if u.on_time or state.all_count]
        block = period if isinstance(period, GeneratedBlock) else None
        key = period.record_name.period_key if not isinstance(period, GeneratedBlock) else None
        self.on_period(
            PeriodWritten(
                period=period.index,
                block_number=period.block_number,
                period_key=key if key is not None else format_timestamp(period.consensus_start_ns),
                consensus_start_ns=period.consensus_start_ns,
                files=len(on_time),
                first_written_ns=state.first_written_ns or state.last_written_ns,
                last_written_ns=state.last_written_ns,
                last_signature_ns=state.last_signature_ns,
                signatures=sum(u.kind is UploadKind.SIGNATURE for u in on_time),
                late=tuple(accounts[n] for n, f in enumerate(plan.fates) if f is SignatureFate.LATE),
                missing=tuple(accounts[n] for n, f in enumerate(plan.fates) if f is SignatureFate.MISSING),
                lagging=tuple(accounts[n] for n in self.config.lagging_node_ids) if block is None else (),
                kind=block.kind.value if block else "record",
                proof=block.proof if block else None,
            )
        )

    def _write(self, name: str, data: bytes) -> None:
        for attempt in range(1, _WRITE_ATTEMPTS + 1):
            try:
                self.sink.write(name, data)
                return
            except SourceUnavailableError as e:
                if attempt == _WRITE_ATTEMPTS:
                    raise
                event(logger, "live upload failed, trying again", logging.WARNING, file=name, error=str(e))
                self.clock.wait(0.2 * 2**attempt, self._abort)

    def _finish(
        self,
        builder: StreamBuilder,
        progress: dict[int, _PeriodProgress],
        accounts: list[str],
        summary: LiveSummary,
    ) -> GeneratedStream:
        stream = builder.stream()
        truth = stream.truth
        live: dict[str, Any] = {
            "period_seconds": self.config.period_seconds,
            "started_ns": summary.started_ns,
            "node_delays": {accounts[n]: round(d, 6) for n, d in enumerate(self.schedule.node_delays)},
            "lagging_nodes": [accounts[n] for n in self.config.lagging_node_ids],
            "lag_seconds": self.config.lag_seconds,
            "no_consensus_blocks": [],
            "missing_signatures": [],
            "late_signatures": [],
            "written": {},
        }
        if self.config.cutover_after is not None:
            live["block_delay"] = round(self.schedule.block_delay, 6)
        for block in truth["blocks"]:
            state = progress[block["period"]]
            plan = state.plan
            if block.get("kind", "record") != "record":
                live["written"][str(block["number"])] = {"first_ns": state.first_written_ns}
                continue
            block["signers"] = [accounts[n] for n, f in enumerate(plan.fates) if f is not SignatureFate.MISSING]
            number = block["number"]
            if block["period"] in self.config.no_consensus_periods:
                live["no_consensus_blocks"].append(number)
            live["missing_signatures"] += [
                [number, accounts[n]] for n, f in enumerate(plan.fates) if f is SignatureFate.MISSING
            ]
            live["late_signatures"] += [
                [number, accounts[n], plan.late_by[n]] for n, f in enumerate(plan.fates) if f is SignatureFate.LATE
            ]
            live["written"][str(number)] = {
                "first_ns": state.first_written_ns,
                "last_signature_ns": state.last_signature_ns,
                "signatures": {accounts[n]: ns for n, ns in sorted(state.signed.items())},
            }
        truth["live"] = live
        never = {
            stream.signature_path(n, state.period.index)
            for state in progress.values()
            for n, fate in enumerate(state.plan.fates)
            if fate is SignatureFate.MISSING
        }
        stream = replace(stream, objects={k: v for k, v in stream.objects.items() if k not in never})
        if self.book_dir is not None:
            write_stream_support(stream, self.book_dir)
        return stream


def book_dir_for(out: str, book_dir: Path | None) -> Path:
    """Where a live run into ``out`` puts the book, keys and truth: ``book_dir``, else ``out`` itself
    when it is a local folder (a bucket has no place the pipeline would read them from)."""
    if book_dir is not None:
        return book_dir
    parsed = parse_url(out)
    if parsed.scheme != "file":
        raise ConfigError(f"--live into {out} needs --book-dir: a local folder for the address book, keys and truth")
    return Path(parsed.prefix)


def address_book_file_for(first_block: int) -> str:
    """Where the book in force from ``first_block`` goes in a book folder (as ``write_stream`` puts it)."""
    return f"address-books/from-block-{first_block}.bin"


def _derive_keys(config: LiveConfig) -> None:
    """Derive (or load from the key cache) every node key before the clock starts: the first
    derivation of an RSA-3072 key takes about a second."""
    for node_id in range(config.nodes):
        keygen.node_rsa_key(config.seed, node_id)
    if config.rotate_key and config.periods is not None:
        keygen.node_rsa_key(config.seed, config.seed % config.nodes, 1)
