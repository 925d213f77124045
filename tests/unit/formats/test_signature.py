from __future__ import annotations

import hashlib

import pytest
from hedera_history import hapi
from hedera_history.errors import CorruptFileError, FormatError, TruncatedFileError, UnsupportedVersionError
from hedera_history.formats.dispatch import parse_signature_file
from hedera_history.formats.parsed_files import SignatureFile
from hedera_history.formats.signature import write_signature_file

from .writers import (
    hash_object,
    i32,
    signature_object_v5,
    signature_object_v6,
    write_signature_v2,
    write_signature_v5,
    write_signature_v6,
)

FILE_HASH = hashlib.sha384(b"file").digest()
META_HASH = hashlib.sha384(b"metadata").digest()
FILE_SIG = bytes(range(256)) + bytes(128)
META_SIG = bytes(reversed(range(256))) + bytes(128)
NAME = "2022-07-13T08_46_11.304284003Z.rcd_sig"


def test_v2() -> None:
    parsed = parse_signature_file(write_signature_v2(FILE_HASH, FILE_SIG), NAME)
    assert parsed == SignatureFile(name=NAME, version=2, file_hash=FILE_HASH, file_signature=FILE_SIG)


@pytest.mark.parametrize(("writer", "version"), [(write_signature_v5, 5), (write_signature_v6, 6)])
def test_v5_and_v6(writer: object, version: int) -> None:
    data = writer(FILE_HASH, FILE_SIG, META_HASH, META_SIG)  # type: ignore[operator]
    assert parse_signature_file(data, NAME) == SignatureFile(
        name=NAME,
        version=version,
        file_hash=FILE_HASH,
        file_signature=FILE_SIG,
        metadata_hash=META_HASH,
        metadata_signature=META_SIG,
    )


@pytest.mark.parametrize("writer", [write_signature_v2, write_signature_v5])
def test_every_prefix_is_truncated_and_trailing_data_is_corrupt(writer: object) -> None:
    if writer is write_signature_v2:
        data = write_signature_v2(FILE_HASH, FILE_SIG)
    else:
        data = write_signature_v5(FILE_HASH, FILE_SIG, META_HASH, META_SIG)
    for cut in range(len(data)):
        with pytest.raises(TruncatedFileError):
            parse_signature_file(data[:cut], NAME)
    with pytest.raises(CorruptFileError, match="field end of file: expected no more bytes but got 1"):
        parse_signature_file(data + b"\x00", NAME)


def test_v6_prefixes_never_parse() -> None:
    data = write_signature_v6(FILE_HASH, FILE_SIG, META_HASH, META_SIG)
    for cut in range(len(data)):
        with pytest.raises(FormatError):
            parse_signature_file(data[:cut], NAME)


def test_unknown_marker() -> None:
    with pytest.raises(UnsupportedVersionError, match="expected a signature file marker 4, 5 or 6 but got 7"):
        parse_signature_file(b"\x07abc", NAME)


def test_v2_markers_and_lengths() -> None:
    data = bytearray(write_signature_v2(FILE_HASH, FILE_SIG))
    data[49] = 9
    with pytest.raises(CorruptFileError, match="field signature marker: expected 3 but got 9"):
        parse_signature_file(bytes(data), NAME)
    with pytest.raises(CorruptFileError, match="field signature length"):
        parse_signature_file(b"\x04" + FILE_HASH + b"\x03" + i32(0), NAME)


@pytest.mark.parametrize(
    ("signature_object", "message"),
    [
        (signature_object_v5(FILE_SIG, checksum=1), "field file signature object checksum: expected -283 but got 1"),
        (signature_object_v5(FILE_SIG, kind=2), "field file signature object signature type: expected 1 but got 2"),
        (b"\x00" * 8 + signature_object_v5(FILE_SIG)[8:], "field file signature object class id"),
        (signature_object_v5(b""), r"field file signature object length: expected 1\.\.1024 but got 0"),
    ],
)
def test_v5_signature_objects_are_checked(signature_object: bytes, message: str) -> None:
    data = b"\x05" + i32(1) + hash_object(FILE_HASH) + signature_object
    with pytest.raises(CorruptFileError, match=message):
        parse_signature_file(data, NAME)


def _v6(mutate: object) -> bytes:
    message = hapi.SignatureFile(
        file_signature=signature_object_v6(FILE_HASH, FILE_SIG),
        metadata_signature=signature_object_v6(META_HASH, META_SIG),
    )
    mutate(message)  # type: ignore[operator]
    encoded: bytes = message.SerializeToString()
    return b"\x06" + encoded


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda m: m.ClearField("metadata_signature"), "field metadata_signature: expected a value"),
        (lambda m: setattr(m.file_signature, "type", 0), "field file_signature.type: expected 1"),
        (lambda m: setattr(m.file_signature, "length", 12), "field file_signature.length: expected 384 but got 12"),
        (lambda m: setattr(m.file_signature, "checksum", 0), "field file_signature.checksum: expected -283"),
        (lambda m: setattr(m.file_signature, "signature", b""), "field file_signature.signature: expected 1..1024"),
        (lambda m: m.file_signature.ClearField("hash_object"), "field file_signature.hash_object: expected a value"),
        (lambda m: setattr(m.metadata_signature.hash_object, "hash", b"x"), "metadata_signature.hash_object.hash"),
    ],
)
def test_v6_fields_are_checked(mutate: object, message: str) -> None:
    with pytest.raises(CorruptFileError, match=message.replace(".", r"\.")):
        parse_signature_file(_v6(mutate), NAME)


def test_v6_garbage_protobuf() -> None:
    with pytest.raises(CorruptFileError, match="SignatureFile protobuf does not parse"):
        parse_signature_file(b"\x06\x0a\x10abc", NAME)


def test_node_is_named() -> None:
    with pytest.raises(TruncatedFileError) as caught:
        parse_signature_file(b"", NAME, node="0.0.7")
    assert (caught.value.file, caught.value.node) == (NAME, "0.0.7")


@pytest.mark.parametrize("version", [1, 2, 5, 6])
def test_the_writer_by_record_version_round_trips(version: int) -> None:
    data = write_signature_file(version, FILE_HASH, FILE_SIG, META_HASH, META_SIG)
    parsed = parse_signature_file(data, NAME)
    assert (parsed.file_hash, parsed.file_signature) == (FILE_HASH, FILE_SIG)
    if version in (1, 2):
        assert parsed.version == 2 and parsed.metadata_hash is None  # one layout for both eras
    else:
        assert parsed.version == version and (parsed.metadata_hash, parsed.metadata_signature) == (META_HASH, META_SIG)


def test_the_writer_refuses_what_no_node_writes() -> None:
    with pytest.raises(UnsupportedVersionError, match="got 3"):
        write_signature_file(3, FILE_HASH, FILE_SIG)
    with pytest.raises(CorruptFileError, match="V6 signature file needs"):
        write_signature_file(6, FILE_HASH, FILE_SIG)
