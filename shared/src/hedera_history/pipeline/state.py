"""The ingest function's state in Bigtable: period progress, pending periods, chain links, quarantine.

Every write is idempotent and monotone where it matters: a period is published once its
``published`` cell exists, whatever pending marks other instances wrote before or after; the
pending index (``pending/<time>``) is what the sweep scans and is removed once published.
State cells carry wall-clock timestamps (they are not history and are never replayed).

Row keys (all in the ``ingest_progress`` table unless said otherwise):

- ``period/<hex16 consensus ns>``: ``location`` (where the files are), ``last_attempt``,
  ``reason`` (why it is pending), and once published ``published`` (JSON: block
  number, file hash, running hashes, block time);
- ``pending/<hex16 consensus ns>``: ``period`` (the period key), present while pending;
- ``unconfirmed/<hex16 consensus ns>``: ``period`` (JSON: period key, location, republish count),
  written when a run starts verifying the period and again before it publishes, removed by the
  sweep's reconciler (``pipeline.reconcile``) once the block's batch is complete; its cell time is
  when it was last (re)published;
- the ``claim`` cell of ``period/<hex16 consensus ns>``: ``<owner> <expiry ms>`` while one run
  verifies the period (empty once released), so that runs triggered by the other uploads of the
  period wait for its result instead of verifying and publishing the same block again;
- ``chain_links`` table, ``<hex16 block number>``: one ``file/<hash hex>`` cell per record file
  with that number (``<previous hash hex> <period key>``: two files share a number where the
  network gave one twice, as mainnet's block 44029066); rows written before that hold ``hash``,
  ``previous``, ``period`` instead, and are still read; and ``broken/<hex16 block number>``:
  ``reason``;
- ``quarantine`` table, ``<hex16 consensus ns>/<path>``: ``reason``, ``error``, ``node``, ``copy``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from hedera_history.errors import RowDecodeError
from hedera_history.formats.layout import BucketLayout
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store import schema as s
from hedera_history.store.chain_links import broken_link_row, read_broken_links
from hedera_history.store.gateway import ConditionalGateway, KeyRange, RowQuery, StoredCell, StoredRow, write_or_raise
from hedera_history.store.keys import decode_hex16, hex16, prefix_end
from hedera_history.store.model import Cell, Row

PERIOD = b"period/"
PENDING = b"pending/"
RECHECK = b"recheck/"
ERRATA_PENDING = b"errata-pending/"
ERRATA_CLAIM = b"errata-claim/"
UNCONFIRMED = b"unconfirmed/"

Q_LOCATION = b"location"
Q_LAST_ATTEMPT = b"last_attempt"
Q_REASON = b"reason"
Q_PUBLISHED = b"published"
Q_PERIOD = b"period"
Q_HASH = b"hash"
Q_PREVIOUS = b"previous"
Q_ERROR = b"error"
Q_NODE = b"node"
Q_COPY = b"copy"
Q_CLAIM = b"claim"
FILE_LINK = b"file/"
_FIRST_LOOKBACK_NS = 3600 * 10**9


@dataclass(frozen=True, slots=True)
class Link:
    """One record file's place in the chain: what it ends with and what it names before it."""

    hash: bytes
    previous: bytes
    period_key: str


class StateGateway(ConditionalGateway, Protocol):
    def delete_rows(self, table: str, keys: Sequence[bytes]) -> None: ...


def now_micros() -> int:
    """Wall-clock cell time (Bigtable keeps microseconds at millisecond granularity)."""
    return time.time_ns() // 1_000_000 * 1000


@dataclass(frozen=True, slots=True)
class Published:
    block_number: int
    file_hash: bytes
    hash: bytes
    previous_hash: bytes
    block_time_ns: int
    """The consensus time the block's cells are stamped with (a late signature cell needs it)."""

    def to_json(self) -> bytes:
        return json.dumps(
            {
                "block": self.block_number,
                "block_time_ns": self.block_time_ns,
                "file_hash": self.file_hash.hex(),
                "hash": self.hash.hex(),
                "previous_hash": self.previous_hash.hex(),
            },
            sort_keys=True,
        ).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> Published:
        try:
            data = json.loads(raw)
            return cls(
                int(data["block"]),
                bytes.fromhex(data["file_hash"]),
                bytes.fromhex(data["hash"]),
                bytes.fromhex(data["previous_hash"]),
                int(data["block_time_ns"]),
            )
        except (ValueError, KeyError, TypeError) as e:
            raise RowDecodeError(f"ingest progress: unreadable published cell: {e}") from e


@dataclass(frozen=True, slots=True)
class PeriodState:
    consensus_ns: int
    location: StreamLocation | None
    last_attempt_micros: int | None
    reason: str
    published: Published | None


