"""Timing helpers the benchmarks share: one call timed, percentiles, and paired samples."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

Call = Callable[[], object]
Clock = Callable[[], float]


def timed(action: Call, clock: Clock = time.perf_counter) -> float:
    """Seconds ``action`` took on ``clock``: wall time, or ``time.thread_time`` for CPU-bound work
    that a busy machine should not charge to it."""
    start = clock()
    action()
    return clock() - start


def median_cpu(action: Call, samples: int, *, warm: bool = True) -> float:
    """The median thread CPU seconds of ``samples`` runs of ``action``, after one run that warms
    imports, caches and the protobuf pools (``warm``)."""
    if warm:
        action()
    return statistics.median(timed(action, time.thread_time) for _ in range(samples))


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def p50_p99(samples: list[float]) -> tuple[float, float]:
    return statistics.median(samples), percentile(samples, 0.99)


def paired_samples(
    make: Callable[[], tuple[Call, Call]], count: int, rng: random.Random, clock: Clock = time.perf_counter
) -> tuple[list[float], list[float]]:
    """``count`` timings of each side of ``make()``'s pair. Who goes first alternates at random:
    the emulator shares the machine's cores with everything else, so order would bias the ratio."""
    ours: list[float] = []
    baseline: list[float] = []
    for _ in range(count):
        our_call, baseline_call = make()
        if rng.random() < 0.5:
            ours.append(timed(our_call, clock))
            baseline.append(timed(baseline_call, clock))
        else:
            baseline.append(timed(baseline_call, clock))
            ours.append(timed(our_call, clock))
    return ours, baseline
