"""The cyclic garbage collector's settings where row building runs: a backfill task, a function
instance.

Row building makes about 16 tracked objects (cells, rows, tuples) per transaction, and the writer
holds up to a group's worth of them at once. With the interpreter's default thresholds (a young
collection every 700 allocations, an old one every 100 young ones) the collector walked the
worker's whole heap (its imports: protobuf, gRPC, the Google clients, PySpark) over and over, and
took about 40 % of a task's CPU (``bench/backfill_bench.py``, docs/backfill.md). During a task the
objects that were there before it are frozen (never walked; they were live at its start) and a
young collection runs every ``YOUNG_THRESHOLD`` allocations. Nothing is disabled: the task's own
reference cycles are still found, only less often; both settings are put back afterwards.

A function instance (ingest, store, follow) is one long-lived process whose calls build rows on
several threads at once, so it cannot put settings back per call: once its context is built
(``pipeline.runtime.Cached``) it settles for good (``settle_after_start``). In one process, a
mainnet-shaped period of 10,000 transactions: ingest's call 0.30-0.33 -> 0.19 s of CPU, the store
calls that build the item ranges' rows 0.64-0.68 -> 0.27-0.30 s (``bench.period_profile``, the
same process before and after the settings).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from threading import Lock

YOUNG_THRESHOLD = 50_000
"""Allocations of tracked objects between two young collections (the interpreter's default: 700);
a few megabytes of cyclic garbage at most before it is found."""


_settled = False
_settling = Lock()


@contextmanager
def task_collector() -> Iterator[None]:
    """Freeze the objects alive now and collect the young generation less often, until the end.

    Then the settings it found come back; a process settled for good (``settle_after_start``,
    before or during the task) keeps its own, and a heap frozen before stays frozen: the collector
    can only thaw every frozen object at once."""
    thresholds = gc.get_threshold()
    was_frozen = gc.get_freeze_count() > 0
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *thresholds[1:])
    try:
        yield
    finally:
        with _settling:
            settled = _settled
            if not settled:
                gc.set_threshold(*thresholds)
            if not (settled or was_frozen):
                gc.unfreeze()


def settle_after_start() -> None:
    """For a long-lived process once its clients and context are built: collect what start-up left
    over, freeze what is alive (never walked again) and collect the young generation every
    ``YOUNG_THRESHOLD`` allocations from then on. Only the first call does anything."""
    global _settled  # noqa: PLW0603 (one switch per process, as the collector's settings are)
    with _settling:
        if _settled:
            return
        gc.collect()
        gc.freeze()
        gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])
        _settled = True
