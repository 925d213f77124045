"""An item range as a message: what a store call needs to build the range's rows (``rows.range_rows``).

Key ``range/<block row key>/<first index, 8 digits>``. Value layout (varints unsigned LEB128)::

    byte  layout (1)
    varint block number, varint part + 1 (0: not a duplicate block), varint cell timestamp micros
    varint index of the first item
    varint cell count, per cell: varint its first item's index less the previous cell's
    varint item count, per item: varint consensus ns, varint len + transaction, varint len + record

Only what the signed record file determines goes in, so every producer encodes a range to the same
bytes; decoding refuses an unknown layout, a key that does not name the content, and trailing or
missing bytes, with a :class:`MessageFormatError`.
"""

from __future__ import annotations

from hedera_history.errors import MessageFormatError, RowDecodeError
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.store.keys import row_key_for_block
from hedera_history.store.row_codec import SEPARATOR, ByteReader, encode_varint
from hedera_history.store.rows import ItemRange

RANGE_PREFIX = "range"
RANGE_LAYOUT = 1


def range_key(item_range: ItemRange) -> str:
    block_key = row_key_for_block(item_range.block_number).decode("ascii")
    return f"{RANGE_PREFIX}{SEPARATOR}{block_key}{SEPARATOR}{item_range.first_index:08d}"


def is_range_key(key: str) -> bool:
    return key.startswith(RANGE_PREFIX + SEPARATOR)


def encode_item_range(item_range: ItemRange) -> bytes:
    part = 0 if item_range.part is None else item_range.part + 1
    parts = [
        bytes([RANGE_LAYOUT]),
        encode_varint(item_range.block_number),
        encode_varint(part),
        encode_varint(item_range.timestamp_micros),
        encode_varint(item_range.first_index),
        encode_varint(len(item_range.cell_starts)),
    ]
    previous = 0
    for start in item_range.cell_starts:
        parts.append(encode_varint(start - previous))
        previous = start
    parts.append(encode_varint(len(item_range.items)))
    for item in item_range.items:
        parts.append(encode_varint(item.consensus_ns))
        parts.append(encode_varint(len(item.transaction_bytes)))
        parts.append(item.transaction_bytes)
        parts.append(encode_varint(len(item.record_bytes)))
        parts.append(item.record_bytes)
    return b"".join(parts)


def decode_item_range(key: str, value: bytes) -> ItemRange:
    """The range a message carries; MessageFormatError names what is wrong."""
    try:
        item_range = _decode(key, value)
    except RowDecodeError as e:
        raise MessageFormatError(str(e)) from e
    if range_key(item_range) != key:
        raise MessageFormatError(f"range message {key[:100]!r} carries the range {range_key(item_range)!r}")
    return item_range


def _decode(key: str, value: bytes) -> ItemRange:
    reader = ByteReader(value, f"range message {key[:100]!r}")
    layout = reader.byte()
    if layout != RANGE_LAYOUT:
        raise MessageFormatError(f"range message {key[:100]!r}: unknown layout {layout}")
    block_number = reader.varint()
    part = reader.varint()
    timestamp = reader.varint()
    first_index = reader.varint()
    starts: list[int] = []
    start = 0
    for _ in range(reader.varint()):
        start += reader.varint()
        starts.append(start)
    items: list[RecordItem] = []
    for _ in range(reader.varint()):
        consensus = reader.varint()
        transaction = reader.sized()
        items.append(RecordItem(transaction, reader.sized(), consensus))
    if not reader.at_end:
        raise MessageFormatError(f"range message {key[:100]!r}: {reader.remaining} bytes after the last item")
    return ItemRange(block_number, None if part == 0 else part - 1, timestamp, tuple(starts), first_index, tuple(items))
