"""One entry point per kind of stream file: the version header picks the reader.

Record files: a gzip magic means V6 (decompressed first, bounded); otherwise the leading int32
is the version (1, 2, 5, or 6 uncompressed). Sidecars are gzip too. Signature files start with
one byte: 4 (V2), 5 or 6. :func:`inspect_file` renders any of the three as a JSON-ready dict.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

from google.protobuf import json_format
from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import (
    DecompressionError,
    FileNameError,
    FormatError,
    TruncatedFileError,
    UnsupportedVersionError,
)
from hedera_history.formats.compression import DEFAULT_MAX_DECOMPRESSED_BYTES, GZIP_MAGIC, gunzip, is_gzip
from hedera_history.formats.hashing import hex_or_none
from hedera_history.formats.names import StreamFileKind, parse_stream_file_name
from hedera_history.formats.parsed_files import RecordFile, SidecarFile, SidecarRecord, SidecarType, SignatureFile
from hedera_history.formats.rebuild import file_hash_of
from hedera_history.formats.record_v2 import parse_record_v2
from hedera_history.formats.record_v5 import parse_record_v5
from hedera_history.formats.record_v6 import VERSION_PREFIX, parse_record_v6
from hedera_history.formats.sidecar import parse_sidecar_content, sidecar_id_from_name
from hedera_history.formats.signature import parse_signature
from hedera_history.formats.transactions import body_bytes

FileKind = Literal["record", "sidecar", "signature"]

_KIND_OF_NAME: dict[StreamFileKind, FileKind] = {
    StreamFileKind.RECORD: "record",
    StreamFileKind.SIDECAR: "sidecar",
    StreamFileKind.SIGNATURE: "signature",
}


@contextmanager
def _naming(node: str | None) -> Iterator[None]:
    """Name the node in format errors raised inside (readers only know the file)."""
    try:
        yield
    except FormatError as e:
        if node is None or e.node is not None:
            raise
        raise type(e)(e.reason, file=e.file, node=node) from e


def _limit(max_decompressed: int | None) -> int:
    """The caller's decompression limit; None (a caller with no settings at hand) is the default's."""
    return DEFAULT_MAX_DECOMPRESSED_BYTES if max_decompressed is None else max_decompressed


def _content(data: bytes, name: str, max_decompressed: int | None) -> bytes:
    if is_gzip(data):
        return gunzip(data, name, limit=_limit(max_decompressed))
    if name.endswith(".gz"):
        raise DecompressionError(
            f"field gzip magic: expected {GZIP_MAGIC.hex()} (the name ends in .gz) "
            f"but got {data[:2].hex() or '(empty)'}",
            file=name,
        )
    return data


def parse_record_file(
    data: bytes, name: str, *, max_decompressed: int | None = None, node: str | None = None
) -> RecordFile:
    """A record file of any version, with every hash computed (none judged)."""
    with _naming(node):
        content, version = _record_content(data, name, max_decompressed)
        if version == 6:
            return parse_record_v6(content, name, size=len(data))
        if version == 5:
            return parse_record_v5(content, name)
        return parse_record_v2(content, name)


def record_file_hash(data: bytes, name: str, *, max_decompressed: int | None = None, node: str | None = None) -> bytes:
    """Only the file hash of a record file (what nodes sign): the bytes unpacked and hashed, its
    items not read. Enough to tell a copy of an already verified file from a different one, at
    about a third of a parse."""
    with _naming(node):
        content, version = _record_content(data, name, max_decompressed)
        return file_hash_of(version, content)


def _record_content(data: bytes, name: str, max_decompressed: int | None) -> tuple[bytes, int]:
    """The signed bytes of a record file (V6: decompressed) and the version they state."""
    content = _content(data, name, max_decompressed)
    if len(content) < 4:
        raise TruncatedFileError(f"field version: expected 4 bytes but only {len(content)} remain", file=name)
    version = int.from_bytes(content[:4], "big", signed=True)
    if content is not data and version != 6:
        raise UnsupportedVersionError(f"field version: expected 6 in a gzip record file but got {version}", file=name)
    if version not in (1, 2, 5, 6):
        raise UnsupportedVersionError(f"field version: expected 1, 2, 5 or 6 but got {version}", file=name)
    return content, version


def parse_sidecar_file(
    data: bytes,
    name: str,
    *,
    id: int | None = None,
    max_decompressed: int | None = None,
    node: str | None = None,
) -> SidecarFile:
    """A sidecar file; ``id`` defaults to the ``_NN`` of its name."""
    with _naming(node):
        content = _content(data, name, max_decompressed)
        return parse_sidecar_content(content, name, id=id, size=len(data))


def parse_signature_file(data: bytes, name: str, *, node: str | None = None) -> SignatureFile:
    """A signature file of version 2, 5 or 6."""
    with _naming(node):
        return parse_signature(data, name)


def detect_kind(data: bytes, name: str, *, max_decompressed: int | None = None) -> FileKind:
    """Which kind of stream file this is: by its name, else by its first bytes."""
    try:
        return _KIND_OF_NAME[parse_stream_file_name(name).kind]
    except FileNameError:
        pass
    if data[:1] in (b"\x04", b"\x05", b"\x06"):
        return "signature"
    if data[:4] in (b"\x00\x00\x00\x01", b"\x00\x00\x00\x02", b"\x00\x00\x00\x05", VERSION_PREFIX):
        return "record"
    if is_gzip(data):
        return "record" if gunzip(data, name, limit=_limit(max_decompressed))[:4] == VERSION_PREFIX else "sidecar"
    raise UnsupportedVersionError(
        f"kind of file: expected a record, sidecar or signature file but got leading bytes {data[:4].hex()}",
        file=name,
    )


def inspect_file(data: bytes, name: str, *, max_decompressed: int | None = None) -> dict[str, Any]:
    """Any stream file as a JSON-ready dict: hex for hashes, decoded protobufs for items."""
    kind = detect_kind(data, name, max_decompressed=max_decompressed)
    if kind == "signature":
        return signature_to_dict(parse_signature_file(data, name))
    if kind == "sidecar":
        try:
            sidecar_id = sidecar_id_from_name(name)
        except FileNameError:
            sidecar_id = 0  # the name does not say; inspection goes on without it
        return sidecar_to_dict(parse_sidecar_file(data, name, id=sidecar_id, max_decompressed=max_decompressed))
    return record_to_dict(parse_record_file(data, name, max_decompressed=max_decompressed))


def record_to_dict(record: RecordFile) -> dict[str, Any]:
    return {
        "kind": "record",
        "name": record.name,
        "version": record.version,
        "size": record.size,
        "hapi_version": ".".join(str(part) for part in record.hapi_version),
        "block_number": record.block_number,
        "object_stream_version": record.object_stream_version,
        "item_count": len(record.items),
        "consensus_start": record.consensus_start,
        "consensus_end": record.consensus_end,
        "file_hash": record.file_hash.hex(),
        "metadata_hash": hex_or_none(record.metadata_hash),
        "previous_file_hash": hex_or_none(record.previous_file_hash),
        "start_running_hash": hex_or_none(record.start_running_hash),
        "end_running_hash": hex_or_none(record.end_running_hash),
        "computed_end_running_hash": hex_or_none(record.computed_end_running_hash),
        "sidecars": [
            {"id": s.id, "types": [_sidecar_type_name(t) for t in s.types], "hash": s.hash.hex()}
            for s in record.sidecars
        ],
        "items": [
            {
                "consensus_ns": item.consensus_ns,
                "transaction": _transaction_to_dict(item.transaction_bytes),
                "record": json_format.MessageToDict(hapi.TransactionRecord.FromString(item.record_bytes)),
            }
            for item in record.items
        ],
    }


def _sidecar_type_name(value: int) -> str:
    try:
        return SidecarType(value).name
    except ValueError:
        return str(value)


def _transaction_to_dict(transaction_bytes: bytes) -> dict[str, Any]:
    transaction = hapi.Transaction.FromString(transaction_bytes)
    shown = json_format.MessageToDict(transaction)
    # The signed body travels as bytes; decode it so the reader sees what was done.
    try:
        serialised = body_bytes(transaction)
        if serialised:
            shown["decodedBody"] = json_format.MessageToDict(hapi.TransactionBody.FromString(serialised))
    except DecodeError as e:
        shown["decodedBodyError"] = str(e)
    return shown


def sidecar_to_dict(sidecar: SidecarFile) -> dict[str, Any]:
    return {
        "kind": "sidecar",
        "name": sidecar.name,
        "id": sidecar.id,
        "size": sidecar.size,
        "hash": sidecar.hash.hex(),
        "record_count": len(sidecar.records),
        "records": [_sidecar_record_to_dict(r) for r in sidecar.records],
    }


def _sidecar_record_to_dict(record: SidecarRecord) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "consensus_ns": record.consensus_ns,
        "type": record.type.name,
        "record": json_format.MessageToDict(hapi.TransactionSidecarRecord.FromString(record.raw)),
    }
    if record.type is SidecarType.UNKNOWN:
        shown["raw"] = record.raw.hex()  # a type newer than these protobufs: its payload is only here
    return shown


def signature_to_dict(signature: SignatureFile) -> dict[str, Any]:
    return {
        "kind": "signature",
        "name": signature.name,
        "version": signature.version,
        "file_hash": signature.file_hash.hex(),
        "file_signature": signature.file_signature.hex(),
        "metadata_hash": hex_or_none(signature.metadata_hash),
        "metadata_signature": hex_or_none(signature.metadata_signature),
    }
