"""A block's items as the items row holds them: where a ``transactions`` pointer (block, index,
cell) finds the transaction and record bytes (layout 2, ``values.COMPLETION_LAYOUT``).

The items row keeps the record file's signed bytes (V6: the decompressed file) or, when those could
not be rebuilt, the item list; either way the items come back in file order with their exact bytes.

The bytes are cut into cells at item boundaries (:func:`items_cells`): cell 0 holds the part before
the first item (the file's header, the list's count) and the first items, closed once it holds
ITEMS_DICTIONARY_SIZE bytes; then cells of whole items, each closed once it holds ITEMS_CELL_SIZE
bytes; then the part after the last item (V6 and V5: the end running hash and what follows) in a
last cell of its own. The cells joined in qualifier order are the signed bytes.

A pointer names its item's cell, so one transaction is read with that cell and cell 0, not the
whole block (:func:`FileCells.items`). Cell 0 says the version, and it is the zlib dictionary of
the other cells (``encoding.ZLIB_DICTIONARY``): compressed alone, each 64 KiB cell would lose the
context a whole-row stream had (3% more bytes on a mainnet-shaped stream, bench/amplification_bench.py);
against the block's first items it loses under 0.5%. A V6 cell is read through the raw view (no
hashing, no nested parse); the other versions' items are length-prefixed and walked directly.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import DecodeError

from hedera_history.errors import FormatError, RowDecodeError
from hedera_history.formats.block import parse_block
from hedera_history.formats.block_record_file import native_block_files
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.hashing import RECORD_STREAM_OBJECT_HEADER
from hedera_history.formats.raw_view import RawRecordStreamFile
from hedera_history.formats.record_v2 import HEADER_SIZE as V2_HEADER_SIZE
from hedera_history.formats.record_v2 import RECORD_MARKER
from hedera_history.formats.record_v5 import HASH_OBJECT_SIZE
from hedera_history.formats.record_v5 import HEADER_SIZE as V5_INTS_SIZE
from hedera_history.formats.wire import LEN, read_tag, repeated_spans, singular_spans, skip_field
from hedera_history.store import schema as s
from hedera_history.store.decode import BlockFile
from hedera_history.store.duplicates import first_part_row, part_qualifier, second_part_row
from hedera_history.store.encoding import decode_value
from hedera_history.store.gateway import StoredRow
from hedera_history.store.keys import parse_items_qualifier

ItemBytes = tuple[bytes, bytes]
"""``(transaction bytes, record bytes)`` of one item."""

ITEMS_CELL_SIZE = 64 * 1024
"""An items cell is closed at the first item boundary at or after this many bytes: a transaction
read fetches about this much (one item larger than that has a cell of its own size)."""
ITEMS_DICTIONARY_SIZE = 32 * 1024
"""Cell 0 is closed at the first item boundary at or after this many bytes (zlib's window: the
part of a dictionary it can use)."""
HEADER_CELL = 0
"""The first cell (header and first items): every cell read takes it too, it says the file's
version and is the other cells' dictionary."""

_V6_PREFIX = (6).to_bytes(4, "big")
_BLOCK_KIND = s.ITEMS_BLOCK_KIND.decode("ascii")
_V5_PREFIX = (5).to_bytes(4, "big")
_V5_HEADER_SIZE = V5_INTS_SIZE + HASH_OBJECT_SIZE  # five int32, then the start running hash object
_U32 = struct.Struct(">I")
_RECORD_ITEM = 3  # RecordStreamFile.record_stream_items


@dataclass(frozen=True, slots=True)
class ItemsCell:
    """One cell of an items row: its number, the index of its first item, its bytes."""

    number: int
    first_index: int
    data: bytes


def cell_qualifier(kind: bytes, number: int, first_index: int) -> bytes:
    """``<kind>/<cell number, 6 digits>/<index of its first item, 8 digits>``: the digits keep
    qualifier order equal to byte order; the first index turns a pointer's index into a position
    in the cell. ``store.keys.parse_items_qualifier`` reads it."""
    return kind + b"/%06d/%08d" % (number, first_index)


