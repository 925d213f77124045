"""Record items of the pre-V6 formats, where transaction and record are separate byte strings."""

from __future__ import annotations

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import CorruptFileError
from hedera_history.formats.parsed_files import RecordItem


def parse_record_item(transaction_bytes: bytes, record_bytes: bytes, field: str, name: str) -> RecordItem:
    """Both must parse as protobuf and the record must carry its consensus time."""
    try:
        hapi.Transaction.FromString(transaction_bytes)
        record = hapi.TransactionRecord.FromString(record_bytes)
    except DecodeError as e:
        raise CorruptFileError(f"field {field}: protobuf does not parse: {e}", file=name) from e
    if not record.HasField("consensusTimestamp"):
        raise CorruptFileError(f"field {field}.record.consensusTimestamp: expected a value but got none", file=name)
    timestamp = record.consensusTimestamp
    return RecordItem(transaction_bytes, record_bytes, timestamp.seconds * 1_000_000_000 + timestamp.nanos)
