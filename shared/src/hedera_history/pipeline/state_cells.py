"""The ingest function's rows and cells in Bigtable, and what their values decode to (what each
stage of a period's progress is in these cells: ``pipeline.period_state``).

Row keys (all in the ``ingest_progress`` table unless said otherwise):

- ``period/<hex16 consensus ns>``: ``location`` (where the files are), ``last_attempt``,
  ``reason`` (why it is pending), and once published ``published`` (JSON: block
  number, file hash, running hashes, block time);
- ``pending/<hex16 consensus ns>``: ``period`` (the period key), present while pending;
- ``unconfirmed/<hex16 consensus ns>``: ``period`` (JSON: period key, location, republish count),
  written when a run starts verifying the period and by the reconciler (``pipeline.reconcile``)
  before each republish, removed by it once the block's batch is complete; its cell time is when
  it was last (re)published;
- ``recheck/<hex16 consensus ns>``: ``period`` (JSON: period key, block number), a published
  period whose late signatures the sweep checks again once the book in force is certain;
- ``errata-pending/<hex16 consensus ns>``: ``location`` (the errata file), ``reason``; and the
  ``claim`` cell of ``errata-claim/<hex16 consensus ns>``, as a period's;
- the ``claim`` cell of ``period/<hex16 consensus ns>``: ``<owner> <expiry ms>`` while one run
  verifies the period (empty once released), so that runs triggered by the other uploads of the
  period wait for its result instead of verifying and publishing the same block again;
- the ``claim`` cell of ``block-in-hand/<hex16 block number>``: ``<owner> <expiry ms>`` while an
  ingest call works on that uploaded block (empty once done), so that the call for the next block
  verifies it meanwhile and waits for this one's link (``pipeline.blocks_in_hand``);
- ``chain_links`` table, ``<hex16 block number>``: one ``file/<hash hex>`` cell per record file
  with that number (``<previous hash hex> <period key>``: two files share a number where the
  network gave one twice, as mainnet's block 44029066); rows written before that hold ``hash``,
  ``previous``, ``period`` instead, and are still read; and ``broken/<hex16 block number>``:
  ``reason``;
- ``quarantine`` table, ``<hex16 consensus ns>/<path>``: ``reason``, ``error``, ``node``, ``copy``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from hedera_history.errors import RowDecodeError
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store import schema as s
from hedera_history.store.gateway import StoredCell, StoredRow

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

_Decoded = TypeVar("_Decoded")


@dataclass(frozen=True, slots=True)
class Link:
    """One record file's place in the chain: what it ends with and what it names before it."""

    hash: bytes
    previous: bytes
    period_key: str


@dataclass(frozen=True, slots=True)
class Published:
    block_number: int
    file_hash: bytes
    hash: bytes
    previous_hash: bytes
    block_time_ns: int
    """The consensus time the block's cells are stamped with (a late signature cell needs it)."""
    signers: frozenset[str] = frozenset()
    """Node accounts whose signatures of ``file_hash`` verified when the block was published (a
    cell written before this was kept reads as none)."""

    def to_json(self) -> bytes:
        return _json_cell(
            {
                "block": self.block_number,
                "block_time_ns": self.block_time_ns,
                "file_hash": self.file_hash.hex(),
                "hash": self.hash.hex(),
                "previous_hash": self.previous_hash.hex(),
                "signers": sorted(self.signers),
            }
        )

    @classmethod
    def from_json(cls, raw: bytes) -> Published:
        def build(data: Any) -> Published:
            return cls(
                int(data["block"]),
                bytes.fromhex(data["file_hash"]),
                bytes.fromhex(data["hash"]),
                bytes.fromhex(data["previous_hash"]),
                int(data["block_time_ns"]),
                frozenset(str(account) for account in data.get("signers", ())),
            )

        return _from_json_cell(raw, "published", build)


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
        return _json_cell(
            {
                "period": self.period_key,
                "location": json.loads(location_to_json(self.location)),
                "republished": self.republished,
            }
        )

    @classmethod
    def from_json(cls, consensus_ns: int, raw: bytes, since_micros: int) -> Unconfirmed:
        def build(data: Any) -> Unconfirmed:
            location = location_from_json(json.dumps(data["location"]).encode())
            return cls(consensus_ns, str(data["period"]), location, int(data["republished"]), since_micros)

        return _from_json_cell(raw, "unconfirmed", build)


@dataclass(frozen=True, slots=True)
class PendingPeriod:
    consensus_ns: int
    period_key: str


def location_to_json(location: StreamLocation) -> bytes:
    return _json_cell(
        {
            "layout": location.layout.value,
            "prefix": location.prefix,
            "network": location.network,
            "shard": location.shard,
        }
    )


def location_from_json(raw: bytes) -> StreamLocation:
    def build(data: Any) -> StreamLocation:
        return StreamLocation(BucketLayout(data["layout"]), data["prefix"], data["network"], int(data["shard"]))

    return _from_json_cell(raw, "location", build)


def _json_cell(data: dict[str, Any]) -> bytes:
    return json.dumps(data, sort_keys=True).encode()


def _from_json_cell(raw: bytes, what: str, build: Callable[[Any], _Decoded]) -> _Decoded:
    """``build`` applied to the cell's JSON; any missing or malformed part is a RowDecodeError."""
    try:
        return build(json.loads(raw))
    except (ValueError, KeyError, TypeError) as e:
        raise RowDecodeError(f"ingest progress: unreadable {what} cell: {e}") from e


def period_state_from_row(consensus_ns: int, row: StoredRow) -> PeriodState:
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


def file_link_from_cell(cell: StoredCell) -> Link:
    try:
        previous, _, period_key = cell.value.decode().partition(" ")
        return Link(bytes.fromhex(cell.qualifier[len(FILE_LINK) :].decode()), bytes.fromhex(previous), period_key)
    except ValueError as e:
        raise RowDecodeError(f"chain link {cell.qualifier[:120]!r}: {e}") from e