@dataclass(frozen=True, slots=True)
class Unconfirmed:
    """A period that may be published but whose block the store has not been seen to complete."""

    consensus_ns: int
    period_key: str
    location: StreamLocation
    republished: int
    """How often the reconciler republished it so far."""
    since_micros: int
    """When it was last (re)published (the cell's time)."""

    def to_json(self) -> bytes:
        return json.dumps(
            {
                "period": self.period_key,
                "location": json.loads(location_to_json(self.location)),
                "republished": self.republished,
            },
            sort_keys=True,
        ).encode()

    @classmethod
    def from_json(cls, consensus_ns: int, raw: bytes, since_micros: int) -> Unconfirmed:
        try:
            data = json.loads(raw)
            location = location_from_json(json.dumps(data["location"]).encode())
            return cls(consensus_ns, str(data["period"]), location, int(data["republished"]), since_micros)
        except (ValueError, KeyError, TypeError) as e:
            raise RowDecodeError(f"ingest progress: unreadable unconfirmed cell: {e}") from e


@dataclass(frozen=True, slots=True)
class PendingPeriod:
    consensus_ns: int
    period_key: str


def location_to_json(location: StreamLocation) -> bytes:
    return json.dumps(
        {
            "layout": location.layout.value,
            "prefix": location.prefix,
            "network": location.network,
            "shard": location.shard,
        },
        sort_keys=True,
    ).encode()


def location_from_json(raw: bytes) -> StreamLocation:
    try:
        data = json.loads(raw)
        return StreamLocation(BucketLayout(data["layout"]), data["prefix"], data["network"], int(data["shard"]))
    except (ValueError, KeyError, TypeError) as e:
        raise RowDecodeError(f"ingest progress: unreadable location cell: {e}") from e


