"""One block number carried by two record files (mainnet's 44029066), stored as one block.

The reference mirror node merges the two files into one block (``MergeDuplicateBlocksMigration``):
consensus start, name and previous hash from the first file; consensus end, hash and the rest from
the second; counts summed; the second file's transaction indexes follow the first's. Here both
files are kept, each with its own header, signatures and signed bytes, in the block's rows
(docs/schema.md, "The duplicate block"):

- the first file (part 0) writes its cells as any block does, except its completion: cell
  ``h:part/0/complete`` instead of ``c:complete``;
- the second file (part 1) writes the same cells under qualifiers prefixed ``part/1/`` (header,
  signatures, items) and ``h:part/1/complete``; its transactions carry ``t:part`` = 1, and
  readers add the first file's item count to their index;
- whoever writes a part's completion last sees both and writes ``c:complete`` with the counts
  summed: only then is the block complete, so the watermark, the balance applier and every answer
  see one merged block or none.

Which files are the parts is a network fact (``Settings.duplicate_blocks``, the mainnet preset's
by default): a stateless writer that has one file in hand cannot know that its predecessor carries
the same number. Each part's rows depend on that file alone, so the stream and the backfill write
the same cells in any order.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hedera_history.errors import ConfigError, RowDecodeError
from hedera_history.formats.parsed_files import RecordFile
from hedera_history.store import schema as s
from hedera_history.store.encoding import decode_value, encode_value
from hedera_history.store.gateway import BigtableGateway, RowQuery, StoredRow
from hedera_history.store.model import Cell, Row
from hedera_history.store.values import CompletionValue, decode_completion, encode_completion

PART_PREFIX = b"part/1/"
"""Prefix of the second file's qualifiers in its block's ``blocks`` and ``items`` rows."""
Q_PART = b"part"
"""``transactions`` cell of an entry of the second file (payload: the part, 1)."""
PART_COMPLETE = (b"part/0/complete", b"part/1/complete")
"""Header-family cell each part writes when all its rows have landed."""


@dataclass(frozen=True, slots=True)
class DuplicateBlock:
    number: int
    first_end_ns: int
    """Consensus end of the first file (the reference's ``consensus_end`` of the row it deletes)."""
    second_end_ns: int

    def __str__(self) -> str:
        return f"{self.number}:{self.first_end_ns}:{self.second_end_ns}"


def parse_duplicate_blocks(text: str) -> tuple[DuplicateBlock, ...]:
    """``NUMBER:FIRST_END_NS:SECOND_END_NS``, comma-separated; empty: none."""
    found = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        fields = part.split(":")
        if len(fields) != 3 or not all(f.isdigit() for f in fields):
            raise ConfigError(f"duplicate block {part!r}: expected NUMBER:FIRST_END_NS:SECOND_END_NS")
        number, first, second = (int(f) for f in fields)
        if first >= second:
            raise ConfigError(f"duplicate block {part!r}: the first file must end before the second")
        found.append(DuplicateBlock(number, first, second))
    return tuple(found)


def duplicate_part(record: RecordFile, block_number: int, duplicates: tuple[DuplicateBlock, ...]) -> int | None:
    """0 or 1 when ``record`` is the first or second file of a duplicate block; None otherwise."""
    if not record.items:
        return None
    for duplicate in duplicates:
        if duplicate.number == block_number:
            if record.consensus_end == duplicate.first_end_ns:
                return 0
            if record.consensus_end == duplicate.second_end_ns:
                return 1
    return None


def duplicate_part_at(block_number: int, block_time_ns: int, duplicates: tuple[DuplicateBlock, ...]) -> int | None:
    """The part of a file known only by its number and block time (its first item's time): the
    second file starts after the first ends."""
    for duplicate in duplicates:
        if duplicate.number == block_number:
            return 1 if block_time_ns > duplicate.first_end_ns else 0
    return None


def part_qualifier(part: int | None, qualifier: bytes) -> bytes:
    return PART_PREFIX + qualifier if part == 1 else qualifier


def completion_cell(part: int | None, value: CompletionValue, timestamp_micros: int) -> Cell:
    """The cell that completes a block (``c:complete``) or one part of a duplicate block."""
    if part is None:
        return Cell(s.BLOCK_COMPLETION_FAMILY, s.Q_COMPLETE, encode_value(encode_completion(value)), timestamp_micros)
    return Cell(s.BLOCK_HEADER_FAMILY, PART_COMPLETE[part], encode_value(encode_completion(value)), timestamp_micros)


def is_part_completion(row: Row) -> bool:
    return row.table == s.BLOCKS and any(
        c.family == s.BLOCK_HEADER_FAMILY and c.qualifier in PART_COMPLETE for c in row.cells
    )


def merged_completion(row: StoredRow) -> Cell | None:
    """``c:complete`` for a duplicate block both of whose parts are complete (counts summed, the
    later part's cell time); None while a part is missing."""
    cells = [row.cell(s.BLOCK_HEADER_FAMILY, q) for q in PART_COMPLETE]
    if any(c is None for c in cells):
        return None
    values = [decode_completion(decode_value(c.value)) for c in cells if c is not None]
    merged = CompletionValue(
        item_count=sum(v.item_count for v in values),
        sidecar_record_count=sum(v.sidecar_record_count for v in values),
        layout=min(v.layout for v in values),
    )
    stamp = max(c.timestamp_micros for c in cells if c is not None)
    return Cell(s.BLOCK_COMPLETION_FAMILY, s.Q_COMPLETE, encode_value(encode_completion(merged)), stamp)


def complete_duplicates(gateway: BigtableGateway, completions: list[Row]) -> list[Row]:
    """After part completions landed: the ``c:complete`` rows of the duplicate blocks now whole.
    Read after the write, so of two parts written at once the later one always sees both."""
    keys = sorted({row.key for row in completions if is_part_completion(row)})
    if not keys:
        return []
    out = []
    query = RowQuery(keys=tuple(keys), families=(s.BLOCK_HEADER_FAMILY,))
    for stored in gateway.read_rows(s.BLOCKS, query):
        cell = merged_completion(stored)
        if cell is not None:
            out.append(Row(s.BLOCKS, stored.key, (cell,)))
    return out


def second_part_row(row: StoredRow) -> StoredRow | None:
    """The second file's cells of a ``blocks`` or ``items`` row, unprefixed (None: no second file)."""
    cells = tuple(
        replace(c, qualifier=c.qualifier[len(PART_PREFIX) :]) for c in row.cells if c.qualifier.startswith(PART_PREFIX)
    )
    if not cells:
        return None
    return replace(row, cells=cells)


def first_part_row(row: StoredRow) -> StoredRow:
    """The row without the second file's cells."""
    return replace(row, cells=tuple(c for c in row.cells if not c.qualifier.startswith(PART_PREFIX)))


def check_part_cell(value: bytes) -> int:
    part = decode_value(value)
    if part != b"\x01":
        raise RowDecodeError(f"transactions cell part: expected 1, got {part!r}")
    return 1
