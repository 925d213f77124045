"""The cyclic garbage collector's settings while a backfill task runs.

Row building makes about 16 tracked objects (cells, rows, tuples) per transaction, and the writer
holds up to a group's worth of them at once. With the interpreter's default thresholds (a young
collection every 700 allocations, an old one every 100 young ones) the collector walked the
worker's whole heap (its imports: protobuf, gRPC, the Google clients, PySpark) over and over, and
took about 40 % of a task's CPU (``bench/backfill_bench.py``, docs/backfill.md). During a task the
objects that were there before it are frozen (never walked; they were live at its start) and a
young collection runs every ``YOUNG_THRESHOLD`` allocations. Nothing is disabled: the task's own
reference cycles are still found, only less often; both settings are put back afterwards.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 50_000
"""Allocations of tracked objects between two young collections (the interpreter's default: 700);
a few megabytes of cyclic garbage at most before it is found."""


@contextmanager
def task_collector() -> Iterator[None]:
    """Freeze the objects alive now and collect the young generation less often, until the end."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
