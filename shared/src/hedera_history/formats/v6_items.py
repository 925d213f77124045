"""The items of a V6 record file, taken in whole-list passes: exact bytes, consensus times, items.

A file holds thousands of items, and a Python loop that touches each item's fields costs more than
upb's parse of all of them. Each step here is one pass of a C function over every item (``map``
with ``attrgetter``, ``object.__new__`` and slot setters), so no bytecode runs per item; the
running hash (``hashing.running_hash_over``) is the one recipe that must go item by item.

The raw view (``raw_view``) hands back each item's transaction and record exactly as they stand
in the file; encodings it cannot vouch for (a field given twice, a non-minimal length) are walked
field by field instead (``wire``).

Where the compiled core is built (``hedera_history.speedups``), one C walk over the file gives the
bytes and the times of a regularly shaped file at once; anything else still goes the Python way,
which names the fault.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import fields
from itertools import repeat
from operator import add, attrgetter, mul
from typing import Any

from google.protobuf.message import DecodeError

from hedera_history.errors import CorruptFileError
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.formats.raw_view import RawRecordStreamFile
from hedera_history.formats.wire import repeated_spans, singular_spans
from hedera_history.speedups import record_items as compiled_record_items
from hedera_history.speedups import v6_item_lists as compiled_item_lists

ItemLists = tuple[list[bytes], list[bytes]]
"""Every item's transaction bytes, and every item's record bytes, in file order."""
ItemColumns = tuple[list[bytes], list[bytes], list[int]]
"""Every item's transaction bytes, record bytes and consensus time (ns), in file order."""

NS_PER_SECOND = 1_000_000_000
_ITEMS_FIELD = 3
_ITEM_FIELDS = ((1, "transaction"), (2, "record"))
_transaction_of = attrgetter("transaction")
_record_of = attrgetter("record")
_timestamp_of = attrgetter("record.consensusTimestamp")
_seconds_of = attrgetter("seconds")
_nanos_of = attrgetter("nanos")


def item_columns(content: bytes, parsed_items: Sequence[Any], name: str) -> ItemColumns:
    """Transactions, records and consensus times of every item of decompressed V6 ``content``
    (version included), whose upb parse ``parsed_items`` is: the compiled walk when it vouches for
    the file, else ``python_item_columns``."""
    walked = None if compiled_item_lists is None else compiled_item_lists(content)
    if walked is None:
        return python_item_columns(content, parsed_items, name)
    _check_count(parsed_items, walked[0], name)
    return walked


def python_item_columns(content: bytes, parsed_items: Sequence[Any], name: str) -> ItemColumns:
    """``item_columns`` without the compiled core: any valid encoding, and the first fault named."""
    transactions, records = item_bytes(content, name)
    _check_count(parsed_items, transactions, name)
    return transactions, records, consensus_times(parsed_items, transactions, records, name)


def _check_count(parsed_items: Sequence[Any], transactions: list[bytes], name: str) -> None:
    if len(transactions) != len(parsed_items):
        raise CorruptFileError(
            f"field record_stream_items: expected {len(parsed_items)} items but got {len(transactions)}", file=name
        )


def item_bytes(content: bytes, name: str) -> ItemLists:
    """Transactions and records of every item of decompressed V6 ``content`` (version included)."""
    raw = raw_item_bytes(content, name)
    return walked_item_bytes(content, name) if raw is None else raw


def raw_item_bytes(content: bytes, name: str) -> ItemLists | None:
    """Through the raw view; None when it dropped or re-encoded anything (then walk the bytes)."""
    try:
        raw: Any = RawRecordStreamFile.FromString(memoryview(content)[4:])
    except DecodeError as e:
        raise CorruptFileError(f"RecordStreamFile protobuf does not parse: {e}", file=name) from e
    if raw.ByteSize() != len(content) - 4:
        return None
    items = raw.record_stream_items
    return list(map(_transaction_of, items)), list(map(_record_of, items))


