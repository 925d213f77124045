"""The cells an errata leaves in the history tables: tombstones and the errata marker.

Corrections are written with the errata's consensus time as the cell timestamp, above the block's
own, so re-writing the original block later (a backfill, a redelivery) never brings it back:
readers take the latest version of each cell.

- A **tombstone** stands where the correction removes a cell (the entry of a DELETE, an
  account's history row the corrected item no longer touches, a stale index entry). Its first
  byte, 0xEE, is no encoding header ``store.encoding`` knows, so a reader that does not know
  tombstones reports an undecodable cell rather than serving the removed data.
- The **marker** is the cell ``t:errata`` of the ``transactions`` row at the time of error:
  which errata is in force there and what it did (INSERT, UPDATE, DELETE), so every answer about
  a corrected transaction can say so.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from hedera_history.errata.errata_file import EntryKind
from hedera_history.errors import RowDecodeError
from hedera_history.store import decode as stored
from hedera_history.store.encoding import decode_value, encode_value

TOMBSTONE_HEADER = stored.TOMBSTONE_HEADER
is_tombstone = stored.is_tombstone
"""Whether a cell's value is a tombstone: the store's own test, which readers apply too."""
Q_ERRATA = b"errata"
"""Qualifier of the marker cell, in the ``transactions`` family ``t``."""

_MARKER = struct.Struct(">BQ")
_KIND_CODES = {EntryKind.INSERT: 1, EntryKind.UPDATE: 2, EntryKind.DELETE: 3}
_KINDS = {code: kind for kind, code in _KIND_CODES.items()}


def tombstone_value(errata_id: str) -> bytes:
    """A removed cell's value: 0xEE, then the id of the errata that removed it."""
    return bytes([TOMBSTONE_HEADER]) + errata_id.encode("ascii")


@dataclass(frozen=True, slots=True)
class ErrataMarker:
    kind: EntryKind
    errata_id: str
    errata_ns: int
    """The consensus time of the errata in force."""


def encode_marker(marker: ErrataMarker) -> bytes:
    """The marker cell's value (with its encoding header)."""
    return encode_value(_MARKER.pack(_KIND_CODES[marker.kind], marker.errata_ns) + marker.errata_id.encode("ascii"))


def decode_marker(value: bytes) -> ErrataMarker:
    payload = decode_value(value)
    if len(payload) <= _MARKER.size:
        raise RowDecodeError(f"errata marker: expected more than {_MARKER.size} bytes, got {len(payload)}")
    code, errata_ns = _MARKER.unpack_from(payload)
    kind = _KINDS.get(code)
    if kind is None:
        raise RowDecodeError(f"errata marker: unknown kind {code}")
    return ErrataMarker(kind, payload[_MARKER.size :].decode("ascii", "replace"), int(errata_ns))
