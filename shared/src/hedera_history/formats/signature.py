"""Signature files V2, V5 and V6: the hashes a node signed and its RSA signatures.

- V2: ``byte 4 | 48-byte file hash | byte 3 | int32 length | signature``, nothing after.
- V5: ``byte 5 | int32 object stream signature version | hash object | signature object |
  hash object | signature object`` (file, then metadata). A signature object is ``class id
  13dc4b399b245c69 | int32 version 1 | int32 type 1 | int32 length | int32 checksum (101 -
  length) | signature``.
- V6: ``byte 6`` then a ``SignatureFile`` protobuf.
"""

from __future__ import annotations

import struct
from typing import Any

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import CorruptFileError, TruncatedFileError, UnsupportedVersionError
from hedera_history.formats.hashing import HASH_SIZE
from hedera_history.formats.parsed_files import SignatureFile
from hedera_history.formats.reader import ByteReader
from hedera_history.formats.record_v5 import hash_object, read_hash_object
from hedera_history.formats.record_v6 import SHA_384, hash_object_bytes

V2_HASH_MARKER = 4
V2_SIGNATURE_MARKER = 3
V5_MARKER = 5
V6_MARKER = 6
SIGNATURE_CLASS_ID = bytes.fromhex("13dc4b399b245c69")
SIGNATURE_CLASS_VERSION = 1
SHA_384_WITH_RSA = 1
# RSA-3072 signatures are 384 bytes; leave room for larger keys, refuse absurd lengths.
MAX_SIGNATURE_LENGTH = 1024
CHECKSUM_BASE = 101


def parse_signature_v2(data: bytes, name: str) -> SignatureFile:
    reader = ByteReader(data, name)
    reader.expect_byte("file hash marker", V2_HASH_MARKER)
    file_hash = reader.read_bytes(HASH_SIZE, "file hash")
    reader.expect_byte("signature marker", V2_SIGNATURE_MARKER)
    signature = reader.read_length_prefixed("signature", min_length=1, max_length=MAX_SIGNATURE_LENGTH)
    reader.expect_end()
    return SignatureFile(name=name, version=2, file_hash=file_hash, file_signature=signature)


def parse_signature_v5(data: bytes, name: str) -> SignatureFile:
    reader = ByteReader(data, name)
    reader.expect_byte("version", V5_MARKER)
    reader.read_int32("object stream signature version")
    file_hash = read_hash_object(reader, "file hash object")
    file_signature = _read_signature_object(reader, "file signature object")
    metadata_hash = read_hash_object(reader, "metadata hash object")
    metadata_signature = _read_signature_object(reader, "metadata signature object")
    reader.expect_end()
    return SignatureFile(
        name=name,
        version=5,
        file_hash=file_hash,
        file_signature=file_signature,
        metadata_hash=metadata_hash,
        metadata_signature=metadata_signature,
    )


def _read_signature_object(reader: ByteReader, what: str) -> bytes:
    reader.expect_bytes(f"{what} class id", SIGNATURE_CLASS_ID)
    reader.expect_int32(f"{what} class version", SIGNATURE_CLASS_VERSION)
    reader.expect_int32(f"{what} signature type", SHA_384_WITH_RSA)
    length = reader.read_int32(f"{what} length")
    if not 1 <= length <= MAX_SIGNATURE_LENGTH:
        raise reader.corrupt(f"field {what} length: expected 1..{MAX_SIGNATURE_LENGTH} but got {length}")
    reader.expect_int32(f"{what} checksum", CHECKSUM_BASE - length)
    return reader.read_bytes(length, f"{what} signature")


def parse_signature_v6(data: bytes, name: str) -> SignatureFile:
    if not data:
        raise TruncatedFileError("field version: expected 1 byte but only 0 remain", file=name)
    if data[0] != V6_MARKER:
        raise CorruptFileError(f"field version: expected {V6_MARKER} but got {data[0]}", file=name)
    try:
        message = hapi.SignatureFile.FromString(memoryview(data)[1:])
    except DecodeError as e:
        raise CorruptFileError(f"SignatureFile protobuf does not parse: {e}", file=name) from e
    file_hash, file_signature = _signature_object(message, "file_signature", name)
    metadata_hash, metadata_signature = _signature_object(message, "metadata_signature", name)
    return SignatureFile(
        name=name,
        version=6,
        file_hash=file_hash,
        file_signature=file_signature,
        metadata_hash=metadata_hash,
        metadata_signature=metadata_signature,
    )


