"""Reading a generated stream back with nothing but protobuf, gzip and the hash recipes."""

from __future__ import annotations

import gzip
from dataclasses import dataclass

from hedera_history import hapi
from hedera_history.gen import GeneratedStream


@dataclass(frozen=True)
class ParsedItem:
    transaction_bytes: bytes
    record_bytes: bytes
    record: hapi.TransactionRecord


def record_file(stream: GeneratedStream, period: int, node: int = 0) -> hapi.RecordStreamFile:
    data = gzip.decompress(stream.objects[stream.record_path(node, period)])
    assert data[:4] == b"\x00\x00\x00\x06"
    return hapi.RecordStreamFile.FromString(data[4:])


def items(stream: GeneratedStream, period: int) -> list[ParsedItem]:
    """The period's items as the exact bytes that stand in the file (fields 1 and 2 of each item)."""
    parsed = []
    for item in record_file(stream, period).record_stream_items:
        parsed.append(ParsedItem(item.transaction.SerializeToString(), item.record.SerializeToString(), item.record))
    return parsed


def all_records(stream: GeneratedStream) -> list[hapi.TransactionRecord]:
    return [item.record for period in range(len(stream.periods)) for item in items(stream, period)]


def timestamp_ns(timestamp: hapi.Timestamp) -> int:
    return int(timestamp.seconds) * 1_000_000_000 + int(timestamp.nanos)


def consensus_ns(record: hapi.TransactionRecord) -> int:
    return timestamp_ns(record.consensusTimestamp)


def account(num: int) -> str:
    return f"0.0.{num}"
