from __future__ import annotations

import pytest
from hedera_history.errors import RowDecodeError
from hedera_history.formats.parsed_files import SidecarMetadata
from hedera_history.store import values as v
from hypothesis import given
from hypothesis import strategies as st

u64 = st.integers(0, 2**64 - 1)
u32 = st.integers(0, 2**32 - 1)
i32 = st.integers(-(2**31), 2**31 - 1)


u16 = st.integers(0, 2**16 - 1)
cells = st.one_of(st.none(), u16)


@given(u64, u32, cells)
def test_position_round_trips(block: int, index: int, cell: int | None) -> None:
    value = v.Position(block, index, cell)
    assert v.decode_position(v.encode_position(value)) == value


def test_a_position_names_its_cell_in_one_byte_below_256_and_none_before_cells() -> None:
    assert len(v.encode_position(v.Position(1, 2))) == 12
    assert len(v.encode_position(v.Position(1, 2, 255))) == 13
    assert len(v.encode_position(v.Position(1, 2, 256))) == 14
    with pytest.raises(RowDecodeError):
        v.decode_position(bytes(15))


@given(u64, i32, st.booleans(), i32)
def test_id_entry_round_trips(block: int, nonce: int, scheduled: bool, status: int) -> None:
    value = v.IdEntry(block, nonce, scheduled, status)
    assert v.decode_id_entry(v.encode_id_entry(value)) == value


@given(u64, i32)
def test_hash_entry_round_trips(block: int, status: int) -> None:
    assert v.decode_hash_entry(v.encode_hash_entry(v.HashEntry(block, status))) == v.HashEntry(block, status)


flags = st.sampled_from([0, v.FLAG_APART, v.FLAG_PART_1, v.FLAG_APART | v.FLAG_PART_1])


@given(u64, u16, u16, i32, st.booleans(), flags, i32)
def test_id_entry_of_layout_2_round_trips(
    block: int, cell: int, offset: int, nonce: int, scheduled: bool, flag: int, status: int
) -> None:
    value = v.IdEntry(block, nonce, scheduled, status, cell, offset, flag)
    assert v.decode_id_entry(v.encode_id_entry(value)) == value


@given(u64, u16, u16, flags, i32)
def test_hash_entry_and_pointer_of_layout_2_round_trip(
    block: int, cell: int, offset: int, flag: int, status: int
) -> None:
    value = v.HashEntry(block, status, cell, offset, flag)
    assert v.decode_hash_entry(v.encode_hash_entry(value)) == value
    pointer = v.EntryPointer(block, cell, offset, flag)
    assert v.decode_entry_pointer(v.pack_entry_pointer(block, cell, offset, flag)) == pointer
    assert v.decode_entry_pointer(v.encode_u64(block)) == v.EntryPointer(block)


def test_an_errata_marks_index_entries_apart_naming_no_item() -> None:
    marked = v.marked_apart("tx_by_hash", v.encode_hash_entry(v.HashEntry(9, 22, 3, 7, v.FLAG_PART_1)))
    assert v.decode_hash_entry(marked) == v.HashEntry(9, 22, 0, 0, v.FLAG_PART_1 | v.FLAG_APART)
    pointer = v.decode_entry_pointer(v.marked_apart("account_history", v.pack_entry_pointer(9, 3, 7, 0)))
    assert pointer.apart and (pointer.cell, pointer.offset) == (0, 0)
    layout_1 = v.encode_id_entry(v.IdEntry(9, 0, False, 22))
    assert v.marked_apart("tx_by_id", layout_1) == layout_1


@given(u64, st.binary(max_size=400), st.one_of(st.none(), st.binary(max_size=400)))
def test_signature_round_trips(node_id: int, file_sig: bytes, meta_sig: bytes | None) -> None:
    value = v.SignatureValue(node_id, file_sig, meta_sig)
    assert v.decode_signature(v.encode_signature(value)) == value


@given(st.lists(st.tuples(u32, st.lists(u32, max_size=4), st.binary(min_size=48, max_size=48)), max_size=4))
def test_sidecar_metadata_round_trips(entries: list[tuple[int, list[int], bytes]]) -> None:
    value = tuple(SidecarMetadata(i, tuple(t), h) for i, t, h in entries)
    assert v.decode_sidecar_metadata(v.encode_sidecar_metadata(value)) == value


def test_completion_and_hapi_version_round_trip() -> None:
    done = v.CompletionValue(item_count=7, sidecar_record_count=3)
    assert v.decode_completion(v.encode_completion(done)) == done
    assert v.decode_hapi_version(v.encode_hapi_version((0, 47, 1))) == (0, 47, 1)


@pytest.mark.parametrize(
    ("decode", "payload"),
    [
        (v.decode_u64, b"\x00" * 7),
        (v.decode_position, b"\x00" * 15),
        (v.decode_id_entry, b"\x00" * 8 + b"\x00" * 4 + b"\x02" + b"\x00" * 4),
        (v.decode_signature, b"\x00" * 8 + b"\x00\x00\x00\x05ab"),
        (v.decode_sidecar_metadata, b"\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x09"),
        (v.decode_completion, b"\x09" + b"\x00" * 8),
        (v.decode_hash_entry, b"\x00" * 12 + b"\x80" + b"\x00" * 4),
        (v.decode_entry_pointer, b"\x00" * 12 + b"\x04"),
        (v.decode_entry_pointer, b"\x00" * 9),
        (v.decode_text, b"\xff\xfe"),
    ],
)
def test_malformed_payloads_raise_row_decode_error(decode, payload: bytes) -> None:
    with pytest.raises(RowDecodeError):
        decode(payload)
