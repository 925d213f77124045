"""What a backfill run did: counts, failures with reasons, boundary checks, throughput.

``to_json()`` is the machine form (``--report FILE``, ``--json``); ``summary_lines()`` the readable one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from hedera_history.backfill.boundaries import BROKEN_CHAIN, BoundaryCheck
from hedera_history.backfill.partition_messages import PartitionCounts, PartitionSummary, PeriodFailure
from hedera_history.formats.names import format_timestamp

REPORT_FORMAT = 1
SHOWN_FAILURES = 20


@dataclass(frozen=True)
class BackfillReport:
    source: str
    start_ns: int
    end_ns: int
    first_block: int | None
    """As asked (None: not narrowed by block)."""
    last_block: int | None
    periods: int
    """Periods listed in the range (after narrowing to blocks)."""
    partitions: int
    waves: int
    reran: tuple[int, ...]
    """Partitions run more than once because an address-book change came to light before them."""
    counts: PartitionCounts
    blocks: tuple[int, int] | None
    """First and last block number verified or found complete."""
    failures: tuple[PeriodFailure, ...]
    failures_total: int
    block_problems: tuple[PeriodFailure, ...]
    boundaries: tuple[BoundaryCheck, ...]
    unverifiable_links: int
    seconds: float
    reprocess: bool = False
    task_seconds: float = 0.0
    """Sum of the tasks' own times (all waves): the work done, whatever the parallelism."""
    task_cpu_seconds: float = 0.0
    """Sum of the tasks' CPU times (all waves): what the work cost, however busy the machine was."""
    notes: tuple[str, ...] = field(default=())

    @property
    def boundary_problems(self) -> tuple[BoundaryCheck, ...]:
        return tuple(check for check in self.boundaries if not check.ok)

    @property
    def ok(self) -> bool:
        """Every period verified and was written (or was already), and every link checked out."""
        broken = any(check.status.value == "broken" for check in self.boundaries)
        return not (self.failures_total or self.block_problems or broken)

    @property
    def transactions_per_second(self) -> float:
        return self.counts.transactions / self.seconds if self.seconds > 0 else 0.0

    @property
    def bytes_per_second(self) -> float:
        return self.counts.bytes_read / self.seconds if self.seconds > 0 else 0.0

    @property
    def periods_per_second(self) -> float:
        done = self.counts.written + self.counts.skipped
        return done / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "format": REPORT_FORMAT,
            "ok": self.ok,
            "source": self.source,
            "range": {
                "start": format_timestamp(self.start_ns),
                "end": format_timestamp(self.end_ns),
                "start_ns": self.start_ns,
                "end_ns": self.end_ns,
                "first_block": self.first_block,
                "last_block": self.last_block,
            },
            "reprocess": self.reprocess,
            "periods": self.periods,
            "partitions": self.partitions,
            "waves": self.waves,
            "reran_partitions": list(self.reran),
            "blocks": None if self.blocks is None else {"first": self.blocks[0], "last": self.blocks[1]},
            "counts": asdict(self.counts),
            "failures_total": self.failures_total,
            "failures": [asdict(f) for f in self.failures],
            "block_problems": [asdict(f) for f in self.block_problems],
            "boundaries": {
                "checked": len(self.boundaries),
                "problems": [{**asdict(check), "status": check.status.value} for check in self.boundary_problems],
            },
            "unverifiable_links": self.unverifiable_links,
            "seconds": round(self.seconds, 3),
            "task_seconds": round(self.task_seconds, 3),
            "task_cpu_seconds": round(self.task_cpu_seconds, 3),
            "throughput": {
                "transactions_per_second": round(self.transactions_per_second, 1),
                "bytes_per_second": round(self.bytes_per_second, 1),
                "periods_per_second": round(self.periods_per_second, 2),
            },
            "notes": list(self.notes),
        }

    def summary_lines(self) -> list[str]:
        c = self.counts
        blocks = f"blocks {self.blocks[0]}-{self.blocks[1]}" if self.blocks else "no block"
        lines = [
            f"{self.periods} period(s) in {self.partitions} partition(s), {self.waves} wave(s): {blocks}",
            f"written {c.written}, already complete {c.skipped}, failed {c.failed}",
            f"{c.transactions:,} transaction(s), {c.sidecar_records:,} sidecar record(s), "
            f"{c.rows:,} row(s), {c.bytes_read / 1e6:,.1f} MB read",
            f"{self.seconds:.1f} s: {self.transactions_per_second:,.0f} transactions/s, "
            f"{self.bytes_per_second / 1e6:,.2f} MB/s",
            f"links between partitions and to the stored history: {len(self.boundaries)} checked, "
            f"{len(self.boundary_problems)} not ok",
        ]
        if c.forks:
            lines.append(f"FORK: {c.forks} period(s) where two file hashes each reach the threshold: held, not written")
        if self.reran:
            lines.append(f"re-ran partition(s) {number_ranges(self.reran)} after an address-book change")
        for failure in self.failures[:SHOWN_FAILURES]:
            lines.append(f"failed: {failure.period_key}: {failure.reason}")
        if self.failures_total > min(len(self.failures), SHOWN_FAILURES):
            lines.append(f"... and {self.failures_total - min(len(self.failures), SHOWN_FAILURES)} more failure(s)")
        for problem in self.block_problems[:SHOWN_FAILURES]:
            # A broken link is recorded in the chain-links table; its block was not written, unless
            # an earlier run had written it before the link could be seen (docs/backfill.md).
            what = "chain link broken" if problem.kind == BROKEN_CHAIN else "written with a problem"
            lines.append(f"{what}: {problem.period_key}: {problem.reason}")
        for check in self.boundary_problems:
            lines.append(f"link {check.status.value}: {check.previous} -> {check.current}: {check.reason}")
        lines.extend(self.notes)
        return lines


def combine(
    summaries: Sequence[PartitionSummary],
) -> tuple[PartitionCounts, tuple[PeriodFailure, ...], int, tuple[PeriodFailure, ...], int]:
    """Totals over the final summaries: counts, failures (shown), failures (total), block problems,
    unverifiable links inside partitions."""
    counts = PartitionCounts()
    failures: list[PeriodFailure] = []
    problems: list[PeriodFailure] = []
    total = unverifiable = 0
    for summary in sorted(summaries, key=lambda s: s.index):
        counts += summary.counts
        failures.extend(summary.failures)
        problems.extend(summary.block_problems)
        total += summary.failures_total
        unverifiable += summary.unverifiable_links
    return counts, tuple(failures), total, tuple(problems), unverifiable


def block_span(summaries: Sequence[PartitionSummary]) -> tuple[int, int] | None:
    firsts = [s.first.number for s in summaries if s.first is not None]
    lasts = [s.last.number for s in summaries if s.last is not None]
    return (min(firsts), max(lasts)) if firsts and lasts else None


def number_ranges(numbers: Sequence[int]) -> str:
    """``3, 5-9, 12``: the numbers in order, consecutive ones as a range."""
    parts: list[str] = []
    ordered = sorted(set(numbers))
    start = previous = ordered[0]
    for number in [*ordered[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if number is not None:
            start = previous = number
    return ", ".join(parts)