def items_cells(kind: bytes, data: bytes) -> tuple[tuple[ItemsCell, ...], tuple[tuple[int, int], ...]]:
    """The cells of ``data`` (a signed file, ``kind`` file, or an item list) and, in item order,
    each item's (cell number, place in that cell). Bytes whose items cannot be walked stay whole in
    cell 0 (then no item is placed: every pointer names cell 0 with its index, and the reader
    parses the whole file)."""
    try:
        header_end, spans, trailer_start = _item_spans(kind, data)
    except (RowDecodeError, FormatError, IndexError, struct.error):
        return (ItemsCell(HEADER_CELL, 0, data),), ()
    cells: list[ItemsCell] = []
    placed: list[tuple[int, int]] = []
    start = 0
    first = 0
    for index, (_, end) in enumerate(spans):
        placed.append((len(cells), index - first))
        size = ITEMS_CELL_SIZE if cells else ITEMS_DICTIONARY_SIZE
        if end - start >= size or index == len(spans) - 1:
            cells.append(ItemsCell(len(cells), first, data[start:end]))
            start, first = end, index + 1
    if not cells:
        cells.append(ItemsCell(HEADER_CELL, 0, data[:header_end]))
    if trailer_start < len(data):
        cells.append(ItemsCell(len(cells), len(spans), data[trailer_start:]))
    return tuple(cells), tuple(placed)


def cell_item_bytes(kind: str, header: bytes, cell: bytes, what: str) -> tuple[ItemBytes, ...]:
    """The items of one items cell after cell 0, ``header`` being cell 0 of the same file;
    RowDecodeError naming ``what`` when they do not parse."""
    return _items_from(kind, header, cell, 0, what)


def first_cell_item_bytes(kind: str, header: bytes, what: str) -> tuple[ItemBytes, ...]:
    """The items of cell 0 (after the file's header); the whole file's when it stands whole in
    cell 0 (its items could not be walked when it was stored)."""
    if kind == _BLOCK_KIND:
        return block_item_bytes(header, what)
    try:
        return _items_from(kind, header, header, _header_size(kind, header), what)
    except RowDecodeError:
        pass
    return file_item_bytes(BlockFile(kind, header), what)


def file_item_bytes(file: BlockFile, what: str) -> tuple[ItemBytes, ...]:
    """Every item of ``file`` in order; RowDecodeError naming ``what`` when it does not parse."""
    if file.kind == _BLOCK_KIND:
        return block_item_bytes(file.data, what)
    try:
        if file.kind == "items":
            return _split_item_list(file.data, what)
        if file.data[:4] == _V6_PREFIX:
            raw = _raw_items(file.data, 4)
            if raw is not None:
                return raw
        return tuple((i.transaction_bytes, i.record_bytes) for i in parse_record_file(file.data, what).items)
    except FormatError as e:
        raise RowDecodeError(f"{what}: the stored items do not parse: {e.reason}") from e


def block_item_bytes(data: bytes, what: str) -> tuple[ItemBytes, ...]:
    """The records of a block-stream block as stored (the serialised ``Block``): its items become
    them again, exactly as when the block was written (the transformation is deterministic)."""
    try:
        record, _ = native_block_files(parse_block(data, what))
    except FormatError as e:
        raise RowDecodeError(f"{what}: the stored block does not parse: {e.reason}") from e
    return tuple((item.transaction_bytes, item.record_bytes) for item in record.items)


def _header_size(kind: str, header: bytes) -> int:
    """Where cell 0's first item starts: after the list's count, or after the file's header."""
    if kind == s.ITEMS_LIST_KIND.decode() or header[:4] == _V6_PREFIX:
        return 4
    return _V5_HEADER_SIZE if header[:4] == _V5_PREFIX else V2_HEADER_SIZE


def _items_from(kind: str, header: bytes, data: bytes, start: int, what: str) -> tuple[ItemBytes, ...]:
    """The items of ``data[start:]``, a cell of the file whose cell 0 is ``header``."""
    if kind == s.ITEMS_LIST_KIND.decode():
        return _walk(_list_item, data, start, what)
    if header[:4] == _V6_PREFIX:
        raw = _raw_items(data, start)
        return raw if raw is not None else _walk_v6(data, start, what)
    return _walk(_v5_item if header[:4] == _V5_PREFIX else _v2_item, data, start, what)


