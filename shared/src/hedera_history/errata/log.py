"""The ``errata_log`` table: every accepted errata, and the original of every corrected entry.

Rows (family ``e``):

- ``f/<errata id>``: qualifier ``file``, the errata file's bytes (written last when applying, so
  its presence means "applied"); qualifier ``time_of_error`` (``>Q``); one qualifier
  ``sig/<node id hex16>`` per node whose signature file ratified it (under the book the ingest
  judged it with), holding that file in its V6 form rebuilt from what the node signed (the file
  and body hashes and the two signatures: the signature file's own bytes are signed by nobody).
  These are written before ``file``, and again, adding to them, when a signature arrives after
  the errata was applied; proofs of the corrected entry carry them (``proofs.correction``).
- ``t/<time of error hex16>``: qualifier ``original``, the history cells the block wrote for the
  entry at that time, exactly as stored (or "absent" with the block and index an inserted entry
  takes); one qualifier ``errata/<errata time hex16>/<errata id>`` per accepted errata for that
  time, holding its body; ``in_force``, the id of the errata in force (the latest by time).
- ``b/<block hex16>/<time hex16>``: qualifier ``i``, an entry an errata inserted into that block.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

from hedera_history.errata.signing import v6_signature_form
from hedera_history.errors import ErrataFormatError, RowDecodeError
from hedera_history.formats.parsed_files import RecordItem, SignatureFile
from hedera_history.store import schema as s
from hedera_history.store.encoding import decode_value
from hedera_history.store.keys import decode_hex16, hex16
from hedera_history.store.row_codec import ByteReader, encode_varint

Q_FILE = b"file"
Q_TIME_OF_ERROR = b"time_of_error"
Q_ORIGINAL = b"original"
Q_IN_FORCE = b"in_force"
Q_INSERTED = b"i"
ENTRY_PREFIX = b"errata/"
SIGNATURE_PREFIX = b"sig/"

Address = tuple[str, bytes, str, bytes]
"""(table, row key, family, qualifier) of one history cell."""

_ORIGINAL_LAYOUT = 1
_ORIGINAL_HEAD = struct.Struct(">BBQI")


def file_row_key(errata_id: str) -> bytes:
    return b"f/" + errata_id.encode("ascii")


def time_row_key(consensus_ns: int) -> bytes:
    return b"t/" + hex16(consensus_ns)


def inserted_row_key(block_number: int, consensus_ns: int) -> bytes:
    return b"b/" + hex16(block_number) + b"/" + hex16(consensus_ns)


def inserted_block_prefix(block_number: int) -> bytes:
    return b"b/" + hex16(block_number) + b"/"


def entry_qualifier(errata_ns: int, errata_id: str) -> bytes:
    return ENTRY_PREFIX + hex16(errata_ns) + b"/" + errata_id.encode("ascii")


def decode_entry_qualifier(qualifier: bytes) -> tuple[int, str]:
    """``(errata time, errata id)`` of an ``errata/...`` qualifier."""
    parts = qualifier.split(b"/")
    if len(parts) != 3 or parts[0] + b"/" != ENTRY_PREFIX:
        raise RowDecodeError(f"not an errata entry qualifier: {qualifier!r}")
    try:
        return decode_hex16(parts[1]), parts[2].decode("ascii")
    except (ValueError, UnicodeDecodeError) as e:
        raise RowDecodeError(f"errata entry qualifier {qualifier!r}: {e}") from e


def signature_qualifier(node_id: int) -> bytes:
    return SIGNATURE_PREFIX + hex16(node_id)


def signatures_in_row(cells: dict[bytes, bytes]) -> dict[int, bytes]:
    """Node id -> ratifying signature file of every ``sig/`` qualifier in an ``f/`` row (values as stored)."""
    found: dict[int, bytes] = {}
    for qualifier, value in sorted(cells.items()):
        if qualifier.startswith(SIGNATURE_PREFIX):
            try:
                node_id = decode_hex16(qualifier[len(SIGNATURE_PREFIX) :])
            except ValueError as e:  # not hex16
                raise RowDecodeError(f"errata signature qualifier {qualifier!r}: {e}") from e
            found[node_id] = decode_value(value)
    return found


def stored_signature_file(signature: SignatureFile) -> bytes:
    """The V6 signature file the log keeps for a ratifying node: what it signed, nothing else."""
    form = v6_signature_form(signature)
    if form is None:
        raise ErrataFormatError("a ratifying signature signs the errata body too", file=signature.name)
    return form


@dataclass(frozen=True, slots=True)
class ImageCell:
    """One history cell exactly as stored (value with its encoding header)."""

    table: str
    key: bytes
    family: str
    qualifier: bytes
    value: bytes
    timestamp_micros: int

    @property
    def address(self) -> Address:
        return (self.table, self.key, self.family, self.qualifier)


@dataclass(frozen=True, slots=True)
class OriginalEntry:
    """What the stream itself put at a time of error, before any errata."""

    consensus_ns: int
    block_number: int
    index: int
    """The entry's index in its block (for an absent entry: the index an inserted one takes)."""
    present: bool
    cells: tuple[ImageCell, ...]

    def item(self) -> RecordItem | None:
        """The original transaction and record, or None when the stream had nothing there."""
        if not self.present:
            return None
        found = {
            c.qualifier: decode_value(c.value)
            for c in self.cells
            if c.table == s.TRANSACTIONS and c.family == s.TRANSACTION_FAMILY
        }
        if s.Q_RECORD not in found or s.Q_TRANSACTION not in found:
            raise RowDecodeError(f"original entry at {self.consensus_ns}: no record or transaction cell")
        return RecordItem(found[s.Q_TRANSACTION], found[s.Q_RECORD], self.consensus_ns)

    def sidecar_cells(self) -> tuple[ImageCell, ...]:
        return tuple(c for c in self.cells if c.table == s.SIDECARS)


