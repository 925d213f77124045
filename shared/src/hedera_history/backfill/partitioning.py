"""Planning a backfill on the driver: refuse what retention would collect, narrow a time range to
a block range, cut the periods into contiguous partitions, and pick each one's starting book.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime

from hedera_history.backfill.partition_messages import PartitionPlan, PartitionRun
from hedera_history.backfill.resume_rows import BookCheckpoint
from hedera_history.books.codec import BookState
from hedera_history.config import Settings
from hedera_history.errors import ConfigError, RetentionWindowError
from hedera_history.sources.period_listing import ListedPeriod
from hedera_history.store.chaintime import NS_PER_DAY


def refuse_outside_retention(first_ns: int, settings: Settings, now_ns: int) -> None:
    """RetentionWindowError when the range starts before the chain-time retention window.

    Cells carry their block's consensus time, so rows older than the window would be collected as
    soon as they are written: the whole run is refused up front rather than block by block.
    """
    days = settings.retention_days
    if days <= 0:
        return
    window_start = now_ns - days * NS_PER_DAY
    if first_ns < window_start:
        raise RetentionWindowError(
            f"the backfill range starts at {_iso(first_ns)}, before the {days}-day retention window "
            f"(chain time after {_iso(window_start)}): its rows would be garbage-collected as soon as "
            "they are written. Start the range inside the window, or raise HEDERA_HISTORY_RETENTION_DAYS "
            "(0 keeps everything)."
        )


MIN_PERIODS_PER_PARTITION = 10
"""Fewest periods the default partitioning puts in a partition to fill more cores: each task pays
a fixed cost (its Python worker's imports, a Bigtable client, its progress rows, a boundary check
on the driver), small against ten periods of work."""


def partition_periods(
    periods: Sequence[ListedPeriod],
    *,
    partitions: int | None = None,
    periods_per_partition: int = 500,
    start_block: int = 0,
    parallelism: int = 1,
) -> list[PartitionPlan]:
    """Contiguous partitions of near-equal size, in time order.

    ``partitions`` None: at most ``periods_per_partition`` periods each, and at least as many
    partitions as ``parallelism`` (the cores that run tasks at once), rounded up to a whole number
    of rounds over those cores, as long as each keeps :data:`MIN_PERIODS_PER_PARTITION` periods.
    ``start_block`` is the first period's block number for files before V6; each partition's is
    that plus the number of periods before it (a period that fails still takes its number).
    """
    if not periods:
        return []
    if partitions is not None and partitions < 1:
        raise ConfigError(f"partitions must be at least 1, got {partitions}")
    if periods_per_partition < 1:
        raise ConfigError(f"periods per partition must be at least 1, got {periods_per_partition}")
    if parallelism < 1:
        raise ConfigError(f"parallelism must be at least 1, got {parallelism}")
    count = (
        partitions
        if partitions is not None
        else default_partition_count(len(periods), periods_per_partition, parallelism)
    )
    count = min(count, len(periods))
    plans: list[PartitionPlan] = []
    for index in range(count):
        start, end = index * len(periods) // count, (index + 1) * len(periods) // count
        plans.append(PartitionPlan(index, tuple(periods[start:end]), start_block + start))
    return plans


def default_partition_count(periods: int, periods_per_partition: int, parallelism: int) -> int:
    """How many partitions ``periods`` periods get when the job names no number (see
    :func:`partition_periods`)."""
    count = math.ceil(periods / periods_per_partition)
    whole_rounds = math.ceil(count / parallelism) * parallelism
    return max(1, count, min(whole_rounds, periods // MIN_PERIODS_PER_PARTITION))


def assumed_starts(
    plans: Sequence[PartitionPlan], bootstrap: BookState, checkpoints: Mapping[int, BookCheckpoint]
) -> list[PartitionRun]:
    """Each partition with the state of the latest checkpoint before it (a previous run's), else
    the bootstrap book: a guess the driver confirms once the partitions before it have run."""
    times = sorted(checkpoints)
    runs: list[PartitionRun] = []
    for position, plan in enumerate(plans):
        before = bisect.bisect_left(times, plan.first_ns)
        state = checkpoints[times[before - 1]].state if before else bootstrap
        runs.append(PartitionRun(plan, state, confirmed=position == 0 and not before))
    return runs


def narrow_to_blocks(
    periods: Sequence[ListedPeriod],
    first_block: int | None,
    last_block: int | None,
    block_number_of: Callable[[int], int],
) -> tuple[Sequence[ListedPeriod], int]:
    """The periods whose blocks are in ``[first_block, last_block]`` and the index of the first.

    Block numbers grow with time, so two binary searches find the ends, reading
    ``block_number_of(index)`` about 2 log2(n) times (one record copy each, unverified: it only
    chooses periods; every chosen one is verified as usual).
    """
    cache: dict[int, int] = {}

    def number(index: int) -> int:
        if index not in cache:
            cache[index] = block_number_of(index)
        return cache[index]

    start = _first_index(len(periods), lambda i: number(i) >= first_block) if first_block is not None else 0
    end = _first_index(len(periods), lambda i: number(i) > last_block) if last_block is not None else len(periods)
    return periods[start:end], start


def _first_index(size: int, reached: Callable[[int], bool]) -> int:
    low, high = 0, size
    while low < high:
        middle = (low + high) // 2
        if reached(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _iso(ns: int) -> str:
    return datetime.fromtimestamp(ns // 1_000_000_000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