def walked_item_bytes(content: bytes, name: str) -> ItemLists:
    """By walking the wire format: any valid encoding."""
    transactions: list[bytes] = []
    records: list[bytes] = []
    spans = repeated_spans(content, 4, len(content), _ITEMS_FIELD, field="record_stream_items", name=name)
    for index, (start, end) in enumerate(spans):
        what = f"record_stream_items[{index}]"
        transaction, record = singular_spans(content, start, end, _ITEM_FIELDS, what=what, name=name)
        if transaction is None or record is None:
            missing = "transaction" if transaction is None else "record"
            raise CorruptFileError(f"field {what}.{missing}: expected a value but got none", file=name)
        transactions.append(content[transaction[0] : transaction[1]])
        records.append(content[record[0] : record[1]])
    return transactions, records


def consensus_times(
    parsed_items: Sequence[Any], transactions: list[bytes], records: list[bytes], name: str
) -> list[int]:
    """Each item's consensus time (ns) from upb's parse of the file; CorruptFileError for the first
    item with an empty transaction or record or a record without a consensus time."""
    stamps = list(map(_timestamp_of, parsed_items))
    seconds = list(map(_seconds_of, stamps))
    if not all(transactions) or not all(records) or 0 in seconds:
        _refuse_first_incomplete(parsed_items, transactions, records, seconds, name)
    return list(map(add, map(mul, seconds, repeat(NS_PER_SECOND)), map(_nanos_of, stamps)))


def _refuse_first_incomplete(
    parsed_items: Sequence[Any], transactions: list[bytes], records: list[bytes], seconds: list[int], name: str
) -> None:
    """Raise for the first incomplete item, in the order a reader meets its faults."""
    for index, (transaction, record, second) in enumerate(zip(transactions, records, seconds, strict=True)):
        what = f"record_stream_items[{index}]"
        if not transaction or not record:
            missing = "transaction" if not transaction else "record"
            raise CorruptFileError(f"field {what}.{missing}: expected a value but got none", file=name)
        if not second and not parsed_items[index].record.HasField("consensusTimestamp"):
            raise CorruptFileError(f"field {what}.record.consensusTimestamp: expected a value but got none", file=name)


def _items_maker() -> Callable[[list[bytes], list[bytes], list[int]], tuple[RecordItem, ...]]:
    """Builds :class:`RecordItem` values without running ``__init__`` per item: through the
    compiled core (which leaves them out of the cyclic garbage collector), else in four C passes:
    bare instances, then each slot filled through its descriptor (what the frozen dataclass
    ``__init__`` does by name, one item at a time). Used only while the class has exactly these
    three slot fields and no ``__post_init__``; otherwise the ordinary constructor."""
    names = [f.name for f in fields(RecordItem)]
    if names != ["transaction_bytes", "record_bytes", "consensus_ns"] or hasattr(RecordItem, "__post_init__"):
        return lambda transactions, records, times: tuple(map(RecordItem, transactions, records, times))
    slots = vars(RecordItem)
    descriptors = (slots[names[0]], slots[names[1]], slots[names[2]])
    setters = [descriptor.__set__ for descriptor in descriptors]
    new = object.__new__

    def make(transactions: list[bytes], records: list[bytes], times: list[int]) -> tuple[RecordItem, ...]:
        items = tuple(map(new, repeat(RecordItem, len(transactions))))
        columns: tuple[list[Any], ...] = (transactions, records, times)
        for setter, values in zip(setters, columns, strict=True):
            deque(map(setter, items, values), maxlen=0)
        return items

    if compiled_record_items is None:
        return make

    def make_compiled(transactions: list[bytes], records: list[bytes], times: list[int]) -> tuple[RecordItem, ...]:
        assert compiled_record_items is not None
        try:
            return compiled_record_items(RecordItem, descriptors, transactions, records, times)
        except TypeError:  # columns of other types (a walk over a bytearray): the Python passes take them
            return make(transactions, records, times)

    return make_compiled


record_items = _items_maker()
