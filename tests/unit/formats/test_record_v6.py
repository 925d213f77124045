"""V6 record files: hand-built content, unusual but valid encodings, and corrupt ones."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest
from hedera_history import hapi
from hedera_history.errors import CorruptFileError, FormatError, TruncatedFileError
from hedera_history.formats import v6_items
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.parsed_files import RecordFile, RecordItem, SidecarMetadata
from hedera_history.formats.record_v6 import parse_record_v6
from hedera_history.formats.v6_items import record_items

from .writers import (
    gz,
    i32,
    len_field,
    make_items,
    running_hash_of,
    v6_item_bytes,
    v6_metadata_hash_of,
    varint,
    write_v6_content,
)

ITEMS = make_items(3)
START = hashlib.sha384(b"start").digest()
SIDECAR_HASH = hashlib.sha384(b"sidecar").digest()


def _parse(content: bytes) -> RecordFile:
    return parse_record_v6(content, "f.rcd.gz")


def test_whole_file() -> None:
    content = write_v6_content(ITEMS, start=START, block_number=42, sidecars=[(1, [1, 3], SIDECAR_HASH)])
    data = gz(content)
    record = parse_record_file(data, "2022-07-13T08_46_11.304284003Z.rcd.gz")
    end = running_hash_of(START, ITEMS)
    assert record.version == 6
    assert record.size == len(data)
    assert record.hapi_version == (0, 28, 0)
    assert record.block_number == 42
    assert record.start_running_hash == START
    assert record.end_running_hash == end == record.computed_end_running_hash
    assert record.file_hash == hashlib.sha384(content).digest()
    assert record.metadata_hash == v6_metadata_hash_of(START, end, 42)
    assert record.sidecars == (SidecarMetadata(id=1, types=(1, 3), hash=SIDECAR_HASH),)
    assert record.items == tuple(RecordItem(i.transaction, i.record, i.consensus_ns) for i in ITEMS)


def test_compressed_bytes_do_not_matter() -> None:
    content = write_v6_content(ITEMS)
    a = parse_record_file(gz(content, mtime=1), "a.rcd.gz")
    b = parse_record_file(gz(content, mtime=2), "b.rcd.gz")
    assert (a.file_hash, a.metadata_hash, a.items) == (b.file_hash, b.metadata_hash, b.items)


def test_empty_file_has_no_items() -> None:
    record = _parse(write_v6_content([], start=START))
    assert record.items == ()
    assert record.computed_end_running_hash == START


def test_unusual_but_valid_item_encodings_give_the_same_items_and_hashes() -> None:
    item = ITEMS[0]
    length = len(item.transaction)
    three_byte_length = bytes([(length & 0x7F) | 0x80, ((length >> 7) & 0x7F) | 0x80, length >> 14])
    unusual = [
        len_field(2, item.record) + len_field(1, item.transaction),  # record first
        b"\x28\x05" + v6_item_bytes(item) + b"\x35" + bytes(4),  # unknown fields around
        b"\x0a" + three_byte_length + item.transaction + len_field(2, item.record),  # non-minimal length
    ]
    expected = _parse(write_v6_content([item], start=START))
    for encoded in unusual:
        record = _parse(write_v6_content([item], start=START, item_bytes=[encoded]))
        assert record.items == expected.items
        assert record.computed_end_running_hash == expected.end_running_hash


def test_unknown_top_level_fields_are_skipped() -> None:
    extra = b"\x38\x01" + len_field(9, b"future") + b"\x49" + bytes(8)
    record = _parse(write_v6_content(ITEMS, start=START, extra=extra))
    assert len(record.items) == 3
    assert record.computed_end_running_hash == record.end_running_hash


def test_a_long_item_uses_the_general_length_path() -> None:
    big = dataclasses.replace(ITEMS[0], transaction=ITEMS[0].transaction + len_field(15, bytes(20_000)))
    record = _parse(write_v6_content([big], start=START))
    assert record.items[0].transaction_bytes == big.transaction
    assert record.computed_end_running_hash == record.end_running_hash


def test_running_hash_covers_bytes_as_they_stand() -> None:
    # The same transaction re-encoded with an unknown field parses to the same message, yet
    # the running hash (and so verification) must see the different bytes.
    item = ITEMS[0]
    encoded = len_field(1, item.transaction + b"\x98\x01\x01") + len_field(2, item.record)
    record = _parse(write_v6_content([item], start=START, item_bytes=[encoded]))
    assert record.computed_end_running_hash != record.end_running_hash
    assert record.items[0].transaction_bytes == item.transaction + b"\x98\x01\x01"


@pytest.mark.parametrize(
    ("item_bytes", "message"),
    [
        (len_field(2, ITEMS[0].record), r"record_stream_items\[0\]\.transaction: expected a value"),
        (len_field(1, ITEMS[0].transaction), r"record_stream_items\[0\]\.record: expected a value"),
        (
            v6_item_bytes(ITEMS[0]) + len_field(1, ITEMS[0].transaction),
            r"record_stream_items\[0\]\.transaction: expected once but got it twice",
        ),
        # field 1 as a varint is an unknown field to protobuf, so the transaction is missing
        (b"\x08\x01" + len_field(2, ITEMS[0].record), r"record_stream_items\[0\]\.transaction: expected a value"),
        (len_field(1, ITEMS[0].transaction) + len_field(2, b""), r"record_stream_items\[0\]\.record: expected a value"),
        (
            len_field(1, ITEMS[0].transaction) + len_field(2, hapi.TransactionRecord(memo="x").SerializeToString()),
            r"record_stream_items\[0\]\.record\.consensusTimestamp: expected a value",
        ),
    ],
)
def test_corrupt_items(item_bytes: bytes, message: str) -> None:
    with pytest.raises(CorruptFileError, match=message):
        _parse(write_v6_content(ITEMS[:1], start=START, item_bytes=[item_bytes]))


def test_items_field_with_another_wire_type_is_an_unknown_field() -> None:
    # As for upb: field 3 as a varint is not an item; the file hash still covers its bytes.
    plain = _parse(write_v6_content(ITEMS, start=START))
    record = _parse(write_v6_content(ITEMS, start=START, extra=b"\x18\x01"))
    assert record.items == plain.items
    assert record.file_hash != plain.file_hash


@pytest.mark.parametrize("encoding", ["canonical", "record first", "unknown fields", "non-minimal length"])
def test_compiled_walk_raw_view_and_wire_walk_agree(monkeypatch: pytest.MonkeyPatch, encoding: str) -> None:
    item = ITEMS[1]
    length = len(item.transaction)
    encoded = {
        "canonical": v6_item_bytes(item),
        "record first": len_field(2, item.record) + len_field(1, item.transaction),
        "unknown fields": b"\x28\x05" + v6_item_bytes(item) + b"\x35" + bytes(4),
        "non-minimal length": b"\x0a"
        + bytes([(length & 0x7F) | 0x80, ((length >> 7) & 0x7F) | 0x80, length >> 14])
        + item.transaction
        + len_field(2, item.record),
    }[encoding]
    content = write_v6_content(ITEMS[:2], start=START, item_bytes=[v6_item_bytes(ITEMS[0]), encoded])
    either = _parse(content)
    monkeypatch.setattr(v6_items, "compiled_item_lists", None)
    raw = _parse(content)
    monkeypatch.setattr(v6_items, "raw_item_bytes", lambda content, name: None)
    walked = _parse(content)
    assert walked == raw == either
    assert walked.computed_end_running_hash == walked.end_running_hash


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda m: m.ClearField("start_object_running_hash"), "start_object_running_hash: expected a value"),
        (lambda m: m.ClearField("end_object_running_hash"), "end_object_running_hash: expected a value"),
        (lambda m: m.ClearField("hapi_proto_version"), "hapi_proto_version: expected a value"),
        (lambda m: setattr(m.end_object_running_hash, "algorithm", 0), "end_object_running_hash.algorithm"),
        (lambda m: setattr(m.start_object_running_hash, "hash", bytes(32)), "start_object_running_hash.hash"),
        (lambda m: setattr(m.start_object_running_hash, "length", 32), "start_object_running_hash.length"),
        (lambda m: setattr(m.sidecars[0].hash, "hash", b"short"), r"sidecars\.hash\.hash"),
    ],
)
def test_corrupt_header_fields(mutate: object, message: str) -> None:
    content = write_v6_content(ITEMS, start=START, sidecars=[(1, [1], SIDECAR_HASH)])
    message_obj = hapi.RecordStreamFile.FromString(content[4:])
    mutate(message_obj)  # type: ignore[operator]
    with pytest.raises(CorruptFileError, match=message):
        _parse(i32(6) + message_obj.SerializeToString())


def test_wrong_version_and_short_content() -> None:
    with pytest.raises(CorruptFileError, match="field version: expected 6 but got 00000005"):
        _parse(i32(5) + write_v6_content(ITEMS)[4:])
    with pytest.raises(TruncatedFileError):
        _parse(b"\x00\x00")


def test_garbage_protobuf_is_corrupt() -> None:
    with pytest.raises(CorruptFileError, match="RecordStreamFile protobuf does not parse"):
        _parse(i32(6) + b"\x1a\x05\x0a\x10abc")


def test_every_prefix_is_refused_or_hashes_differently() -> None:
    # Protobuf has no end marker: a cut at a field boundary after the end running hash is
    # still a message, but its file hash differs; any other cut is a FormatError.
    content = write_v6_content(ITEMS[:2], start=START, sidecars=[(1, [1], SIDECAR_HASH)])
    whole = _parse(content)
    for cut in range(len(content)):
        try:
            record = _parse(content[:cut])
        except FormatError:
            continue
        assert record.file_hash != whole.file_hash


def test_trailing_garbage_is_refused_or_hashes_differently() -> None:
    content = write_v6_content(ITEMS, start=START)
    whole = _parse(content)
    for trailing in (b"\x00", b"\xff", b"\x0a", b"\x1a\x01", b"\x0a\x00", varint(300)):
        try:
            record = _parse(content + trailing)
        except FormatError:
            continue
        assert record.file_hash != whole.file_hash


def test_fast_item_constructor_matches_the_dataclass() -> None:
    made = record_items([b"tx", b"tx2"], [b"rec", b"rec2"], [5, 7])
    assert made == (RecordItem(b"tx", b"rec", 5), RecordItem(b"tx2", b"rec2", 7))
    assert hash(made[0]) == hash(RecordItem(b"tx", b"rec", 5))
    assert all(type(item) is RecordItem for item in made)
    assert record_items([], [], []) == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        made[0].consensus_ns = 6  # type: ignore[misc]


def test_the_first_incomplete_item_is_named() -> None:
    # Item 1 lacks its consensus time and item 2 its record: the first fault met is item 1's.
    untimed = len_field(1, ITEMS[1].transaction) + len_field(2, hapi.TransactionRecord(memo="x").SerializeToString())
    no_record = len_field(1, ITEMS[2].transaction)
    content = write_v6_content(ITEMS, start=START, item_bytes=[v6_item_bytes(ITEMS[0]), untimed, no_record])
    with pytest.raises(CorruptFileError, match=r"record_stream_items\[1\]\.record\.consensusTimestamp"):
        _parse(content)


def test_a_record_at_second_zero_is_kept() -> None:
    record = hapi.TransactionRecord.FromString(ITEMS[0].record)
    record.consensusTimestamp.seconds = 0
    record.consensusTimestamp.nanos = 5
    encoded = len_field(1, ITEMS[0].transaction) + len_field(2, record.SerializeToString())
    parsed = _parse(write_v6_content(ITEMS[:1], start=START, item_bytes=[encoded]))
    assert parsed.items[0].consensus_ns == 5
