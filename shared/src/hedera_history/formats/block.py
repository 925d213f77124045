"""Block files (HIP-1056): one ``Block`` protobuf, ``repeated BlockItem items = 1``, stored as
``.blk``, ``.blk.gz`` or ``.blk.zstd``.

The ``Block`` is walked by hand (:mod:`~hedera_history.formats.wire`) so that every item is kept
as its exact wire bytes, the whole ``BlockItem`` message as it stands inside ``Block.items`` (its
oneof tag, length and payload): the block's hash is over those bytes, never over a re-encoding.
Each item's kind is its oneof field number; an item number newer than the bundled protobufs is
kept like any other (where it goes in the hash is :mod:`~hedera_history.formats.block_hash`'s
rule). Only the header, the footer and the proofs are parsed here, with the protobufs of
``hiero_sdk_python.hapi.block.stream``; fields newer than those protobufs stay unknown fields of
the parse and change nothing. Any other item's message is parsed on demand
(:meth:`BlockItem.message`).

Structure refused as corrupt (the reference block node refuses the same): no items, a first item
that is not the header, a header, footer or record file given twice, no footer, no proof, a
``BlockItem`` holding more than one field, and a known item kind whose value is not
length-delimited.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum
from operator import attrgetter
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError
from google.protobuf.unknown_fields import UnknownFieldSet

from hedera_history import hapi  # noqa: F401  (registers the bare SDK package the imports below need)
from hedera_history.errors import CorruptFileError, DecompressionError, UnsupportedVersionError
from hedera_history.formats.compression import DEFAULT_MAX_DECOMPRESSED_BYTES, GZIP_MAGIC, gunzip, is_gzip
from hedera_history.formats.hashing import HASH_SIZE
from hedera_history.formats.wire import LEN, length_delimited, read_length, read_tag, skip_field, varint_field
from hedera_history.formats.zstd import ZSTD_MAGIC, is_zstd, unzstd
from hedera_history.speedups import block_items as compiled_block_items

from hiero_sdk_python.hapi.block.stream import block_item_pb2, block_proof_pb2  # isort: skip
from hiero_sdk_python.hapi.block.stream.output import block_footer_pb2, block_header_pb2  # isort: skip

SHA2_384 = 0
"""``BlockHashAlgorithm.SHA2_384``: the only hash a block header may name."""


class ItemKind(IntEnum):
    """``BlockItem``'s oneof field numbers (HAPI 0.78)."""

    BLOCK_HEADER = 1
    EVENT_HEADER = 2
    ROUND_HEADER = 3
    SIGNED_TRANSACTION = 4
    TRANSACTION_RESULT = 5
    TRANSACTION_OUTPUT = 6
    STATE_CHANGES = 7
    FILTERED_SINGLE_ITEM = 8
    BLOCK_PROOF = 9
    RECORD_FILE = 10
    TRACE_DATA = 11
    BLOCK_FOOTER = 12
    REDACTED_ITEM = 19


_KIND_NAMES = {int(kind): kind.name.lower() for kind in ItemKind}
"""Looked up, not built: every item parsed names its kind (an ``ItemKind(n)`` call costs a microsecond)."""


def kind_name(kind: int) -> str:
    """``signed_transaction`` for 4; ``item_<n>`` for a number the bundled protobufs do not know."""
    return _KIND_NAMES.get(kind) or f"item_{kind}"


class ProofKind(IntEnum):
    """``BlockProof``'s proof oneof field numbers."""

    SIGNED_BLOCK_PROOF = 2
    """A TSS signature over this block's root (pre-TSS networks: a 48-byte placeholder)."""
    BLOCK_STATE_PROOF = 3
    """Merkle paths from this block's root to a later block's signed root, and that signature."""
    SIGNED_RECORD_FILE_PROOF = 4
    """Wrapped record blocks (HIP-1427): the nodes' RSA signatures over the record file."""


def proof_kind_name(field: int | None) -> str:
    if field is None:
        return "none"
    return ProofKind(field).name.lower() if field in {int(kind) for kind in ProofKind} else f"proof_{field}"


