"""Sidecar files: a bare ``SidecarFile`` protobuf (already decompressed here).

Each ``TransactionSidecarRecord`` is kept as its exact bytes; upb supplies its consensus time and
which of the ``sidecar_records`` oneof is set.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import CorruptFileError, FileNameError
from hedera_history.formats.names import parse_stream_file_name
from hedera_history.formats.parsed_files import SidecarFile, SidecarRecord, SidecarType
from hedera_history.formats.wire import length_delimited, repeated_spans

_RECORDS_FIELD = 1
_TYPE_OF_ONEOF = {
    "state_changes": SidecarType.CONTRACT_STATE_CHANGE,
    "actions": SidecarType.CONTRACT_ACTION,
    "bytecode": SidecarType.CONTRACT_BYTECODE,
}


def sidecar_id_from_name(name: str) -> int:
    """The ``NN`` of ``<time>_NN.rcd.gz``; any other name is a :class:`FileNameError`."""
    parsed = parse_stream_file_name(name)
    if parsed.sidecar_id is None:
        raise FileNameError(
            f"sidecar id: expected a name ending in _NN.rcd.gz but got {parsed.kind.value} name", file=name
        )
    return parsed.sidecar_id


def parse_sidecar_content(content: bytes, name: str, *, id: int | None = None, size: int | None = None) -> SidecarFile:
    """Parse decompressed sidecar bytes; ``size`` is the stored (compressed) size."""
    if id is None:
        id = sidecar_id_from_name(name)
    try:
        message = hapi.SidecarFile.FromString(content)
    except DecodeError as e:
        raise CorruptFileError(f"SidecarFile protobuf does not parse: {e}", file=name) from e
    spans = repeated_spans(content, 0, len(content), _RECORDS_FIELD, field="sidecar_records", name=name)
    parsed = message.sidecar_records
    if len(spans) != len(parsed):
        raise CorruptFileError(f"field sidecar_records: expected {len(parsed)} records but got {len(spans)}", file=name)
    records: list[SidecarRecord] = []
    for index, (start, end) in enumerate(spans):
        record = parsed[index]
        if not record.HasField("consensus_timestamp"):
            raise CorruptFileError(
                f"field sidecar_records[{index}].consensus_timestamp: expected a value but got none",
                file=name,
            )
        timestamp = record.consensus_timestamp
        kind = _TYPE_OF_ONEOF.get(record.WhichOneof("sidecar_records") or "", SidecarType.UNKNOWN)
        records.append(SidecarRecord(timestamp.seconds * 1_000_000_000 + timestamp.nanos, kind, content[start:end]))
    return SidecarFile(
        name=name,
        id=id,
        hash=hashlib.sha384(content).digest(),
        records=tuple(records),
        size=len(content) if size is None else size,
    )


def write_sidecar_file(records: Iterable[bytes]) -> bytes:
    """Decompressed ``SidecarFile`` bytes of serialised ``TransactionSidecarRecord``s."""
    return b"".join(length_delimited(_RECORDS_FIELD, record) for record in records)
