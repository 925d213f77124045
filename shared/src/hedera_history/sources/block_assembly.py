"""A block node's subscription turned back into blocks: the item sets of one block gathered until
its end-of-block message, then serialised as the ``Block`` they came from.

A ``BlockItemSet`` and a ``Block`` are the same on the wire (field 1, repeated, each item
length-delimited), so each set, serialised again (less any field unknown to us), is its stretch
of the block, and the block is their concatenation: no per-item work in Python (a
20,000-transaction block is 40,000 items and more).

Checked as the reference mirror node's ``BlockNode.BlockAssembler`` checks them: a block starts
with its header and no block starts while another is pending. Stricter than the reference, which
only logs them: an end-of-block message with nothing pending, or whose number is not the header's,
and a block other than the next one asked for, are errors (:class:`BlockNodeProtocolError`), never
a block handed on. Each item is kept as the bytes the node sent, so the block's bytes are the
node's ``Block`` exactly (the root hash is over them).
"""

from __future__ import annotations

from dataclasses import dataclass

from hedera_history.errors import BlockNodeProtocolError, FormatError, ObjectTooLargeError
from hedera_history.formats.block import ItemKind, kind_name, parse_message
from hedera_history.formats.wire import LEN, read_length, read_tag
from hedera_history.proto_gen.block_node_pb2 import BlockItemSet

from hiero_sdk_python.hapi.block.stream.output import block_header_pb2  # isort: skip


@dataclass(frozen=True, slots=True)
class AssembledBlock:
    number: int
    content: bytes
    """The serialised ``Block``."""


class BlockAssembler:
    """Item sets in, whole blocks out, starting at block ``first``."""

    def __init__(self, source: str, first: int, *, max_bytes: int) -> None:
        self._source = source
        self._max_bytes = max_bytes
        self.expected = first
        """The number the next block must carry."""
        self._sets: list[bytes] = []
        self._header = b""
        self._size = 0

    @property
    def pending(self) -> bool:
        """Items of a block whose end has not come."""
        return bool(self._sets)

    def add(self, item_set: BlockItemSet) -> None:
        """One item set (the message is cleared of unknown fields)."""
        if not item_set.block_items:
            return  # the reference passes over an empty set too
        first = item_set.block_items[0]
        starts_block = item_kind(first, self._source) == ItemKind.BLOCK_HEADER
        if starts_block and self._sets:
            self._refuse(f"a block header while block {self.expected} still lacks its end")
        if not starts_block and not self._sets:
            self._refuse(f"block {self.expected} begins with {kind_name(item_kind(first, self._source))}")
        if starts_block:
            self._header = first
        item_set.DiscardUnknownFields()
        stretch = item_set.SerializeToString()
        self._sets.append(stretch)
        self._size += len(stretch)
        if self._size > self._max_bytes:
            raise ObjectTooLargeError(
                f"block {self.expected} from {self._source} is over {self._max_bytes} bytes before its end"
            )

    def end(self, number: int) -> AssembledBlock:
        """The pending block, closed by an end-of-block message for ``number``."""
        if not self._sets:
            self._refuse(f"end of block {number} without its items")
        header = header_number(self._header, self._source)
        if header != number:
            self._refuse(f"end of block {number} closes the items of block {header}")
        if number != self.expected:
            self._refuse(f"block {number} where block {self.expected} comes next")
        block = AssembledBlock(number, b"".join(self._sets))
        self._sets, self._size = [], 0
        self.expected = number + 1
        return block

    def _refuse(self, what: str) -> None:
        raise BlockNodeProtocolError(f"block node {self._source} sent {what}")


def item_kind(item: bytes, source: str) -> int:
    """A serialised ``BlockItem``'s kind: its one field's number."""
    try:
        if not item:
            raise BlockNodeProtocolError(f"block node {source} sent an empty block item")
        kind, _, _ = read_tag(item, 0, len(item), "BlockItem", source)
    except FormatError as e:
        raise BlockNodeProtocolError(f"block node {source} sent a block item that does not parse: {e}") from e
    return kind


def header_number(item: bytes, source: str) -> int:
    """The block number in a serialised ``block_header`` item."""
    try:
        kind, wire_type, position = read_tag(item, 0, len(item), "BlockItem", source)
        if kind != ItemKind.BLOCK_HEADER or wire_type != LEN:
            raise BlockNodeProtocolError(f"block node {source} sent a block beginning with {kind_name(kind)}")
        stop, start = read_length(item, position, len(item), "block_header", source)
        header = parse_message(block_header_pb2.BlockHeader, item[start:stop], "block_header", source)
    except FormatError as e:
        raise BlockNodeProtocolError(f"block node {source} sent a block header that does not parse: {e}") from e
    return int(header.number)


def first_item(content: bytes, source: str) -> bytes:
    """The first ``BlockItem`` of a serialised ``Block``, without walking the rest."""
    try:
        if content:
            number, wire_type, position = read_tag(content, 0, len(content), "Block", source)
            if number == 1 and wire_type == LEN:
                stop, start = read_length(content, position, len(content), "items[0]", source)
                return content[start:stop]
    except FormatError as e:
        raise BlockNodeProtocolError(f"block node {source} sent a block that does not parse: {e}") from e
    raise BlockNodeProtocolError(f"block node {source} sent a block that does not begin with an item")
