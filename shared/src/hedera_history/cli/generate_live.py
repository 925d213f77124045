"""``hedera-history generate OUT --live``: a generated network played in real time into OUT.

One line per period on stdout as its on-time files land, a summary at the end. The first Ctrl-C
stops the network (the periods already generated are written at once, the truth follows); a
second one stops without writing them.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import click

from hedera_history.config import Settings
from hedera_history.gen.config_and_output import NS_PER_SECOND
from hedera_history.gen.live import LiveConfig, LivePlayer, LiveSummary, PeriodWritten
from hedera_history.gen.writer import GROUND_TRUTH_FILE
from hedera_history.interrupts import stop_on_signals
from hedera_history.sources.base import open_sink


def play(config: LiveConfig, out: str, book_dir: Path, settings: Settings) -> LiveSummary:
    sink = open_sink(out, settings)
    click.echo(
        f"playing {config.nodes} nodes into {sink.url}: a period every {config.period_seconds:g} s, "
        f"{config.periods if config.periods is not None else 'until stopped (Ctrl-C)'} periods; "
        f"book and keys in {book_dir}"
    )
    player = LivePlayer(config, sink, book_dir=book_dir, on_period=_print_period)
    started = time.monotonic()
    with stop_on_signals(player.stop):
        summary = player.run()
    _print_summary(out, config, summary, book_dir, time.monotonic() - started)
    return summary


def _print_period(line: PeriodWritten) -> None:
    written = datetime.fromtimestamp(line.last_written_ns / NS_PER_SECOND, UTC)
    behind = (line.last_written_ns - line.consensus_start_ns) / NS_PER_SECOND
    if line.kind != "record":
        click.echo(
            f"block {line.block_number} {line.period_key}: {line.kind} block ({line.proof}), "
            f"written {written:%H:%M:%S.%f}"[:-3]
            + f" ({behind:.2f} s after its first transaction)"
        )
        return
    notes = [
        f"late {','.join(line.late)}" if line.late else "",
        f"missing {','.join(line.missing)}" if line.missing else "",
    ]
    notes.append(f"lagging {','.join(line.lagging)}" if line.lagging else "")
    extra = "; ".join(n for n in notes if n)
    click.echo(
        f"block {line.block_number} {line.period_key}: {line.files} files, {line.signatures} signatures, "
        f"written {written:%H:%M:%S.%f}"[:-3]
        + f" ({behind:.2f} s after its first transaction)"
        + (f" [{extra}]" if extra else "")
    )


def _print_summary(out: str, config: LiveConfig, summary: LiveSummary, book_dir: Path, seconds: float) -> None:
    blocks = f"blocks {summary.first_block}-{summary.last_block}" if summary.periods else "no block"
    stopped = " (stopped)" if summary.stopped else ""
    flushed = f", {summary.flushed} written early on stop" if summary.flushed else ""
    unwritten = f", {summary.unwritten} never written" if summary.unwritten else ""
    truth = f"; truth in {book_dir / GROUND_TRUTH_FILE}" if summary.stream is not None else ""
    click.echo(
        f"{out}: {blocks} from {config.nodes} nodes{stopped} in {seconds:.1f} s, {summary.files_written} files"
        f"{flushed}{unwritten}, {summary.missing_signatures} missing and {summary.late_signatures} late "
        f"signature files{truth}"
    )
