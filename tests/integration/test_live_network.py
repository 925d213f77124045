"""The live player on the real clock into each kind of sink: a directory (through the CLI), the moto
S3 server and the GCS emulator. Short runs (0.2 s periods, a few periods): every object lands,
each node's record file before its signature file, and the written stream verifies."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hedera_history.books.parse import parse_address_book
from hedera_history.cli.main import cli
from hedera_history.config import Settings
from hedera_history.gen.live import LiveConfig, LivePlayer, LiveSummary
from hedera_history.sources import open_sink, open_source
from hedera_history.sources.base import ObjectSink, ObjectSource
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.stream import verify_stream

from tests.fixtures.emulators import PROJECT

PERIODS = 4
CONFIG = LiveConfig(
    nodes=4,
    periods=PERIODS,
    transactions=8,
    period_seconds=0.2,
    upload_delay=(0.01, 0.3),
    lagging_nodes=("0.0.6",),
    lag_seconds=0.5,
    late_signature_rate=0.2,
    missing_signature_rate=0.1,
    seed=3,
)


class RecordingSink:
    """Passes writes on and remembers their order."""

    def __init__(self, sink: ObjectSink) -> None:
        self.sink = sink
        self.order: list[str] = []

    @property
    def url(self) -> str:
        return self.sink.url

    def write(self, name: str, data: bytes) -> None:
        self.sink.write(name, data)
        self.order.append(name)

    def create(self, name: str, data: bytes) -> bool:
        created = self.sink.create(name, data)
        self.order.append(name)
        return created


def _play_into(url: str, settings: Settings, book_dir: Path) -> tuple[LiveSummary, list[str]]:
    sink = RecordingSink(open_sink(url, settings))
    summary = LivePlayer(CONFIG, sink, book_dir=book_dir).run()
    return summary, sink.order


def _check_landed(summary: LiveSummary, order: list[str], source: ObjectSource, copy_to: Path) -> None:
    stream = summary.stream
    assert stream is not None
    assert len(order) == len(set(order)) == summary.files_written
    landed = {info.name for info in source.list()}
    assert landed == set(order) == set(stream.objects)
    position = {name: i for i, name in enumerate(order)}
    for period in range(PERIODS):
        for node in range(CONFIG.nodes):
            signature = stream.signature_path(node, period)
            if signature in position:
                assert position[stream.record_path(node, period)] < position[signature]
    for name in landed:
        data = source.read(name)
        assert data == stream.objects[name]
        (copy_to / name).parent.mkdir(parents=True, exist_ok=True)
        (copy_to / name).write_bytes(data)


def _verifies(stream_dir: Path, book_dir: Path) -> None:
    book = parse_address_book((book_dir / "address-book.bin").read_bytes())
    results = list(verify_stream(find_local_periods(stream_dir), book))
    assert [r.error for r in results] == [None] * PERIODS


def test_cli_plays_into_a_directory(tmp_path: Path) -> None:
    out = tmp_path / "bucket"
    result = CliRunner().invoke(
        cli,
        [
            "generate",
            str(out),
            "--live",
            "--periods",
            "3",
            "--period-seconds",
            "0.2",
            "--transactions",
            "8",
            "--lagging-node",
            "0.0.4",
            "--lag-seconds",
            "1",
            "--missing-signatures",
            "0",
            "--late-signatures",
            "0",
        ],
    )
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line.startswith("block ")]
    assert [line.split()[1] for line in lines] == ["0", "1", "2"]
    assert all("lagging 0.0.4" in line for line in lines)
    assert "blocks 0-2 from 4 nodes" in result.stdout.splitlines()[-1]
    truth = json.loads((out / "ground-truth.json").read_text())
    assert [b["number"] for b in truth["blocks"]] == [0, 1, 2]
    assert truth["live"]["lagging_nodes"] == ["0.0.4"]
    assert len(list(out.glob("recordstreams/record0.0.*/*.rcd_sig"))) == 12
    book = parse_address_book((out / "address-book.bin").read_bytes())
    assert [r.error for r in verify_stream(find_local_periods(out), book)] == [None] * 3


def test_cli_needs_a_book_folder_for_a_bucket(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["generate", "s3://bucket/streams", "--live", "--periods", "1"])
    assert result.exit_code != 0
    assert "--book-dir" in str(result.exception)


def test_plays_into_a_directory(tmp_path: Path) -> None:
    settings = Settings.from_env()
    summary, order = _play_into(str(tmp_path / "bucket"), settings, tmp_path / "book")
    _check_landed(summary, order, open_source(str(tmp_path / "bucket"), settings), tmp_path / "copy")
    _verifies(tmp_path / "copy", tmp_path / "book")


def test_plays_into_moto_s3(s3_server: Any, s3_bucket: str, tmp_path: Path) -> None:
    settings = Settings.from_env(s3_endpoint_url=s3_server.endpoint_url)
    url = f"s3://{s3_bucket}/network"
    summary, order = _play_into(url, settings, tmp_path / "book")
    _check_landed(summary, order, open_source(url, settings), tmp_path / "copy")
    _verifies(tmp_path / "copy", tmp_path / "book")


def test_plays_into_the_gcs_emulator(gcs_bucket: Any, tmp_path: Path) -> None:
    settings = Settings.from_env(project=PROJECT)
    url = f"gs://{gcs_bucket.name}/network"
    summary, order = _play_into(url, settings, tmp_path / "book")
    _check_landed(summary, order, open_source(url, settings), tmp_path / "copy")
    _verifies(tmp_path / "copy", tmp_path / "book")


def test_ctrl_c_stops_the_cli_and_writes_the_truth(tmp_path: Path) -> None:
    out = tmp_path / "bucket"
    command = [sys.executable, "-m", "hedera_history.cli.main", "generate", str(out), "--live"]
    command += ["--period-seconds", "0.2", "--transactions", "8", "--lagging-node", "1", "--lag-seconds", "600"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        lines = []
        for line in process.stdout:  # ends only when the process does: a hang is the test's timeout
            lines.append(line)
            if line.startswith("block 1 "):
                process.send_signal(signal.SIGINT)
                break
        rest, errors = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, errors
    summary = rest.strip().splitlines()[-1]
    assert "(stopped)" in summary
    assert "written early on stop" in summary  # the lagging node's files, ten minutes early
    truth = json.loads((out / "ground-truth.json").read_text())
    played = truth["config"]["periods"]
    assert played >= 2
    assert len(list(out.glob("recordstreams/record0.0.4/*.rcd.gz"))) == played
