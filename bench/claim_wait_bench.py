"""Reads of the ingest state table by the runs that wait while another run verifies their period.

The uploads of one period (every node's signature, record and sidecar files) arrive together and
each starts an ingest run; one run takes the period's claim and verifies it, the others wait for
its result. ``--runs`` runs of one instance (threads) wait ``--hold`` seconds for a claim another
run holds, then find the period published. Printed: the reads of the ``ingest_progress`` table
they made, with the instance's waiting policy (one read a look, pauses of 50, 100 then 200 ms,
looks shared by the instance's threads for 25 ms) and, in the same run, with every look reading
the row every 50 ms. The state table is an in-memory one that counts its reads: the figures
are counts, not times.
"""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any, cast

from hedera_history.formats.stream_paths import BucketLayout, parse_object_path
from hedera_history.pipeline import period_state
from hedera_history.pipeline.ingest import IngestContext
from hedera_history.pipeline.ingest_record import ingest_period
from hedera_history.pipeline.period_state import PeriodProgress, Stage
from hedera_history.pipeline.state import IngestState, StateGateway
from hedera_history.pipeline.state_cells import PERIOD, Q_LOCATION, Q_PUBLISHED, Published, location_to_json
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store import schema as s
from hedera_history.store.gateway import CellSwap, MutationFailure, RowQuery, StoredCell, StoredRow
from hedera_history.store.keys import hex16
from hedera_history.store.model import Cell, Row

from bench.machine import reports_machine

PERIOD_KEY = "2024-01-01T00_00_02.000000000Z"
LOCATION = StreamLocation(BucketLayout.ACCOUNT)
PUBLISHED = Published(7, b"\x01" * 48, b"\x02" * 48, b"\x03" * 48, 1_704_067_202_000_000_000)
SIDECAR = parse_object_path(f"recordstreams/record0.0.3/sidecar/{PERIOD_KEY}_01.rcd.gz")


class CountingState:
    """Rows read by key, cells compared and set, rows written and deleted; reads counted."""

    def __init__(self) -> None:
        self.rows: dict[bytes, dict[bytes, bytes]] = {}
        self.reads = 0
        self._lock = threading.Lock()

    def read_rows(self, table: str, query: RowQuery) -> Iterator[StoredRow]:
        with self._lock:
            self.reads += 1
            found = [(key, dict(self.rows[key])) for key in query.keys if key in self.rows]
        for key, cells in found:
            yield StoredRow(key, tuple(StoredCell(s.INGEST_PROGRESS_FAMILY, q, v, 0) for q, v in cells.items()))

    def check_and_set(self, table: str, key: bytes, swap: CellSwap) -> bool:
        with self._lock:
            cells = self.rows.setdefault(key, {})
            if cells.get(swap.qualifier) != swap.expected:
                return False
            cells[swap.qualifier] = swap.value
            return True

    def mutate_rows(self, table: str, rows: Sequence[Row]) -> list[MutationFailure]:
        with self._lock:
            for row in rows:
                self.rows.setdefault(row.key, {}).update({c.qualifier: c.value for c in row.cells})
        return []

    def delete_rows(self, table: str, keys: Sequence[bytes]) -> None:
        with self._lock:
            for key in keys:
                self.rows.pop(key, None)


class _Context:
    def __init__(self, state: IngestState) -> None:
        self.state = state


def waiting_reads(runs: int, hold_seconds: float) -> int:
    """Reads of the state table by ``runs`` threads waiting ``hold_seconds`` for another run's claim."""
    gateway = CountingState()
    state = IngestState(cast(StateGateway, gateway))
    assert PeriodProgress.of(state, PERIOD_KEY, LOCATION, Stage.NEW).claim()
    gateway.reads = 0
    ctx = cast(IngestContext, _Context(state))
    threads = [
        threading.Thread(target=ingest_period, args=(ctx, PERIOD_KEY, LOCATION), kwargs={"trigger": SIDECAR})
        for _ in range(runs)
    ]
    for thread in threads:
        thread.start()
    time.sleep(hold_seconds)
    cells = [(Q_LOCATION, location_to_json(LOCATION)), (Q_PUBLISHED, PUBLISHED.to_json())]
    gateway.mutate_rows(s.INGEST_PROGRESS, [_row(PERIOD + hex16(PUBLISHED.block_time_ns), cells)])
    for thread in threads:
        thread.join()
    return gateway.reads


def _row(key: bytes, cells: list[tuple[bytes, bytes]]) -> Row:
    return Row(s.INGEST_PROGRESS, key, tuple(Cell(s.INGEST_PROGRESS_FAMILY, q, v, 0) for q, v in cells))


def every_look_reads(**overrides: Any) -> dict[str, Any]:
    """The waiting policy's settings, each look reading the row every 50 ms."""
    return {"SHARED_LOOK_SECONDS": 0.0, "CLAIM_POLL_MAX_SECONDS": period_state.CLAIM_POLL_SECONDS, **overrides}


@reports_machine
def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--hold", type=float, default=1.0)
    options = parser.parse_args(argv)
    policy = waiting_reads(options.runs, options.hold)
    saved = {name: getattr(period_state, name) for name in every_look_reads()}
    try:
        for name, value in every_look_reads().items():
            setattr(period_state, name, value)
        plain = waiting_reads(options.runs, options.hold)
    finally:
        for name, value in saved.items():
            setattr(period_state, name, value)
    print(f"{options.runs} runs of one instance waiting {options.hold:.1f} s for another run's claim:")
    print(f"  reads of the state table, waiting policy:           {policy}")
    print(f"  reads of the state table, every look reads @ 50 ms: {plain}")


if __name__ == "__main__":
    main()
