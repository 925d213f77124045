"""The block reader: items kept as their exact wire bytes, structure refused as the block node refuses it."""

from __future__ import annotations

import gc

import pytest
from hedera_history import speedups
from hedera_history.errors import CorruptFileError, DecompressionError, FormatError, UnsupportedVersionError
from hedera_history.formats.block import (
    ITEM_SLOTS,
    BlockItem,
    ItemKind,
    ProofKind,
    SemanticVersion,
    _RawBlock,
    _short_item,
    kind_name,
    parse_block,
    parse_block_file,
    serialize_block,
    shortest_encoding_size,
)
from hedera_history.formats.wire import length_delimited, varint_field
from hypothesis import given, settings
from hypothesis import strategies as st

from .block_files import (
    body_items,
    footer_item,
    gz,
    header_item,
    item,
    linked_blocks,
    tss_proof_item,
    zst,
)


def _block(*middle: bytes, number: int = 3) -> bytes:
    return serialize_block([header_item(number), *middle, footer_item(), tss_proof_item(number)])


def test_every_item_is_kept_as_its_wire_bytes_with_its_kind() -> None:
    body = body_items(1, 2)
    data = _block(*body)
    block = parse_block(data, "3.blk")
    assert block.number == 3
    assert block.hapi_version == SemanticVersion(0, 78, 0)
    assert str(block.hapi_version) == "0.78.0"
    assert [i.data for i in block.items[1:-2]] == body
    assert [i.kind for i in block.items[:2]] == [ItemKind.BLOCK_HEADER, ItemKind.ROUND_HEADER]
    assert block.item_counts() == {
        "block_header": 1,
        "round_header": 1,
        "event_header": 2,
        "signed_transaction": 2,
        "transaction_result": 2,
        "transaction_output": 2,
        "state_changes": 2,
        "block_footer": 1,
        "block_proof": 1,
    }
    assert serialize_block(i.data for i in block.items) == data
    signed = block.items[3]
    assert signed.name == "signed_transaction" and signed.message().signed_transaction == signed.payload


def test_header_footer_and_proof_are_read() -> None:
    block = parse_block(linked_blocks(2)[1], "1.blk")
    assert block.timestamp_ns == (1_786_000_000 + 2) * 1_000_000_000 + 5
    assert block.timestamp_bytes == varint_field(1, 1_786_000_002) + varint_field(2, 5)
    assert len(block.footer.previous_block_root_hash) == 48
    (proof,) = block.proofs
    assert (proof.block, proof.field, proof.kind) == (1, ProofKind.SIGNED_BLOCK_PROOF, "signed_block_proof")
    assert proof.message().signed_block_proof.block_signature == proof.body[-2920:]
    assert block.record_file is None and not block.wrapped


def test_items_and_fields_newer_than_the_protobufs_are_kept() -> None:
    future = item(25, b"a future input item")
    header_payload = parse_block(_block(), "x").items[0].payload + length_delimited(99, b"a newer header field")
    items = [item(ItemKind.BLOCK_HEADER, header_payload), future, footer_item(), tss_proof_item(3)]
    data = serialize_block(items) + length_delimited(2, b"a Block field after the items")
    block = parse_block(data, "3.blk")
    assert block.items[1].kind == 25 and block.items[1].name == "item_25" and block.items[1].data == future
    assert block.items[0].payload == header_payload and block.number == 3
    assert kind_name(19) == "redacted_item"
    assert block.items_only is None and block.content() == serialize_block(items)