class IngestState:
    def __init__(self, gateway: StateGateway) -> None:
        self._gateway = gateway

    # ---- periods ---------------------------------------------------------------------------------

    def period(self, consensus_ns: int) -> PeriodState | None:
        key = PERIOD + hex16(consensus_ns)
        for row in self._gateway.read_rows(s.INGEST_PROGRESS, RowQuery(keys=(key,))):
            return _period_state(consensus_ns, row)
        return None

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
                    state = _period_state(decode_hex16(row.key[len(PERIOD) :]), row)
                    if state.published is not None:
                        return state
                return None
            end, window = start, window * 2
        return None

    def any_period_before(self, consensus_ns: int) -> bool:
        query = RowQuery(ranges=(KeyRange(PERIOD, PERIOD + hex16(consensus_ns)),), key_only=True, limit=1)
        return any(True for _ in self._gateway.read_rows(s.INGEST_PROGRESS, query))

    def try_claim(self, consensus_ns: int, owner: str, ttl_seconds: float, *, row: bytes = PERIOD) -> bool:
        """Take the claim on ``<row><hex16 time>`` (a period's verification, or with ``ERRATA_CLAIM``
        an errata time's application) if nobody holds a live one."""
        key = row + hex16(consensus_ns)
        current = self._claim_cell(key)
        if current and _claim_live(current):
            return current.split(b" ", 1)[0] == owner.encode()
        expiry = time.time_ns() // 1_000_000 + int(ttl_seconds * 1000)
        return self._gateway.check_and_set(
            s.INGEST_PROGRESS,
            key,
            family=s.INGEST_PROGRESS_FAMILY,
            qualifier=Q_CLAIM,
            expected=current,
            value=f"{owner} {expiry}".encode(),
        )

    def release_claim(self, consensus_ns: int, owner: str, *, row: bytes = PERIOD) -> None:
        key = row + hex16(consensus_ns)
        current = self._claim_cell(key)
        if current and current.split(b" ", 1)[0] == owner.encode():
            self._gateway.check_and_set(
                s.INGEST_PROGRESS, key, family=s.INGEST_PROGRESS_FAMILY, qualifier=Q_CLAIM, expected=current, value=b""
            )

    def claim_held(self, consensus_ns: int) -> bool:
        current = self._claim_cell(PERIOD + hex16(consensus_ns))
        return bool(current) and _claim_live(current or b"")

    def _claim_cell(self, key: bytes) -> bytes | None:
        query = RowQuery(keys=(key,), families=(s.INGEST_PROGRESS_FAMILY,), qualifier_regex=re.escape(Q_CLAIM))
        for row in self._gateway.read_rows(s.INGEST_PROGRESS, query):
            cell = row.cell(s.INGEST_PROGRESS_FAMILY, Q_CLAIM)
            return None if cell is None else cell.value
        return None

    def mark_pending(self, consensus_ns: int, period_key: str, location: StreamLocation, reason: str) -> None:
        stamp = now_micros()
        self._put(
            PERIOD + hex16(consensus_ns),
            [
                (Q_LOCATION, location_to_json(location)),
                (Q_LAST_ATTEMPT, str(stamp).encode()),
                (Q_REASON, reason.encode()[:2000]),
            ],
            stamp,
        )
        self._put(PENDING + hex16(consensus_ns), [(Q_PERIOD, period_key.encode())], stamp)

    def mark_published(self, consensus_ns: int, location: StreamLocation, published: Published) -> None:
        stamp = now_micros()
        self._put(
            PERIOD + hex16(consensus_ns),
            [(Q_LOCATION, location_to_json(location)), (Q_PUBLISHED, published.to_json())],
            stamp,
        )
        self._gateway.delete_rows(s.INGEST_PROGRESS, [PENDING + hex16(consensus_ns)])

    def is_pending(self, consensus_ns: int) -> bool:
        query = RowQuery(keys=(PENDING + hex16(consensus_ns),), key_only=True)
        return any(True for _ in self._gateway.read_rows(s.INGEST_PROGRESS, query))

    def clear_pending(self, consensus_ns: int) -> None:
        self._gateway.delete_rows(s.INGEST_PROGRESS, [PENDING + hex16(consensus_ns)])

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

    def mark_unconfirmed(
        self, consensus_ns: int, period_key: str, location: StreamLocation, *, republished: int = 0
    ) -> None:
        """The period may be (re)published and its block is not known complete: the reconciler
        watches it until the store completes the batch (written before publishing, so a run that
        dies at any point leaves it behind)."""
        payload = Unconfirmed(consensus_ns, period_key, location, republished, 0).to_json()
        self._put(UNCONFIRMED + hex16(consensus_ns), [(Q_PERIOD, payload)], now_micros())

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

    def clear_unconfirmed(self, consensus_ns: int) -> None:
        self._gateway.delete_rows(s.INGEST_PROGRESS, [UNCONFIRMED + hex16(consensus_ns)])

    def mark_recheck(self, consensus_ns: int, period_key: str, block_number: int) -> None:
        """Published on a book not yet certain, with signatures that did not verify: the sweep
        checks them again once the book is certain."""
        payload = json.dumps({"period": period_key, "block": block_number}).encode()
        self._put(RECHECK + hex16(consensus_ns), [(Q_PERIOD, payload)], now_micros())

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

    def clear_recheck(self, consensus_ns: int) -> None:
        self._gateway.delete_rows(s.INGEST_PROGRESS, [RECHECK + hex16(consensus_ns)])

    def mark_errata_pending(self, consensus_ns: int, errata_path: str, reason: str) -> None:
        cells = [(Q_LOCATION, errata_path.encode()), (Q_REASON, reason.encode()[:2000])]
        self._put(ERRATA_PENDING + hex16(consensus_ns), cells, now_micros())

    def errata_pending(self, limit: int) -> list[tuple[int, str]]:
        """(consensus ns, errata file path) of errata waiting for more node stake or their block."""
        query = RowQuery(ranges=(KeyRange(ERRATA_PENDING, prefix_end(ERRATA_PENDING)),), limit=limit)
        found: list[tuple[int, str]] = []
        for row in self._gateway.read_rows(s.INGEST_PROGRESS, query):
            cell = row.cell(s.INGEST_PROGRESS_FAMILY, Q_LOCATION)
            if cell is not None:
                found.append((decode_hex16(row.key[len(ERRATA_PENDING) :]), cell.value.decode()))
        return found

    def clear_errata_pending(self, consensus_ns: int) -> None:
        self._gateway.delete_rows(s.INGEST_PROGRESS, [ERRATA_PENDING + hex16(consensus_ns)])

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
            files = [_file_link(cell) for cell in row.cells if cell.qualifier.startswith(FILE_LINK)]
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

    def _put(self, key: bytes, cells: Sequence[tuple[bytes, bytes]], stamp: int) -> None:
        row = Row(s.INGEST_PROGRESS, key, tuple(Cell(s.INGEST_PROGRESS_FAMILY, q, v, stamp) for q, v in cells))
        self._mutate(s.INGEST_PROGRESS, [row])

    def _mutate(self, table: str, rows: Sequence[Row]) -> None:
        write_or_raise(self._gateway, table, rows, f"{table} state")


def _claim_live(value: bytes) -> bool:
    try:
        return int(value.rsplit(b" ", 1)[1]) > time.time_ns() // 1_000_000
    except (IndexError, ValueError):
        return False


def _period_state(consensus_ns: int, row: StoredRow) -> PeriodState:
    def value(qualifier: bytes) -> bytes | None:
        cell = row.cell(s.INGEST_PROGRESS_FAMILY, qualifier)
        return None if cell is None else cell.value

    location = value(Q_LOCATION)
    last_attempt = value(Q_LAST_ATTEMPT)
    published = value(Q_PUBLISHED)
    return PeriodState(
        consensus_ns,
        location_from_json(location) if location else None,
        int(last_attempt) if last_attempt else None,
        (value(Q_REASON) or b"").decode(errors="replace"),
        Published.from_json(published) if published else None,
    )


def _file_link(cell: StoredCell) -> Link:
    try:
        previous, _, period_key = cell.value.decode().partition(" ")
        return Link(bytes.fromhex(cell.qualifier[len(FILE_LINK) :].decode()), bytes.fromhex(previous), period_key)
    except ValueError as e:
        raise RowDecodeError(f"chain link {cell.qualifier[:120]!r}: {e}") from e