@dataclass(frozen=True, slots=True)
class SemanticVersion:
    major: int
    minor: int
    patch: int
    pre: str = ""
    build: str = ""

    @property
    def numbers(self) -> tuple[int, int, int]:
        return (self.major, self.minor, self.patch)

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        text += f"-{self.pre}" if self.pre else ""
        return text + (f"+{self.build}" if self.build else "")


@dataclass(frozen=True, slots=True)
class BlockItem:
    """One item: its kind (the oneof field number) and its exact wire bytes."""

    kind: int
    data: bytes
    """The ``BlockItem`` message as it stands in ``Block.items``: oneof tag, length, payload."""
    payload_start: int
    """Where the oneof field's value starts in ``data`` (after its tag and length)."""

    @property
    def name(self) -> str:
        return kind_name(self.kind)

    @property
    def payload(self) -> bytes:
        """The oneof field's value: the serialised item message (``bytes`` for ``signed_transaction``)."""
        return self.data[self.payload_start :]

    def message(self, name: str = "") -> Any:
        """The item parsed as HAPI's ``BlockItem`` (fields newer than the protobufs stay unknown)."""
        return parse_message(block_item_pb2.BlockItem, self.data, f"{self.name} item", name)


@dataclass(frozen=True, slots=True)
class FooterHashes:
    """``BlockFooter``: the block's links to the chain before it and to the state."""

    previous_block_root_hash: bytes
    root_hash_of_all_block_hashes_tree: bytes
    start_of_block_state_root_hash: bytes
    """Empty where the network left it out (the hash then counts as the empty tree's)."""


@dataclass(frozen=True, slots=True)
class BlockProofItem:
    """One ``BlockProof`` item: the block it names, which proof it carries, and its exact bytes."""

    block: int
    field: int | None
    """The proof oneof's field number (:class:`ProofKind`, or newer), None when none is set."""
    data: bytes
    """The serialised ``BlockProof``."""
    body: bytes
    """The proof oneof's value as it stands in ``data`` (e.g. the serialised ``SignedRecordFileProof``)."""

    @property
    def kind(self) -> str:
        return proof_kind_name(self.field)

    def message(self, name: str = "") -> Any:
        return parse_message(block_proof_pb2.BlockProof, self.data, "block_proof", name)


@dataclass(frozen=True, slots=True)
class BlockFile:
    """A parsed block file; nothing judged (the hash and the proofs are ``verify``'s)."""

    name: str
    size: int
    """Bytes as stored (compressed when the file is)."""
    items: tuple[BlockItem, ...]
    number: int
    hapi_version: SemanticVersion
    software_version: SemanticVersion
    timestamp_ns: int
    timestamp_bytes: bytes
    """``block_header.block_timestamp`` as protobuf encodes a ``Timestamp`` (what the block root covers)."""
    footer: FooterHashes
    proofs: tuple[BlockProofItem, ...]
    record_file: bytes | None
    """Wrapped record blocks (HIP-1427): the serialised ``RecordFileItem``, exactly as on the wire."""
    items_only: bytes | None = None
    """The serialised ``Block`` read, when it is its items and nothing else, each in its shortest
    encoding (then it is :meth:`content`, which need not be built again); else None."""

    @property
    def wrapped(self) -> bool:
        return self.record_file is not None

    def content(self) -> bytes:
        """The serialised ``Block`` of the items: every item as it stands on the wire (what the
        block's root hash covers; fields of ``Block`` other than its items left out)."""
        if self.items_only is not None:
            return self.items_only
        return serialize_block(item.data for item in self.items)

    def item_counts(self) -> dict[str, int]:
        """Items by kind name, in the order kinds first appear."""
        return dict(Counter(item.name for item in self.items))


def parse_block_file(
    data: bytes, name: str, *, max_decompressed: int | None = None, node: str | None = None
) -> BlockFile:
    """A block file, ``.blk`` or compressed (gzip or zstd, by its magic), decompressed within
    ``max_decompressed`` (None: the settings' default)."""
    limit = DEFAULT_MAX_DECOMPRESSED_BYTES if max_decompressed is None else max_decompressed
    return parse_block(block_content(data, name, limit=limit, node=node), name, size=len(data))