def encode_original(entry: OriginalEntry) -> bytes:
    """Payload: ``>BBQI`` (layout, present, block, index), varint consensus ns, varint count, then
    per cell sized table, key, family, qualifier, varint timestamp, sized value."""
    out = bytearray(_ORIGINAL_HEAD.pack(_ORIGINAL_LAYOUT, int(entry.present), entry.block_number, entry.index))
    out += encode_varint(entry.consensus_ns)
    out += encode_varint(len(entry.cells))
    for c in entry.cells:
        for part in (c.table.encode("ascii"), c.key, c.family.encode("ascii"), c.qualifier):
            out += encode_varint(len(part)) + part
        out += encode_varint(c.timestamp_micros)
        out += encode_varint(len(c.value)) + c.value
    return bytes(out)


def decode_original(payload: bytes) -> OriginalEntry:
    if len(payload) < _ORIGINAL_HEAD.size:
        raise RowDecodeError("original entry: truncated header")
    layout, present, block, index = _ORIGINAL_HEAD.unpack_from(payload)
    if layout != _ORIGINAL_LAYOUT or present not in (0, 1):
        raise RowDecodeError(f"original entry: unknown layout {layout} or flag {present}")
    reader = ByteReader(payload, "original entry", _ORIGINAL_HEAD.size)
    consensus_ns = reader.varint()
    cells = []
    for _ in range(reader.varint()):
        table, key, family, qualifier = (reader.sized() for _ in range(4))
        timestamp = reader.varint()
        cells.append(
            ImageCell(table.decode("ascii"), key, family.decode("ascii"), qualifier, reader.sized(), timestamp)
        )
    if not reader.at_end:
        raise RowDecodeError("original entry: bytes after the last cell")
    return OriginalEntry(consensus_ns, int(block), int(index), bool(present), tuple(cells))


def entries_in_row(cells: dict[bytes, bytes]) -> Iterator[tuple[int, str, bytes]]:
    """``(errata time, errata id, body bytes)`` of every accepted errata in a ``t/`` row."""
    for qualifier, value in sorted(cells.items()):
        if qualifier.startswith(ENTRY_PREFIX):
            errata_ns, errata_id = decode_entry_qualifier(qualifier)
            yield errata_ns, errata_id, decode_value(value)