@pytest.mark.parametrize(
    "extra",
    [
        length_delimited(2, b"a Block field"),
        varint_field(3, 1),
        # an item whose length takes a byte more than it needs
        b"\x0a" + bytes([0x80 | len(item(ItemKind.EVENT_HEADER, b"")), 0x00]) + item(ItemKind.EVENT_HEADER, b""),
    ],
)
def test_the_content_is_the_items_alone_as_they_stand(extra: bytes) -> None:
    """A block read as its items alone hands back the bytes read; anything else, or an item in a
    longer encoding, leaves its content to be serialised again from the items."""
    plain = _block(*body_items(1, 2))
    block = parse_block(plain, "3.blk")
    assert block.items_only is plain and block.content() == plain
    mixed = parse_block(plain + extra, "3.blk")
    assert mixed.items_only is None and mixed.content() == serialize_block(i.data for i in mixed.items)


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ([], "expected at least a header"),
        ([item(ItemKind.ROUND_HEADER, b"\x08\x01"), footer_item(), tss_proof_item(3)], "expected block_header"),
        ([header_item(3), header_item(3), footer_item(), tss_proof_item(3)], "at most one block_header"),
        ([header_item(3), tss_proof_item(3)], "expected one block_footer but got 0"),
        ([header_item(3), footer_item(), footer_item(), tss_proof_item(3)], "expected one block_footer but got 2"),
        ([header_item(3), footer_item()], "at least one block_proof"),
        ([header_item(3), b"", footer_item(), tss_proof_item(3)], "empty BlockItem"),
        ([header_item(3), item(4, b"x") + item(5, b"y"), footer_item(), tss_proof_item(3)], "and then field 5"),
        ([header_item(3), varint_field(4, 7), footer_item(), tss_proof_item(3)], "length-delimited"),
        (
            [header_item(3), item(10, b"\x0a\x00"), item(10, b"\x0a\x00"), footer_item(), tss_proof_item(3)],
            "record_file",
        ),
        ([header_item(3), footer_item(previous=b"short"), tss_proof_item(3)], "previous_block_root_hash"),
    ],
)
def test_a_malformed_block_is_corrupt(items: list[bytes], message: str) -> None:
    with pytest.raises(CorruptFileError, match=message):
        parse_block(serialize_block(items), "3.blk")


def test_a_block_header_naming_another_hash_algorithm_is_unsupported() -> None:
    with pytest.raises(UnsupportedVersionError, match="hash_algorithm"):
        parse_block(serialize_block([header_item(3, algorithm=1), footer_item(), tss_proof_item(3)]), "3.blk")


def test_a_header_that_does_not_parse_is_corrupt() -> None:
    with pytest.raises(CorruptFileError, match="block_header: protobuf does not parse"):
        parse_block(serialize_block([item(1, b"\xff\xff"), footer_item(), tss_proof_item(3)]), "3.blk")


@pytest.mark.parametrize("name", ["3.blk", "3.blk.gz", "3.blk.zstd", "anything"])
def test_compression_is_told_by_the_magic(name: str) -> None:
    data = _block()
    stored = gz(data) if name.endswith(".gz") else zst(data) if name.endswith("zstd") else data
    block = parse_block_file(stored, name)
    assert block.size == len(stored) and block.number == 3


@pytest.mark.parametrize("name", ["3.blk.gz", "3.blk.zstd"])
def test_a_compressed_name_without_its_magic_is_refused(name: str) -> None:
    with pytest.raises(DecompressionError, match="the name ends in"):
        parse_block_file(_block(), name)


def test_decompression_is_bounded() -> None:
    data = _block(*body_items(1, 50))
    with pytest.raises(DecompressionError, match="exceeds the limit"):
        parse_block_file(zst(data), "3.blk.zstd", max_decompressed=len(data) - 1)
    assert parse_block_file(zst(data), "3.blk.zstd", max_decompressed=len(data)).number == 3


def test_truncations_are_format_errors() -> None:
    data = _block(*body_items(1, 2))
    for cut in range(len(data)):
        try:
            parse_block(data[:cut], "3.blk")
        except FormatError:
            continue


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x22",
        b"\x22\x00",
        b"\x22\x01a",
        b"\x22\x02a",
        b"\x02\x01a",  # field 0
        b"\x20\x01",  # not length-delimited
        b"\xa2\x06\x01\x00",  # a two-byte tag
        b"\x22\x80\x01" + b"a" * 128,
        b"\x22\x80\x00",  # a length in more bytes than it needs
        b"\x22\xff\x7f" + b"a" * 16383,
        b"\x22\x80\x80\x01" + b"a" * 16384,
    ],
)
def test_the_compiled_items_are_the_python_ones(data: bytes) -> None:
    assert speedups.block_items is not None, "the compiled core did not build"
    (compiled,) = speedups.block_items(BlockItem, ITEM_SLOTS, [data])
    assert compiled == _short_item(data)
    if compiled is not None:
        assert type(compiled) is BlockItem and not gc.is_tracked(compiled)


_ITEM_SIZES = st.one_of(
    st.sampled_from([0, 1, 127, 128, 129, 16383, 16384, 16385, (1 << 21) - 1, 1 << 21]),
    st.integers(min_value=0, max_value=70_000),
)


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(_ITEM_SIZES, max_size=12))
def test_the_shortest_encoding_size_is_upbs_byte_size(sizes: list[int]) -> None:
    items = [bytes(size) for size in sizes]
    assert shortest_encoding_size(items) == _RawBlock(items=items).ByteSize()