def block_content(data: bytes, name: str, *, limit: int, node: str | None = None) -> bytes:
    """The serialised ``Block`` inside a block file: gzip or zstd by the magic, plain otherwise. A
    ``.gz`` or ``.zstd`` name whose bytes lack that magic is refused."""
    if is_gzip(data):
        return gunzip(data, name, limit=limit, node=node)
    if is_zstd(data):
        return unzstd(data, name, limit=limit, node=node)
    for suffix, magic in ((".gz", GZIP_MAGIC), (".zstd", ZSTD_MAGIC)):
        if name.endswith(suffix):
            found = data[:4].hex() or "(empty)"
            raise DecompressionError(
                f"field magic: expected {magic.hex()} (the name ends in {suffix}) but got {found}",
                file=name,
                node=node,
            )
    return data


def parse_block(content: bytes, name: str, *, size: int | None = None) -> BlockFile:
    """A serialised ``Block``; ``size`` is the stored (compressed) size."""
    walked, items_only = _items(content, name)
    items = tuple(walked)
    if not items:
        raise CorruptFileError("field items: expected at least a header, a footer and a proof but got none", file=name)
    if items[0].kind != ItemKind.BLOCK_HEADER:
        raise CorruptFileError(f"field items[0]: expected block_header but got {items[0].name}", file=name)
    header = parse_message(block_header_pb2.BlockHeader, items[0].payload, "block_header", name)
    kinds = list(map(_KIND, items))  # one pass; the lookups below run over plain ints in C
    footers = _of_kind(items, kinds, ItemKind.BLOCK_FOOTER)
    records = _of_kind(items, kinds, ItemKind.RECORD_FILE)
    proofs = tuple(_proof(item.payload, name) for item in _of_kind(items, kinds, ItemKind.BLOCK_PROOF))
    for label, found, most in (
        ("block_header", kinds.count(ItemKind.BLOCK_HEADER.value), 1),
        ("record_file", len(records), 1),
    ):
        if found > most:
            raise CorruptFileError(f"field items: expected at most one {label} but got {found}", file=name)
    if len(footers) != 1:
        raise CorruptFileError(f"field items: expected one block_footer but got {len(footers)}", file=name)
    if not proofs:
        raise CorruptFileError("field items: expected at least one block_proof but got none", file=name)
    seconds, nanos = _timestamp(header, name)
    return BlockFile(
        name=name,
        size=len(content) if size is None else size,
        items=items,
        number=header.number,
        hapi_version=_version(header, "hapi_proto_version", name),
        software_version=_version(header, "software_version", name, required=False),
        timestamp_ns=seconds * 1_000_000_000 + nanos,
        timestamp_bytes=varint_field(1, seconds) + varint_field(2, nanos),
        footer=_footer(footers[0].payload, name),
        proofs=proofs,
        record_file=records[0].payload if records else None,
        items_only=content if items_only else None,
    )


def serialize_block(items: Iterable[bytes]) -> bytes:
    """A serialised ``Block`` of these serialised ``BlockItem`` messages (each as given)."""
    return b"".join(length_delimited(1, item) for item in items)


def parse_message(message_type: Any, data: bytes, what: str, name: str) -> Any:
    """``data`` parsed as ``message_type``; CorruptFileError naming ``what`` when it does not parse."""
    try:
        return message_type.FromString(data)
    except DecodeError as e:
        raise CorruptFileError(f"field {what}: protobuf does not parse: {e}", file=name or None) from e