def _item_spans(kind: bytes, data: bytes) -> tuple[int, list[tuple[int, int]], int]:
    """(end of the header, (start, end) of each item, start of the trailer) of a whole file."""
    if kind == s.ITEMS_BLOCK_KIND:
        raise RowDecodeError("a block's records are rebuilt from the whole block: it stays in cell 0")
    if kind == s.ITEMS_LIST_KIND:
        (count,) = _U32.unpack_from(data)
        spans = _spans(_list_item, data, 4)
        if len(spans) != count:
            raise RowDecodeError(f"the item list says {count} items, holds {len(spans)}")
        return 4, spans, len(data)
    if data[:4] == _V6_PREFIX:
        return _v6_spans(data)
    if data[:4] == _V5_PREFIX:
        spans = _spans(_v5_item, data, _V5_HEADER_SIZE, stop_at_trailer=True)
        return _V5_HEADER_SIZE, spans, spans[-1][1] if spans else _V5_HEADER_SIZE
    return V2_HEADER_SIZE, _spans(_v2_item, data, V2_HEADER_SIZE), len(data)


def _v6_spans(data: bytes) -> tuple[int, list[tuple[int, int]], int]:
    """The top-level fields walked: items must stand together (as a canonical file has them)."""
    end = len(data)
    position = 4
    spans: list[tuple[int, int]] = []
    header_end = trailer_start = -1
    while position < end:
        field_start = position
        number, wire_type, position = read_tag(data, position, end, "RecordStreamFile", "items row")
        position = skip_field(data, position, end, wire_type, field="RecordStreamFile", name="items row")
        if number == _RECORD_ITEM and wire_type == LEN:
            if trailer_start >= 0:
                raise RowDecodeError("the items do not stand together")
            if header_end < 0:
                header_end = field_start
            spans.append((field_start, position))
        elif header_end >= 0 and trailer_start < 0:
            trailer_start = field_start
    if header_end < 0:
        return end, [], end
    return header_end, spans, end if trailer_start < 0 else trailer_start


_ItemReader = Callable[[bytes, int], tuple[ItemBytes, int] | None]
"""Reads the item at an offset: its bytes and the offset after it (None: not an item there)."""


def _spans(read: _ItemReader, data: bytes, start: int, *, stop_at_trailer: bool = False) -> list[tuple[int, int]]:
    spans = []
    position = start
    while position < len(data):
        found = read(data, position)
        if found is None:
            if stop_at_trailer:
                break
            raise RowDecodeError(f"no item at offset {position}")
        spans.append((position, found[1]))
        position = found[1]
    return spans


def _walk(read: _ItemReader, cell: bytes, start: int, what: str) -> tuple[ItemBytes, ...]:
    items = []
    position = start
    try:
        while position < len(cell):
            found = read(cell, position)
            if found is None:
                raise RowDecodeError(f"{what}: no item at offset {position} of the items cell")
            items.append(found[0])
            position = found[1]
    except (struct.error, IndexError) as e:
        raise RowDecodeError(f"{what}: the items cell is truncated: {e}") from e
    return tuple(items)


def _lengths(data: bytes, position: int) -> tuple[bytes, bytes, int]:
    """Two ``u32 length + bytes`` parts from ``position``: both and the offset after them."""
    parts = []
    for _ in range(2):
        (length,) = _U32.unpack_from(data, position)
        if position + 4 + length > len(data):
            raise RowDecodeError("an item runs past the end of its cell")
        parts.append(data[position + 4 : position + 4 + length])
        position += 4 + length
    return parts[0], parts[1], position


def _list_item(data: bytes, position: int) -> tuple[ItemBytes, int]:
    transaction, record, end = _lengths(data, position)
    return (transaction, record), end


def _v2_item(data: bytes, position: int) -> tuple[ItemBytes, int] | None:
    if data[position] != RECORD_MARKER:
        return None
    transaction, record, end = _lengths(data, position + 1)
    return (transaction, record), end


def _v5_item(data: bytes, position: int) -> tuple[ItemBytes, int] | None:
    header = len(RECORD_STREAM_OBJECT_HEADER)
    if data[position : position + header] != RECORD_STREAM_OBJECT_HEADER:
        return None
    record, transaction, end = _lengths(data, position + header)
    return (transaction, record), end


def _split_item_list(data: bytes, what: str) -> tuple[ItemBytes, ...]:
    """The pairs of ``originals.encode_item_list`` as stored, none parsed: the list is kept when a
    block's file cannot be rebuilt, which is also when an item does not decode."""
    try:
        (count,) = _U32.unpack_from(data)
    except struct.error as e:
        raise RowDecodeError(f"{what}: the item list is truncated: {e}") from e
    try:
        pairs = _walk(_list_item, data, 4, what)
    except RowDecodeError as e:
        raise RowDecodeError(f"{what}: the item list is truncated: {e}") from e
    if len(pairs) != count:
        raise RowDecodeError(f"{what}: the item list says {count} items, holds {len(pairs)}")
    return pairs


