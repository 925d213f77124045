"""Reader-side errata answers, for the query API: the marker of a corrected entry, the original
it replaced, the entries an errata inserted into a block, and whether a cell is a tombstone.

What a reader must honour (see docs/errata.md): a cell whose value is a tombstone
(``is_tombstone``) does not exist; a ``transactions`` row whose record is a tombstone is a
removed entry (its marker says DELETE); every answer about a transaction whose row carries the
marker (``marker_in_row``) says which errata corrected it.
"""

from __future__ import annotations

from dataclasses import dataclass

from hedera_history.errata.cells import Q_ERRATA, ErrataMarker, decode_marker, is_tombstone
from hedera_history.errata.log import (
    Q_FILE,
    Q_ORIGINAL,
    OriginalEntry,
    decode_original,
    entries_in_row,
    file_row_key,
    inserted_block_prefix,
    time_row_key,
)
from hedera_history.store import schema as s
from hedera_history.store.encoding import decode_value
from hedera_history.store.gateway import BigtableGateway, KeyRange, RowQuery, StoredRow
from hedera_history.store.keys import decode_hex16
from hedera_history.store.time_rows import read_one

__all__ = [
    "ErrataHistory",
    "ErrataMarker",
    "applied_errata_file",
    "errata_history",
    "errata_marker",
    "inserted_entries",
    "is_tombstone",
    "marker_in_row",
    "mirror_errata_field",
    "original_entry",
]


def marker_in_row(row: StoredRow) -> ErrataMarker | None:
    """The errata marker of a ``transactions`` row already read (None: never corrected)."""
    cell = row.cell(s.TRANSACTION_FAMILY, Q_ERRATA)
    return None if cell is None else decode_marker(cell.value)


def errata_marker(gateway: BigtableGateway, consensus_ns: int) -> ErrataMarker | None:
    """The marker of the entry at ``consensus_ns`` (one cell read)."""
    row = read_one(gateway, s.TRANSACTIONS, consensus_ns, families=(s.TRANSACTION_FAMILY,), qualifier_regex=b"^errata$")
    return None if row is None else marker_in_row(row)


def mirror_errata_field(marker: ErrataMarker | None) -> str | None:
    """The value of an ``errata`` field in a mirror-node shaped answer: INSERT, UPDATE, DELETE or None."""
    return None if marker is None else marker.kind.value


def original_entry(gateway: BigtableGateway, consensus_ns: int) -> OriginalEntry | None:
    """What the stream itself had at ``consensus_ns`` before any errata (None: never corrected).

    ``.item()`` gives the original transaction and record (None when the entry was inserted);
    ``.cells`` every history cell the block wrote for it, exactly as stored.
    """
    row = _one(gateway, time_row_key(consensus_ns))
    cell = None if row is None else row.cell(s.ERRATA_LOG_FAMILY, Q_ORIGINAL)
    return None if cell is None else decode_original(decode_value(cell.value))


@dataclass(frozen=True, slots=True)
class ErrataHistory:
    """Every errata accepted for one time of error, oldest first; the last is in force."""

    consensus_ns: int
    errata: tuple[tuple[int, str], ...]
    """(errata consensus time, errata id)."""


def errata_history(gateway: BigtableGateway, consensus_ns: int) -> ErrataHistory | None:
    row = _one(gateway, time_row_key(consensus_ns))
    if row is None:
        return None
    cells = {c.qualifier: c.value for c in row.cells}
    entries = tuple((ns, errata_id) for ns, errata_id, _ in entries_in_row(cells))
    return ErrataHistory(consensus_ns, tuple(sorted(entries))) if entries else None


def applied_errata_file(gateway: BigtableGateway, errata_id: str) -> bytes | None:
    """The bytes of an applied errata file (re-verifiable with its node signatures)."""
    row = _one(gateway, file_row_key(errata_id))
    cell = None if row is None else row.cell(s.ERRATA_LOG_FAMILY, Q_FILE)
    return None if cell is None else decode_value(cell.value)


def inserted_entries(gateway: BigtableGateway, block_number: int) -> list[int]:
    """Consensus times of entries errata inserted into the block (ascending). An inserted entry may
    lie after the block's last original item, outside ``[consensus_start, consensus_end]``."""
    prefix = inserted_block_prefix(block_number)
    end = prefix[:-1] + bytes([prefix[-1] + 1])
    rows = gateway.read_rows(s.ERRATA_LOG, RowQuery(ranges=(KeyRange(prefix, end),), key_only=True))
    return [decode_hex16(row.key[len(prefix) :]) for row in rows]


def _one(gateway: BigtableGateway, key: bytes) -> StoredRow | None:
    for row in gateway.read_rows(s.ERRATA_LOG, RowQuery(keys=(key,))):
        return row
    return None