def _items(content: bytes, name: str) -> tuple[list[BlockItem], bool]:
    """Every item, as upb hands back its bytes when that is exact, else by a walk of the wire; and
    whether ``content`` is the items alone, each in its shortest encoding."""
    raw = _raw_block(content)
    if raw is None:
        return _walked_items(content, name), False
    datas = list(raw.items)
    items: list[Any] = (
        [_short_item(data) for data in datas]
        if compiled_block_items is None
        else compiled_block_items(BlockItem, ITEM_SLOTS, datas)
    )
    if not all(items):  # None: an item of another shape than the common one, which the general read takes
        for index, data in enumerate(datas):
            if items[index] is None:
                items[index] = _item(data, 0, len(data), index, name)
    # Without a field upb did not know, a content of the size of the items' shortest encoding
    # holds nothing but the items, encoded so.
    items_only = not len(UnknownFieldSet(raw)) and shortest_encoding_size(datas) == len(content)
    return items, items_only


def shortest_encoding_size(items: list[bytes]) -> int:
    """The size of a ``Block`` of these items, each in its shortest encoding (what upb's ``ByteSize``
    gives for them): a one-byte tag, the length as a varint, the bytes; counted over all the items
    at once (a varint takes one byte more from each power of 2^7 on)."""
    sizes = list(map(len, items))
    total = sum(sizes) + 2 * len(sizes)
    bound = _VARINT_STEP
    largest = max(sizes, default=0)
    while bound <= largest:
        total += sum(map((bound - 1).__lt__, sizes))
        bound <<= 7
    return total


_VARINT_STEP = 1 << 7

ITEM_SLOTS = (vars(BlockItem)["kind"], vars(BlockItem)["data"], vars(BlockItem)["payload_start"])
"""``BlockItem``'s slot descriptors, for the compiled core's functions that make or read items."""


def _raw_block(content: bytes) -> Any | None:
    """``content`` parsed as a ``Block`` whose items are ``bytes``: upb copies a bytes field as it
    stands, so its items are the wire bytes (fields after or between the items stay unknown
    fields, as the walk steps over them). None when upb refuses the input: then the walk names the
    fault."""
    try:
        return _RawBlock.FromString(content)
    except DecodeError:
        return None


def _short_item(data: bytes) -> BlockItem | None:
    """The common shape, read without the general walk: a one-byte tag of a length-delimited field
    and a one- or two-byte length that ends exactly at the item's end; None for anything else."""
    size = len(data)
    if size < 2:
        return None
    tag, first = data[0], data[1]
    if tag >= 0x80 or tag & 7 != LEN:
        return None
    if first < 0x80:
        length, start = first, 2
    elif size > 2 and 0 < data[2] < 0x80:
        length, start = (first & 0x7F) | (data[2] << 7), 3
    else:
        return None
    return BlockItem(tag >> 3, data, start) if start + length == size else None


def _walked_items(content: bytes, name: str) -> list[BlockItem]:
    items: list[BlockItem] = []
    position, end = 0, len(content)
    while position < end:
        number, wire_type, position = read_tag(content, position, end, "Block", name)
        if number != 1 or wire_type != LEN:
            # Not an item: a field newer than Block itself. Nothing hashes it; step over it.
            position = skip_field(content, position, end, wire_type, field=f"Block field {number}", name=name)
            continue
        stop, start = read_length(content, position, end, f"items[{len(items)}]", name)
        items.append(_item(content, start, stop, len(items), name))
        position = stop
    return items


def _item(content: bytes, start: int, stop: int, index: int, name: str) -> BlockItem:
    what = f"items[{index}]"
    if start == stop:
        raise CorruptFileError(f"field {what}: expected one item but got an empty BlockItem", file=name)
    kind, wire_type, position = read_tag(content, start, stop, what, name)
    payload = position
    if wire_type == LEN:
        value_end, payload = read_length(content, position, stop, what, name)
    elif kind in _KIND_NAMES:
        raise CorruptFileError(
            f"field {what}.{kind_name(kind)}: expected a length-delimited value but got wire type {wire_type}",
            file=name,
        )
    else:
        value_end = skip_field(content, position, stop, wire_type, field=what, name=name)
    if value_end != stop:
        extra, _, _ = read_tag(content, value_end, stop, what, name)
        raise CorruptFileError(
            f"field {what}: expected one item but got {kind_name(kind)} and then field {extra}", file=name
        )
    return BlockItem(kind, content[start:stop], payload - start)