def _walk_v6(data: bytes, start: int, what: str) -> tuple[ItemBytes, ...]:
    """The V6 items of ``data[start:]`` found by walking the wire format, where the raw view
    cannot vouch for them (an empty or repeated field): other fields are skipped."""
    try:
        spans = repeated_spans(data, start, len(data), _RECORD_ITEM, field="record_stream_items", name=what)
        out = []
        for item_start, item_end in spans:
            body, record = singular_spans(
                data, item_start, item_end, ((1, "transaction"), (2, "record")), what="item", name=what
            )
            out.append((_span(data, body), _span(data, record)))
    except FormatError as e:
        raise RowDecodeError(f"{what}: the items cell does not parse: {e.reason}") from e
    return tuple(out)


def _span(data: bytes, span: tuple[int, int] | None) -> bytes:
    return b"" if span is None else data[span[0] : span[1]]


def _raw_items(data: bytes, skip: int) -> tuple[ItemBytes, ...] | None:
    """The V6 items through the raw view; None when it cannot vouch for the bytes (then parse)."""
    try:
        raw: Any = RawRecordStreamFile.FromString(memoryview(data)[skip:])
    except DecodeError:
        return None
    if raw.ByteSize() != len(data) - skip:
        return None
    return tuple((item.transaction, item.record) for item in raw.record_stream_items)


@dataclass(frozen=True, slots=True)
class FileCells:
    """Some cells of one file of an items row, as a cell read returned them."""

    kind: str
    header: bytes
    """Cell 0."""
    cells: dict[int, tuple[int, bytes]]
    """Cell number -> (index of its first item, its bytes)."""

    def items(self, number: int, what: str) -> tuple[int, tuple[ItemBytes, ...]]:
        """(index of the first item, the items) of cell ``number``."""
        if number == HEADER_CELL:
            return 0, first_cell_item_bytes(self.kind, self.header, what)
        found = self.cells.get(number)
        if found is None:
            raise RowDecodeError(f"{what}: no items cell {number}")
        first, data = found
        return first, cell_item_bytes(self.kind, self.header, data, what)


def cells_regex(wanted: Iterable[tuple[int, int]]) -> bytes:
    """The qualifier filter reading cell 0 and the cells ``(part, cell number)`` of items rows."""
    by_part: dict[int, set[int]] = {}
    for part, number in wanted:
        by_part.setdefault(part, {HEADER_CELL}).add(number)
    alternatives = []
    for part, numbers in sorted(by_part.items()):
        prefix = part_qualifier(part, b"")
        digits = b"|".join(b"%06d" % n for n in sorted(numbers))
        kinds = b"|".join((s.ITEMS_FILE_KIND, s.ITEMS_LIST_KIND, s.ITEMS_BLOCK_KIND))
        alternatives.append(prefix + b"(?:" + kinds + b")/(?:" + digits + b")/")
    return b"^(?:" + b"|".join(alternatives) + b")[0-9]{8}$"


def decode_items_cells(row: StoredRow) -> dict[int, FileCells]:
    """The cells a :func:`cells_regex` read returned, by file part."""
    out: dict[int, FileCells] = {}
    second = second_part_row(row)
    for part, part_row in ((0, first_part_row(row)), (1, second)):
        if part_row is None or not part_row.cells:
            continue
        kinds: set[bytes] = set()
        header: bytes | None = None
        stored: dict[int, tuple[int, bytes]] = {}
        for cell in part_row.family(s.ITEMS_FAMILY):
            qualifier = parse_items_qualifier(cell.qualifier)
            if qualifier.first_index is None:
                raise RowDecodeError(f"items cell {cell.qualifier!r}: no first item index")
            kinds.add(qualifier.kind)
            if qualifier.number == HEADER_CELL:
                header = decode_value(cell.value)
            else:
                stored[qualifier.number] = (qualifier.first_index, cell.value)
        if len(kinds) != 1 or header is None:
            raise RowDecodeError(f"items cells of part {part}: expected one kind and cell 0, got {sorted(kinds)}")
        cells = {number: (first, decode_value(value, header)) for number, (first, value) in stored.items()}
        out[part] = FileCells(kinds.pop().decode("ascii"), header, cells)
    return out
