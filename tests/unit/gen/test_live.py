"""The live player on an injected clock (no real sleeping) and an in-memory sink: the upload
schedule (per node order, delays, lagging nodes, missing and late signatures), determinism per
seed, stopping, and a written stream that verifies."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history.books.parse import parse_address_book
from hedera_history.cli.main import cli
from hedera_history.errors import ConfigError
from hedera_history.formats.names import parse_stream_file_name
from hedera_history.gen.config_and_output import NS_PER_SECOND
from hedera_history.gen.live import LiveConfig, LivePlayer, LiveSummary, PeriodWritten, UploadSchedule
from hedera_history.gen.live_schedule import NodeFiles, SignatureFate, UploadKind
from hedera_history.gen.stream import StreamBuilder
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.stream import verify_stream

START_NS = 1_800_000_000 * NS_PER_SECOND + 123_456_789


@dataclass
class FakeClock:
    """Moves only when waited on, by exactly the time asked."""

    now_ns: int = START_NS
    waits: int = 0

    def time_ns(self) -> int:
        return self.now_ns

    def wait(self, seconds: float, stop: threading.Event) -> None:
        self.waits += 1
        if not stop.is_set():
            self.now_ns += max(0, round(seconds * NS_PER_SECOND))


@dataclass
class MemorySink:
    clock: FakeClock
    objects: dict[str, bytes] = field(default_factory=dict)
    log: list[tuple[int, str]] = field(default_factory=list)
    """(clock time, name) of every write, in order."""

    @property
    def url(self) -> str:
        return "memory://"

    def write(self, name: str, data: bytes) -> None:
        assert name not in self.objects, f"{name} written twice"
        self.objects[name] = data
        self.log.append((self.clock.now_ns, name))

    def create(self, name: str, data: bytes) -> bool:
        if name in self.objects:
            return False
        self.write(name, data)
        return True


def _play(config: LiveConfig, tmp_path: Path | None = None, **kwargs: object) -> tuple[LiveSummary, MemorySink]:
    clock = FakeClock()
    sink = MemorySink(clock)
    player = LivePlayer(config, sink, clock=clock, book_dir=tmp_path, **kwargs)  # type: ignore[arg-type]
    return player.run(), sink


def _node_of(name: str) -> str:
    return name.split("/")[1].removeprefix("record")


def _landed(sink: MemorySink) -> dict[str, float]:
    """Object name -> seconds after the start it was written."""
    return {name: (ns - START_NS) / NS_PER_SECOND for ns, name in sink.log}


SMALL = LiveConfig(nodes=4, periods=6, transactions=10, seed=2, period_seconds=2.0)


def test_every_file_lands_once_record_then_sidecars_then_signature(tmp_path: Path) -> None:
    lines: list[PeriodWritten] = []
    summary, sink = _play(SMALL, tmp_path, on_period=lines.append)
    assert summary.stream is not None
    assert sink.objects == dict(summary.stream.objects)
    assert summary.files_written == len(sink.objects)
    assert summary.periods == 6
    assert (summary.first_block, summary.last_block) == (0, 5)
    assert not summary.stopped
    assert [line.period for line in lines] == list(range(6))
    order = {name: i for i, (_, name) in enumerate(sink.log)}
    stream = summary.stream
    for period in range(6):
        for node in range(4):
            record = order[stream.record_path(node, period)]
            sidecars = [order[p] for p in stream.sidecar_paths(node, period)]
            signature = order[stream.signature_path(node, period)]
            assert all(record < s < signature for s in sidecars)
            assert record < signature


def test_consensus_times_follow_the_wall_clock(tmp_path: Path) -> None:
    summary, sink = _play(SMALL, tmp_path)
    schedule = UploadSchedule(SMALL)
    landed = _landed(sink)
    assert summary.stream is not None
    for period in summary.stream.periods:
        # The period starts at the start time plus its index in periods: its first item is just after.
        start = START_NS + period.index * 2 * NS_PER_SECOND
        assert start <= period.consensus_start_ns < period.consensus_end_ns < start + 2 * NS_PER_SECOND
        for node in range(4):
            name = summary.stream.record_path(node, period.index)
            assert parse_stream_file_name(name.rsplit("/", 1)[1]).consensus_ns == period.consensus_start_ns
            # Written when the period closes plus the node's own delay (0.1-1.5 s).
            expected = schedule.close_of(period.index) + schedule.node_delays[node]
            assert landed[name] == pytest.approx(expected, abs=1e-6)
            lag_behind_name = (START_NS + landed[name] * NS_PER_SECOND - period.consensus_start_ns) / NS_PER_SECOND
            assert 2.0 < lag_behind_name < 2.0 + 1.5 + 0.01


def test_each_node_has_its_own_delay_from_the_seed() -> None:
    delays = UploadSchedule(LiveConfig(nodes=6, seed=1)).node_delays
    assert len(set(delays)) == 6
    assert all(0.1 <= d <= 1.5 for d in delays)
    assert UploadSchedule(LiveConfig(nodes=6, seed=1)).node_delays == delays
    assert UploadSchedule(LiveConfig(nodes=6, seed=2)).node_delays != delays


def test_the_same_seed_plays_the_same(tmp_path: Path) -> None:
    config = LiveConfig(nodes=4, periods=4, transactions=8, missing_signature_rate=0.2, late_signature_rate=0.3)
    first = _play(config)[1]
    second = _play(config)[1]
    assert first.log == second.log
    assert first.objects == second.objects
    other = _play(LiveConfig(nodes=4, periods=4, transactions=8, seed=9))[1]
    assert [name for _, name in other.log] != [name for _, name in first.log]


def test_lagging_node_writes_minutes_later(tmp_path: Path) -> None:
    config = LiveConfig(nodes=4, periods=3, transactions=8, lagging_nodes=("0.0.5",), lag_seconds=120)
    assert config.lagging_node_ids == (2,)
    lines: list[PeriodWritten] = []
    summary, sink = _play(config, tmp_path, on_period=lines.append)
    assert summary.stream is not None
    schedule = UploadSchedule(config)
    landed = _landed(sink)
    for period in range(3):
        for path in summary.stream.period_paths("0.0.5", period):
            assert landed[path] >= schedule.close_of(period) + 120
        for node in (0, 1, 3):
            assert landed[summary.stream.signature_path(node, period)] < schedule.close_of(period) + 2
    # A period is reported when its on-time files are in, not two minutes later.
    assert all(line.lagging == ("0.0.5",) for line in lines)
    assert all(line.last_written_ns < START_NS + 10 * NS_PER_SECOND for line in lines)
    assert all(line.files == 3 * 3 if summary.stream.periods[line.period].sidecars else 3 * 2 for line in lines)
    assert sink.objects == dict(summary.stream.objects)  # the run waits for the lagging node


def test_missing_and_late_signatures_never_cost_consensus(tmp_path: Path) -> None:
    config = LiveConfig(
        nodes=7, periods=12, transactions=8, missing_signature_rate=0.5, late_signature_rate=0.3, seed=5
    )
    summary, sink = _play(config, tmp_path)
    stream = summary.stream
    assert stream is not None
    landed = _landed(sink)
    schedule = UploadSchedule(config)
    missing = late = 0
    for period in range(12):
        fates, late_by = schedule.fates(period)
        assert sum(f is SignatureFate.MISSING for f in fates) <= 2  # (7 - 1) // 3
        for node, fate in enumerate(fates):
            path = stream.signature_path(node, period)
            if fate is SignatureFate.MISSING:
                assert path not in sink.objects
                missing += 1
            elif fate is SignatureFate.LATE:
                assert 2 <= late_by[node] <= 5
                record_at = landed[stream.record_path(node, period)]
                assert landed[path] >= record_at + late_by[node] * config.period_seconds
                late += 1
            else:
                assert landed[path] < landed[stream.record_path(node, period)] + 0.25
        block = stream.truth["blocks"][period]
        assert block["signers"] == [f"0.0.{3 + n}" for n, f in enumerate(fates) if f is not SignatureFate.MISSING]
    assert missing > 0 and late > 0
    assert sink.objects == dict(stream.objects)  # the played stream holds no missing signature file
    assert summary.missing_signatures == missing and summary.late_signatures == late
    assert len(stream.truth["live"]["missing_signatures"]) == missing
    assert len(stream.truth["live"]["late_signatures"]) == late
    # Every period still verifies, read back from disk with the book written before the start.
    _write_objects(sink, tmp_path / "bucket")
    book = parse_address_book((tmp_path / "address-book.bin").read_bytes())
    results = list(verify_stream(find_local_periods(tmp_path / "bucket"), book))
    assert [r.error for r in results] == [None] * 12


def test_no_consensus_periods_lack_signers(tmp_path: Path) -> None:
    config = LiveConfig(nodes=4, periods=4, transactions=8, no_consensus_periods=(1, 3), missing_signature_rate=0.0)
    summary, sink = _play(config, tmp_path)
    assert summary.stream is not None
    for period in range(4):
        signatures = [
            p
            for p in sink.objects
            if p.endswith(".rcd_sig") and summary.stream.periods[period].record_name.period_key in p
        ]
        expected = math.ceil(4 / 3) - 1 if period in (1, 3) else 4
        assert len(signatures) == expected
    assert summary.stream.truth["live"]["no_consensus_blocks"] == [1, 3]
    _write_objects(sink, tmp_path / "bucket")
    book = parse_address_book((tmp_path / "address-book.bin").read_bytes())
    errors = [r.error for r in verify_stream(find_local_periods(tmp_path / "bucket"), book)]
    assert errors[0] is None
    assert errors[1] is not None


def test_schedule_orders_a_nodes_files() -> None:
    config = LiveConfig(nodes=2, late_signature_rate=1.0, period_seconds=1.0)
    files = [NodeFiles(f"n{n}/r", (f"n{n}/s1",), f"n{n}/sig") for n in range(2)]
    plan = UploadSchedule(config).plan(3, files)
    kinds = [(u.node_id, u.kind) for u in plan.uploads if u.node_id == 0]
    assert kinds == [(0, UploadKind.RECORD), (0, UploadKind.SIDECAR), (0, UploadKind.SIGNATURE)]
    assert all(f is SignatureFate.LATE for f in plan.fates)
    assert [u.on_time for u in plan.uploads if u.kind is UploadKind.SIGNATURE] == [False, False]
    assert list(plan.uploads) == sorted(plan.uploads)


def test_stop_ends_the_run_and_flushes_what_was_generated(tmp_path: Path) -> None:
    config = LiveConfig(nodes=4, transactions=8, lagging_nodes=(1,), lag_seconds=300)  # no period limit
    clock = FakeClock()
    sink = MemorySink(clock)
    player = LivePlayer(
        config, sink, clock=clock, book_dir=tmp_path, until=lambda: clock.now_ns > START_NS + 9 * NS_PER_SECOND
    )
    summary = player.run()
    assert summary.stopped
    assert summary.stream is not None
    generated = len(summary.stream.periods)
    assert generated == 4  # periods 0-3 closed by 9 s
    assert summary.flushed > 0  # the lagging node's files, among others
    assert sink.objects == dict(summary.stream.objects)
    assert clock.now_ns < START_NS + 20 * NS_PER_SECOND  # did not wait for the lag
    truth = (tmp_path / "ground-truth.json").read_text()
    assert '"periods": 4' in truth


def test_a_second_stop_cuts_the_flush_short() -> None:
    config = LiveConfig(nodes=4, transactions=8, lagging_nodes=(0, 1, 2, 3), lag_seconds=300)
    clock = FakeClock()
    sink = MemorySink(clock)
    player: LivePlayer

    def until() -> bool:
        if clock.now_ns > START_NS + 5 * NS_PER_SECOND:
            player.stop()
            player.stop()
            return True
        return False

    player = LivePlayer(config, sink, clock=clock, until=until)
    summary = player.run()
    assert summary.stopped
    assert summary.unwritten > 0
    assert sink.objects == {}


def test_bad_options_are_refused() -> None:
    with pytest.raises(ConfigError):
        LiveConfig(lagging_nodes=("0.0.99",))
    with pytest.raises(ConfigError):
        LiveConfig(missing_signature_rate=0.7, late_signature_rate=0.5)
    with pytest.raises(ConfigError):
        LiveConfig(periods=3, no_consensus_periods=(3,))
    with pytest.raises(ConfigError):
        LiveConfig(period_seconds=0)


def _write_objects(sink: MemorySink, root: Path) -> None:
    for name, data in sink.objects.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def test_cli_refuses_what_live_does_not_play(tmp_path: Path) -> None:
    runner = CliRunner()
    for extra in (["--eras", "5:1,6:1"], ["--duplicate-block", "1"], ["--signers", "0:1"]):
        result = runner.invoke(cli, ["generate", str(tmp_path / "out"), "--live", *extra])
        assert isinstance(result.exception, ConfigError), result.output
    result = runner.invoke(cli, ["generate", "gs://bucket/x", "--periods", "1"])
    assert isinstance(result.exception, ConfigError)
    assert "--live" in str(result.exception)
    result = runner.invoke(cli, ["generate", "gs://bucket/x", "--live", "--periods", "1"])
    assert isinstance(result.exception, ConfigError)
    assert "--book-dir" in str(result.exception)
    assert not (tmp_path / "out").exists()


def test_runs_in_a_background_thread() -> None:
    clock = FakeClock()
    sink = MemorySink(clock)
    player = LivePlayer(LiveConfig(nodes=4, periods=2, transactions=8), sink, clock=clock)
    player.start()
    summary = player.join(timeout=600)
    assert summary.periods == 2
    assert summary.stream is not None
    assert sink.objects == dict(summary.stream.objects)


def test_a_period_every_node_lags_is_reported_when_its_files_are_in() -> None:
    config = LiveConfig(nodes=4, periods=2, transactions=8, lagging_nodes=(0, 1, 2, 3), lag_seconds=30)
    lines: list[PeriodWritten] = []
    summary, _sink = _play(config, on_period=lines.append)
    assert [line.period for line in lines] == [0, 1]
    assert summary.periods == 2
    assert all(line.last_written_ns >= START_NS + 30 * NS_PER_SECOND for line in lines)
    assert all(line.signatures == 4 for line in lines)


def test_a_network_generating_late_writes_each_period_as_it_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each period takes 6 s to generate, three periods' time: its files land before the next
    overdue period is generated, not every overdue period's at once (a burst the follower's lag
    benchmark would count as the follower's backlog)."""
    clock = FakeClock()
    sink = MemorySink(clock)
    generated: list[tuple[int, set[str]]] = []
    original = StreamBuilder.next_period

    def slow(builder: StreamBuilder) -> Any:
        started = clock.now_ns
        clock.now_ns += 6 * NS_PER_SECOND
        period, objects = original(builder)
        generated.append((started, set(objects)))
        return period, objects

    monkeypatch.setattr(StreamBuilder, "next_period", slow)
    LivePlayer(LiveConfig(nodes=4, periods=4, transactions=8), sink, clock=clock).run()
    first_written = [min(ns for ns, name in sink.log if name in names) for _, names in generated]
    assert len(generated) == 4
    for (next_started, _), written in zip(generated[1:], first_written, strict=False):
        assert written <= next_started