def _signature_object(message: Any, field: str, name: str) -> tuple[bytes, bytes]:
    if not message.HasField(field):
        raise CorruptFileError(f"field {field}: expected a value but got none", file=name)
    signature_object = getattr(message, field)
    if signature_object.type != SHA_384_WITH_RSA:
        raise CorruptFileError(
            f"field {field}.type: expected {SHA_384_WITH_RSA} (SHA_384_WITH_RSA) but got {signature_object.type}",
            file=name,
        )
    signature: bytes = signature_object.signature
    if not 1 <= len(signature) <= MAX_SIGNATURE_LENGTH:
        raise CorruptFileError(
            f"field {field}.signature: expected 1..{MAX_SIGNATURE_LENGTH} bytes but got {len(signature)}",
            file=name,
        )
    if signature_object.length != len(signature):
        raise CorruptFileError(
            f"field {field}.length: expected {len(signature)} but got {signature_object.length}", file=name
        )
    if signature_object.checksum != CHECKSUM_BASE - len(signature):
        raise CorruptFileError(
            f"field {field}.checksum: expected {CHECKSUM_BASE - len(signature)} but got {signature_object.checksum}",
            file=name,
        )
    if not signature_object.HasField("hash_object"):
        raise CorruptFileError(f"field {field}.hash_object: expected a value but got none", file=name)
    return hash_object_bytes(signature_object.hash_object, f"{field}.hash_object", name), signature


_PARSERS = {V2_HASH_MARKER: parse_signature_v2, V5_MARKER: parse_signature_v5, V6_MARKER: parse_signature_v6}


def parse_signature(data: bytes, name: str) -> SignatureFile:
    """Any signature file, by its leading byte (4 for V2, 5, 6)."""
    if not data:
        raise TruncatedFileError("field version: expected 1 byte but only 0 remain", file=name)
    parser = _PARSERS.get(data[0])
    if parser is None:
        raise UnsupportedVersionError(
            f"field version: expected a signature file marker 4, 5 or 6 but got {data[0]}", file=name
        )
    return parser(data, name)


def write_signature_v2(file_hash: bytes, signature: bytes) -> bytes:
    """A V1/V2 signature file: the file hash and the node's signature over it."""
    return (
        bytes([V2_HASH_MARKER])
        + file_hash
        + bytes([V2_SIGNATURE_MARKER])
        + struct.pack(">i", len(signature))
        + signature
    )


def _signature_object_v5(signature: bytes) -> bytes:
    header = struct.pack(
        ">iiii", SIGNATURE_CLASS_VERSION, SHA_384_WITH_RSA, len(signature), CHECKSUM_BASE - len(signature)
    )
    return SIGNATURE_CLASS_ID + header + signature


def write_signature_v5(
    file_hash: bytes,
    file_signature: bytes,
    metadata_hash: bytes,
    metadata_signature: bytes,
    *,
    object_stream_signature_version: int = 1,
) -> bytes:
    return (
        bytes([V5_MARKER])
        + struct.pack(">i", object_stream_signature_version)
        + hash_object(file_hash)
        + _signature_object_v5(file_signature)
        + hash_object(metadata_hash)
        + _signature_object_v5(metadata_signature)
    )


def _fill_signature_object(target: Any, digest: bytes, signature: bytes) -> None:
    target.type = SHA_384_WITH_RSA
    target.length = len(signature)
    target.checksum = CHECKSUM_BASE - len(signature)
    target.signature = signature
    target.hash_object.algorithm = SHA_384
    target.hash_object.length = len(digest)
    target.hash_object.hash = digest


def write_signature_v6(
    file_hash: bytes, file_signature: bytes, metadata_hash: bytes, metadata_signature: bytes
) -> bytes:
    message = hapi.SignatureFile()
    _fill_signature_object(message.file_signature, file_hash, file_signature)
    _fill_signature_object(message.metadata_signature, metadata_hash, metadata_signature)
    serialised: bytes = message.SerializeToString()
    return bytes([V6_MARKER]) + serialised


def write_signature_file(
    version: int,
    file_hash: bytes,
    file_signature: bytes,
    metadata_hash: bytes | None = None,
    metadata_signature: bytes | None = None,
) -> bytes:
    """The signature file a node writes for a record file of ``version`` (1 and 2: the file hash
    alone; 5 and 6: the metadata hash too)."""
    if version in (1, 2):
        return write_signature_v2(file_hash, file_signature)
    if version not in (5, 6):
        raise UnsupportedVersionError(f"signature file: expected record file version 1, 2, 5 or 6 but got {version}")
    if metadata_hash is None or metadata_signature is None:
        raise CorruptFileError(f"field metadata hash: a V{version} signature file needs it and its signature")
    writer = write_signature_v5 if version == 5 else write_signature_v6
    return writer(file_hash, file_signature, metadata_hash, metadata_signature)
