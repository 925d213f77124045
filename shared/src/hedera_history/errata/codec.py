"""Errata files and bodies: bytes in, values out, and back. Sans-I/O; no judgement of signatures.

A ``RecordStreamItem`` is taken apart on the wire (``formats.wire``) so its transaction (field 1)
and record (field 2) keep their exact bytes, as in a V6 record file.
"""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errata.errata_file import (
    ERRATA_FILE_VERSION,
    CouncilSignature,
    ErrataBody,
    ErrataFile,
)
from hedera_history.errors import ErrataFormatError, FormatError
from hedera_history.formats.hashing import sha384
from hedera_history.formats.items import parse_record_item
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.formats.record_v6 import record_stream_item
from hedera_history.formats.wire import singular_spans
from hedera_history.proto_gen import errata_pb2

NS_PER_SECOND = 1_000_000_000
_ITEM_FIELDS = ((1, "transaction"), (2, "record"))


def parse_errata_file(data: bytes, name: str) -> ErrataFile:
    """An ``ErrataFile``; ErrataFormatError names the field that is wrong."""
    try:
        message = errata_pb2.ErrataFile.FromString(data)
    except DecodeError as e:
        raise ErrataFormatError(f"ErrataFile protobuf does not parse: {e}", file=name) from e
    if message.version != ERRATA_FILE_VERSION:
        raise ErrataFormatError(f"field version: expected {ERRATA_FILE_VERSION} but got {message.version}", file=name)
    if not message.HasField("consensus_time"):
        raise ErrataFormatError("field consensus_time: expected a value but got none", file=name)
    consensus_ns = _ns(message.consensus_time)
    if not message.body:
        raise ErrataFormatError("field body: expected a RecordStreamErrataTransactionBody but got none", file=name)
    body = parse_errata_body(message.body, name, errata_ns=consensus_ns)
    if body.consensus_time_of_error >= consensus_ns:
        raise ErrataFormatError(
            f"field consensus_time: the errata's time {consensus_ns} must come after its time of error "
            f"{body.consensus_time_of_error}",
            file=name,
        )
    signatures = tuple(CouncilSignature(s.public_key, s.signature) for s in message.council_signatures)
    return ErrataFile(
        name=name,
        consensus_ns=consensus_ns,
        body_bytes=message.body,
        body=body,
        council_signatures=signatures,
        file_hash=sha384(data),
        body_hash=sha384(message.body),
        data=data,
    )


def parse_errata_body(data: bytes, name: str, *, errata_ns: int) -> ErrataBody:
    """A ``RecordStreamErrataTransactionBody``; compensating items take ``errata_ns`` as their time."""
    try:
        message = errata_pb2.RecordStreamErrataTransactionBody.FromString(data)
    except DecodeError as e:
        raise ErrataFormatError(f"body: RecordStreamErrataTransactionBody does not parse: {e}", file=name) from e
    if not message.HasField("consensus_time_of_error"):
        raise ErrataFormatError("field body.consensus_time_of_error: expected a value but got none", file=name)
    time_of_error = _ns(message.consensus_time_of_error)
    correct = None
    if message.HasField("correct_item"):
        correct = parse_record_stream_item(message.correct_item, "body.correct_item", name)
        if correct.consensus_ns != time_of_error:
            raise ErrataFormatError(
                f"field body.correct_item.record.consensusTimestamp: expected the time of error {time_of_error} "
                f"but got {correct.consensus_ns}",
                file=name,
            )
    compensating = tuple(
        parse_compensating_item(raw, f"body.compensating_items[{i}]", name, at_ns=errata_ns)
        for i, raw in enumerate(message.compensating_items)
    )
    return ErrataBody(time_of_error, correct, compensating)


def parse_record_stream_item(data: bytes, what: str, name: str) -> RecordItem:
    """A serialised ``RecordStreamItem`` whose record carries its consensus time."""
    transaction, record = _item_fields(data, what, name)
    try:
        return parse_record_item(transaction, record, what, name)
    except FormatError as e:
        raise ErrataFormatError(e.reason, file=name) from e


def parse_compensating_item(data: bytes, what: str, name: str, *, at_ns: int) -> RecordItem:
    """A synthetic ``RecordStreamItem``: it takes effect at ``at_ns`` (the errata's time), whatever
    its own record says; only its record's transfer list is used."""
    transaction, record = _item_fields(data, what, name)
    try:
        hapi.TransactionRecord.FromString(record)
    except DecodeError as e:
        raise ErrataFormatError(f"field {what}.record: TransactionRecord does not parse: {e}", file=name) from e
    return RecordItem(transaction, record, at_ns)


def _item_fields(data: bytes, what: str, name: str) -> tuple[bytes, bytes]:
    try:
        transaction_span, record_span = singular_spans(data, 0, len(data), _ITEM_FIELDS, what=what, name=name)
    except FormatError as e:
        raise ErrataFormatError(e.reason, file=name) from e
    if record_span is None:
        raise ErrataFormatError(f"field {what}.record: expected a TransactionRecord but got none", file=name)
    transaction = b"" if transaction_span is None else data[transaction_span[0] : transaction_span[1]]
    return transaction, data[record_span[0] : record_span[1]]


def record_stream_item_bytes(item: RecordItem) -> bytes:
    """A ``RecordStreamItem`` holding exactly the item's two serialised messages."""
    return record_stream_item(item.transaction_bytes, item.record_bytes)


def encode_errata_body(
    time_of_error_ns: int, correct_item: bytes | None, compensating_items: Sequence[bytes] = ()
) -> bytes:
    """A serialised ``RecordStreamErrataTransactionBody`` (items as serialised ``RecordStreamItem``)."""
    message = errata_pb2.RecordStreamErrataTransactionBody(
        consensus_time_of_error=_timestamp(time_of_error_ns), compensating_items=list(compensating_items)
    )
    if correct_item is not None:
        message.correct_item = correct_item
    data: bytes = message.SerializeToString(deterministic=True)
    return data


def encode_errata_file(consensus_ns: int, body: bytes, signatures: Sequence[CouncilSignature] = ()) -> bytes:
    """A serialised ``ErrataFile``."""
    message = errata_pb2.ErrataFile(
        version=ERRATA_FILE_VERSION,
        consensus_time=_timestamp(consensus_ns),
        body=body,
        council_signatures=[
            errata_pb2.CouncilSignature(public_key=s.public_key, signature=s.signature) for s in signatures
        ],
    )
    data: bytes = message.SerializeToString(deterministic=True)
    return data


def _timestamp(ns: int) -> errata_pb2.Timestamp:
    seconds, nanos = divmod(ns, NS_PER_SECOND)
    return errata_pb2.Timestamp(seconds=seconds, nanos=nanos)


def _ns(stamp: errata_pb2.Timestamp) -> int:
    return int(stamp.seconds) * NS_PER_SECOND + int(stamp.nanos)