def _raw_block_type() -> Any:
    """``Block`` with its items declared ``bytes`` (same wire format), for :func:`_raw_block`."""
    field = descriptor_pb2.FieldDescriptorProto
    package = "hedera_history.raw_block"
    proto = descriptor_pb2.FileDescriptorProto(name="hedera_history/raw_block.proto", package=package, syntax="proto3")
    raw = proto.message_type.add(name="RawBlock")
    raw.field.add(name="items", number=1, type=field.TYPE_BYTES, label=field.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{package}.RawBlock"))


_RawBlock = _raw_block_type()


_KIND = attrgetter("kind")


def _of_kind(items: tuple[BlockItem, ...], kinds: list[int], kind: ItemKind) -> list[BlockItem]:
    """The items of ``kind``, in order (``kinds``: each item's kind)."""
    found: list[BlockItem] = []
    start = 0
    for _ in range(kinds.count(kind.value)):
        start = kinds.index(kind.value, start) + 1
        found.append(items[start - 1])
    return found


def _version(header: Any, field: str, name: str, *, required: bool = True) -> SemanticVersion:
    if not header.HasField(field):
        if required:
            raise CorruptFileError(f"field block_header.{field}: expected a value but got none", file=name)
        return SemanticVersion(0, 0, 0)
    value = getattr(header, field)
    return SemanticVersion(value.major, value.minor, value.patch, value.pre, value.build)


def _timestamp(header: Any, name: str) -> tuple[int, int]:
    if header.hash_algorithm != SHA2_384:
        raise UnsupportedVersionError(
            f"field block_header.hash_algorithm: expected {SHA2_384} (SHA2_384) but got {header.hash_algorithm}",
            file=name,
        )
    if not header.HasField("block_timestamp"):
        raise CorruptFileError("field block_header.block_timestamp: expected a value but got none", file=name)
    timestamp = header.block_timestamp
    return timestamp.seconds, timestamp.nanos


def _footer(payload: bytes, name: str) -> FooterHashes:
    footer = parse_message(block_footer_pb2.BlockFooter, payload, "block_footer", name)
    previous = _hash(footer.previous_block_root_hash, "previous_block_root_hash", name)
    all_blocks = _hash(footer.root_hash_of_all_block_hashes_tree, "root_hash_of_all_block_hashes_tree", name)
    state: bytes = footer.start_of_block_state_root_hash
    if state:
        _hash(state, "start_of_block_state_root_hash", name)
    return FooterHashes(previous, all_blocks, state)


def _hash(value: bytes, field: str, name: str) -> bytes:
    if len(value) != HASH_SIZE:
        raise CorruptFileError(
            f"field block_footer.{field}: expected {HASH_SIZE} bytes but got {len(value)}", file=name
        )
    return value


def _proof(payload: bytes, name: str) -> BlockProofItem:
    """The proof's block number and its oneof, whose bytes are taken from the wire as they stand. A
    proof of a kind newer than the protobufs is named by its field number."""
    message = parse_message(block_proof_pb2.BlockProof, payload, "block_proof", name)
    which = message.WhichOneof("proof")
    field: int | None = _PROOF_FIELDS[which] if which else None
    body = b""
    position, end = 0, len(payload)
    while position < end:
        number, wire_type, position = read_tag(payload, position, end, "block_proof", name)
        if wire_type == LEN and (number == field or (field is None and number not in _PROOF_FIELDS.values())):
            stop, start = read_length(payload, position, end, f"block_proof field {number}", name)
            field, body = number, payload[start:stop]  # protobuf's oneof rule: the last one given wins
            position = stop
        else:
            position = skip_field(payload, position, end, wire_type, field=f"block_proof field {number}", name=name)
    return BlockProofItem(message.block, field, payload, body)


_PROOF_FIELDS: dict[str, int] = {field.name: field.number for field in block_proof_pb2.BlockProof.DESCRIPTOR.fields}
