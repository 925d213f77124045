"""Read paths of the topic index (``store.topic_index``): a topic's messages by sequence number. As
on every read path, only complete blocks count and rows an errata removed do not exist.

A page in order is one ReadRows of the topic's ``topic/`` range from a sequence number, then the
transactions its pointers name (one request). Sequence numbers run 1, 2, 3, ... with no gap within a
topic, so a page newest first is the ascending range of the ``limit`` numbers below its top, read
the same way and reversed; its top, when not given, is found by probing for the newest number
(a one-row, key-only read per step of a binary search).
"""

from __future__ import annotations

from dataclasses import dataclass

from hedera_history.errors import RowDecodeError
from hedera_history.store import schema as s
from hedera_history.store.decode import AccountHistoryEntry, StoredTransaction
from hedera_history.store.gateway import KeyRange, RowQuery, StoredRow
from hedera_history.store.keys import MAX_U64
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import index_rows, pointed_value
from hedera_history.store.topic_index import decode_topic_message_key, topic_message_range

MAX_SEQUENCE = 2**63 - 1


@dataclass(frozen=True, slots=True)
class TopicMessage:
    sequence_number: int
    transaction: StoredTransaction


@dataclass(frozen=True, slots=True)
class TopicMessagePage:
    messages: tuple[TopicMessage, ...]
    """In the order asked."""
    more: bool
    """The range may hold more messages past the last one."""
    errors: tuple[RowDecodeError, ...] = ()


def topic_messages(
    reader: HistoryReader, topic: str, low: int, high: int | None, limit: int, *, descending: bool = False
) -> TopicMessagePage:
    """Up to ``limit`` messages of ``topic`` with sequence numbers in ``[low, high]`` (None: no end)."""
    if descending:
        top = newest_sequence_number(reader, topic, low, high)
        if top is None:
            return TopicMessagePage((), False)
        bottom = max(low, top - limit + 1)
        page = _read(reader, topic, bottom, top, limit)
        return TopicMessagePage(tuple(reversed(page.messages)), bottom > low, page.errors)
    return _read(reader, topic, low, high, limit)


def newest_sequence_number(reader: HistoryReader, topic: str, low: int, high: int | None) -> int | None:
    """The highest sequence number in ``[low, high]`` with a row (written; its block may be incomplete)."""
    ceiling = MAX_SEQUENCE if high is None else high
    if not _any_from(reader, topic, low, ceiling):
        return None
    found, step = low, 1
    while found + step <= ceiling and _any_from(reader, topic, found + step, ceiling):
        found, step = found + step, step * 2
    top = min(ceiling, found + step - 1)
    while found < top:  # the answer is in [found, top]
        middle = (found + top + 1) // 2
        if _any_from(reader, topic, middle, ceiling):
            found = middle
        else:
            top = middle - 1
    return found


def first_sequence_at(reader: HistoryReader, topic: str, consensus_ns: int, low: int, high: int | None) -> int:
    """The lowest sequence number in ``[low, high]`` submitted at or after ``consensus_ns`` (messages
    are numbered in consensus order), or one past the newest when none was: a binary search over
    one-row, key-only reads (the key holds the consensus time)."""
    top = newest_sequence_number(reader, topic, low, high)
    if top is None:
        return low
    found_low, found_high = low, top + 1  # the answer is in [found_low, found_high]
    while found_low < found_high:
        middle = (found_low + found_high) // 2
        first = _first_from(reader, topic, middle, top)
        if first is None or first[1] >= consensus_ns:
            found_high = middle  # no row between middle and the first found: the same range start
        else:
            found_low = first[0] + 1
    return found_low


def _any_from(reader: HistoryReader, topic: str, low: int, high: int) -> bool:
    return _first_from(reader, topic, low, high) is not None


def _first_from(reader: HistoryReader, topic: str, low: int, high: int) -> tuple[int, int] | None:
    """(sequence number, consensus ns) of the first row in ``[low, high]``."""
    start, end = topic_message_range(topic, low, min(high, MAX_U64 - 1))
    query = RowQuery(ranges=(KeyRange(start, end),), key_only=True, limit=1)
    for row in reader.gateway.read_rows(s.ACCOUNT_HISTORY, query):
        _, sequence, consensus_ns = decode_topic_message_key(row.key)
        return sequence, consensus_ns
    return None


def _read(reader: HistoryReader, topic: str, low: int, high: int | None, limit: int) -> TopicMessagePage:
    entries, read, errors = index_rows(reader, topic_message_range(topic, low, high), limit, _decode_message_row)
    transactions, read_errors = reader.transactions([entry for _, entry in entries])
    by_time = {t.consensus_ns: t for t in transactions}
    messages = tuple(
        TopicMessage(sequence, by_time[entry.consensus_ns])
        for sequence, entry in entries
        if entry.consensus_ns in by_time
    )
    return TopicMessagePage(messages, read == limit, (*errors, *read_errors))


def _decode_message_row(row: StoredRow) -> tuple[int, AccountHistoryEntry] | None:
    _, sequence, consensus_ns = decode_topic_message_key(row.key)
    return pointed_value(row, sequence, consensus_ns)
