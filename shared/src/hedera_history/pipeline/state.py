"""The ingest function's state in Bigtable: its rows and cells, how they read, chain links, quarantine.

Which progress cells are written when (a period's stages and the transitions between them) is
``pipeline.period_state``; this module reads them and writes what it is told to. Every write is
idempotent and monotone where it matters: a period is published once its ``published`` cell
exists, whatever pending marks other instances wrote before or after; the pending index
(``pending/<time>``) is what the sweep scans and is removed once published. State cells carry
wall-clock timestamps (they are not history and are never replayed). The rows and cells:
``pipeline.state_cells``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from typing import Protocol

from hedera_history.pipeline.recent_reads import RecentReads
from hedera_history.pipeline.state_cells import (
    ERRATA_PENDING,
    FILE_LINK,
    PENDING,
    PERIOD,
    Q_CLAIM,
    Q_COPY,
    Q_ERROR,
    Q_HASH,
    Q_LOCATION,
    Q_NODE,
    Q_PERIOD,
    Q_PREVIOUS,
    Q_REASON,
    RECHECK,
    UNCONFIRMED,
    Link,
    PendingPeriod,
    PeriodState,
    Unconfirmed,
    file_link_from_cell,
    period_state_from_row,
)
from hedera_history.store import schema as s
from hedera_history.store.chain_links import broken_link_row, read_broken_links
from hedera_history.store.gateway import CellSwap, ConditionalGateway, KeyRange, RowQuery, write_or_raise
from hedera_history.store.keys import decode_hex16, hex16, prefix_end
from hedera_history.store.model import Cell, Row

_FIRST_LOOKBACK_NS = 3600 * 10**9


PeriodAndClaim = tuple[PeriodState | None, bytes | None]


class StateGateway(ConditionalGateway, Protocol):
    def delete_rows(self, table: str, keys: Sequence[bytes]) -> None: ...


def now_micros() -> int:
    """Wall-clock cell time (Bigtable keeps microseconds at millisecond granularity)."""
    return time.time_ns() // 1_000_000 * 1000


class IngestState:
    def __init__(self, gateway: StateGateway) -> None:
        self._gateway = gateway
        self._recent: RecentReads[PeriodAndClaim] = RecentReads()
        self._deleted: RecentReads[bool] = RecentReads()
        """Rows this instance deleted lately (``delete_unless_deleted``)."""

    # ---- periods ---------------------------------------------------------------------------------

    def period(self, consensus_ns: int) -> PeriodState | None:
        return self.period_and_claim(consensus_ns)[0]

    def period_and_claim(self, consensus_ns: int, *, max_age: float = 0.0) -> PeriodAndClaim:
        """The period's row and its ``claim`` cell (None: never claimed), in one read: the claim
        lives in the period's row. With ``max_age``, a read another thread of this instance began
        at most that many seconds ago answers instead (``pipeline.recent_reads``)."""
        key = PERIOD + hex16(consensus_ns)

        def read() -> PeriodAndClaim:
            for row in self._gateway.read_rows(s.INGEST_PROGRESS, RowQuery(keys=(key,))):
                cell = row.cell(s.INGEST_PROGRESS_FAMILY, Q_CLAIM)
                return period_state_from_row(consensus_ns, row), None if cell is None else cell.value
            return None, None

        return self._recent.read_through(key, max_age, read)

    def published_before(self, consensus_ns: int, *, scan: int = 50) -> PeriodState | None:
        """The newest published period before ``consensus_ns`` among the ``scan`` newest periods
        seen before it (for pre-V6 files, whose block number follows the previous block's).

        However far back they lie: a network that was down leaves hours between two files, so the
        search reaches back an hour, then twice as far each time, until it finds periods.
        """
        if not self.any_period_before(consensus_ns):
            return None
        end, window = consensus_ns, _FIRST_LOOKBACK_NS
        while end > 0:
            start = max(0, end - window)
            query = RowQuery(ranges=(KeyRange(PERIOD + hex16(start), PERIOD + hex16(end)),))
            rows = list(self._gateway.read_rows(s.INGEST_PROGRESS, query))
            if rows:
                for row in reversed(rows[-scan:]):
                    state = period_state_from_row(decode_hex16(row.key[len(PERIOD) :]), row)
                    if state.published is not None:
                        return state
                return None
            end, window = start, window * 2
        return None

    def any_period_before(self, consensus_ns: int) -> bool:
        query = RowQuery(ranges=(KeyRange(PERIOD, PERIOD + hex16(consensus_ns)),), key_only=True, limit=1)
        return any(True for _ in self._gateway.read_rows(s.INGEST_PROGRESS, query))

    def claim_cell(self, key: bytes) -> bytes | None:
        """The ``claim`` cell of an ``ingest_progress`` row (None: never claimed)."""
        query = RowQuery(keys=(key,), families=(s.INGEST_PROGRESS_FAMILY,), qualifier_regex=re.escape(Q_CLAIM))
        for row in self._gateway.read_rows(s.INGEST_PROGRESS, query):
            cell = row.cell(s.INGEST_PROGRESS_FAMILY, Q_CLAIM)
            return None if cell is None else cell.value
        return None

    def set_claim(self, key: bytes, expected: bytes | None, value: bytes) -> bool:
        """Compare and set the ``claim`` cell of an ``ingest_progress`` row."""
        self._recent.forget(key)
        return self._gateway.check_and_set(
            s.INGEST_PROGRESS, key, CellSwap(s.INGEST_PROGRESS_FAMILY, Q_CLAIM, expected=expected, value=value)
        )

    def is_pending(self, consensus_ns: int) -> bool:
        query = RowQuery(keys=(PENDING + hex16(consensus_ns),), key_only=True)
        return any(True for _ in self._gateway.read_rows(s.INGEST_PROGRESS, query))

    def pending(self, limit: int, *, after: int | None = None) -> list[PendingPeriod]:
        """Pending periods, oldest first (with ``after``, those starting after that time only)."""
        start = PENDING if after is None else PENDING + hex16(after + 1)
        query = RowQuery(ranges=(KeyRange(start, prefix_end(PENDING)),), limit=limit)
        found: list[PendingPeriod] = []
        for row in self._gateway.read_rows(s.INGEST_PROGRESS, query):
            cell = row.cell(s.INGEST_PROGRESS_FAMILY, Q_PERIOD)
            if cell is not None:
                found.append(PendingPeriod(decode_hex16(row.key[len(PENDING) :]), cell.value.decode()))
        return found

    def unconfirmed(self, limit: int) -> list[Unconfirmed]:
        """Periods whose block is not known complete yet, oldest period first."""
        query = RowQuery(ranges=(KeyRange(UNCONFIRMED, prefix_end(UNCONFIRMED)),), limit=limit)
        found: list[Unconfirmed] = []
        for row in self._gateway.read_rows(s.INGEST_PROGRESS, query):
            cell = row.cell(s.INGEST_PROGRESS_FAMILY, Q_PERIOD)
            if cell is not None:
                consensus_ns = decode_hex16(row.key[len(UNCONFIRMED) :])
                found.append(Unconfirmed.from_json(consensus_ns, cell.value, cell.timestamp_micros))
        return found

    def rechecks(self, limit: int) -> list[tuple[int, str, int]]:
        """(consensus ns, period key, block number) of periods whose signatures await a recheck."""
        query = RowQuery(ranges=(KeyRange(RECHECK, prefix_end(RECHECK)),), limit=limit)
        found: list[tuple[int, str, int]] = []
        for row in self._gateway.read_rows(s.INGEST_PROGRESS, query):
            cell = row.cell(s.INGEST_PROGRESS_FAMILY, Q_PERIOD)
            if cell is not None:
                data = json.loads(cell.value)
                found.append((decode_hex16(row.key[len(RECHECK) :]), str(data["period"]), int(data["block"])))
        return found

    def errata_pending(self, limit: int) -> list[tuple[int, str]]:
        """(consensus ns, errata file path) of errata waiting for more node stake or their block."""
        query = RowQuery(ranges=(KeyRange(ERRATA_PENDING, prefix_end(ERRATA_PENDING)),), limit=limit)
        found: list[tuple[int, str]] = []
        for row in self._gateway.read_rows(s.INGEST_PROGRESS, query):
            cell = row.cell(s.INGEST_PROGRESS_FAMILY, Q_LOCATION)
            if cell is not None:
                found.append((decode_hex16(row.key[len(ERRATA_PENDING) :]), cell.value.decode()))
        return found

    # ---- chain links -----------------------------------------------------------------------------

    def record_link(self, block_number: int, block_hash: bytes, previous_hash: bytes, period_key: str) -> None:
        value = f"{previous_hash.hex()} {period_key}".encode()
        cell = Cell(s.CHAIN_LINKS_FAMILY, FILE_LINK + block_hash.hex().encode(), value, 0)
        self._mutate(s.CHAIN_LINKS, [Row(s.CHAIN_LINKS, hex16(block_number), (cell,))])

    def links(self, numbers: Sequence[int]) -> dict[int, list[Link]]:
        """Block number -> the record files known with that number (usually one), by period."""
        keys = tuple(hex16(n) for n in numbers if n >= 0)
        found: dict[int, list[Link]] = {}
        for row in self._gateway.read_rows(s.CHAIN_LINKS, RowQuery(keys=keys)):
            files = [file_link_from_cell(cell) for cell in row.cells if cell.qualifier.startswith(FILE_LINK)]
            own = row.cell(s.CHAIN_LINKS_FAMILY, Q_HASH)
            previous = row.cell(s.CHAIN_LINKS_FAMILY, Q_PREVIOUS)
            if own is not None and previous is not None and all(f.hash != own.value for f in files):
                period = row.cell(s.CHAIN_LINKS_FAMILY, Q_PERIOD)
                files.append(Link(own.value, previous.value, period.value.decode() if period else ""))
            if files:
                found[decode_hex16(row.key)] = sorted(files, key=lambda f: f.period_key)
        return found

    def any_period_between(self, after_ns: int, before_ns: int) -> bool:
        """Whether any period strictly between the two times has been seen (published or not)."""
        if before_ns - after_ns < 2:
            return False
        start, end = PERIOD + hex16(after_ns + 1), PERIOD + hex16(before_ns)
        query = RowQuery(ranges=(KeyRange(start, end),), key_only=True, limit=1)
        return any(True for _ in self._gateway.read_rows(s.INGEST_PROGRESS, query))

    def record_broken_link(self, block_number: int, reason: str) -> None:
        self._mutate(s.CHAIN_LINKS, [broken_link_row(block_number, reason)])

    def broken_links(self, limit: int = 1000) -> dict[int, str]:
        return read_broken_links(self._gateway, limit)

    # ---- quarantine ------------------------------------------------------------------------------

    def quarantine(self, consensus_ns: int, path: str, *, reason: str, error: str, node: str, copy: str) -> None:
        cells = (
            (Q_REASON, reason.encode()[:4000]),
            (Q_ERROR, error.encode()),
            (Q_NODE, node.encode()),
            (Q_COPY, copy.encode()),
        )
        self._mutate(
            s.QUARANTINE,
            [
                Row(
                    s.QUARANTINE,
                    hex16(consensus_ns) + b"/" + path.encode(),
                    tuple(Cell(s.QUARANTINE_FAMILY, q, v, now_micros()) for q, v in cells),
                )
            ],
        )

    def quarantined(self, limit: int = 1000) -> list[tuple[str, str]]:
        """(path, reason) of quarantined files, oldest period first."""
        query = RowQuery(ranges=(KeyRange(b"", None),), limit=limit)
        found: list[tuple[str, str]] = []
        for row in self._gateway.read_rows(s.QUARANTINE, query):
            reason = row.cell(s.QUARANTINE_FAMILY, Q_REASON)
            found.append((row.key[17:].decode(), reason.value.decode() if reason else ""))
        return found

    # ---- raw writes (what each means: ``pipeline.period_state``) ---------------------------------

    def put(self, key: bytes, cells: Sequence[tuple[bytes, bytes]], stamp: int) -> None:
        """Write cells of one ``ingest_progress`` row."""
        row = Row(s.INGEST_PROGRESS, key, tuple(Cell(s.INGEST_PROGRESS_FAMILY, q, v, stamp) for q, v in cells))
        self._recent.forget(key)
        self._deleted.forget(key)
        self._mutate(s.INGEST_PROGRESS, [row])

    def delete(self, *keys: bytes) -> None:
        """Delete whole ``ingest_progress`` rows."""
        self._recent.forget(*keys)
        self._gateway.delete_rows(s.INGEST_PROGRESS, list(keys))

    def delete_unless_deleted(self, key: bytes, within: float) -> None:
        """Delete an ``ingest_progress`` row unless a thread of this instance deleted it less than
        ``within`` seconds ago and has not written it since."""
        if self._deleted.get(key, within):
            return
        deleted_at = time.monotonic()
        self.delete(key)
        self._deleted.remember(key, True, deleted_at)

    def _mutate(self, table: str, rows: Sequence[Row]) -> None:
        write_or_raise(self._gateway, table, rows, f"{table} state")
