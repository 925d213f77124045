"""The seven Cardinal Streams message types: typed values, their keys and their encoded values.

Keys are the spec's fields concatenated with no separator (the spec's ``.`` joins names, it is
not a byte). Application keys are UTF-8 text, as the spec's Avro ``string`` keys require.
Constructing a message with an out-of-range field, or decoding a malformed key or value, raises
:class:`~hedera_history.errors.MessageFormatError`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from hedera_history.cardinal import avro_schemas as avro
from hedera_history.errors import MessageFormatError

HASH_SIZE: Final = 32
NO_SUB_BATCH: Final = bytes(HASH_SIZE)
"""The ``subbatch`` field of a Batch entry that is not a sub-batch."""
MAX_NUMBER: Final = avro.LONG_MAX
MAX_WEIGHT: Final = 2**256 - 1
MAX_COUNT: Final = avro.INT_MAX


class MessageType(enum.IntEnum):
    """The first byte of every key."""

    BATCH = 0x00
    SUB_BATCH_HEADER = 0x01
    SUB_BATCH_MSG = 0x02
    BATCH_MSG = 0x03
    BATCH_DELETE_MSG = 0x04
    REORG = 0x05
    REORG_COMPLETE = 0x06


@dataclass(frozen=True, slots=True)
class WireMessage:
    """A message as a broker carries it: a partition key and a value."""

    key: bytes
    value: bytes

    @property
    def size(self) -> int:
        return len(self.key) + len(self.value)


# ---- field checks --------------------------------------------------------------------------------


def _check_hash(name: str, value: bytes) -> None:
    if not isinstance(value, bytes) or len(value) != HASH_SIZE:
        raise MessageFormatError(f"{name}: expected {HASH_SIZE} bytes, got {value!r:.80}")


def _check_batch_id(value: bytes) -> None:
    _check_hash("sub-batch id", value)
    if value == NO_SUB_BATCH:
        raise MessageFormatError("sub-batch id: the all-zero id means 'no sub-batch'")


def _check_number(value: int) -> None:
    if not 0 <= value <= MAX_NUMBER:
        raise MessageFormatError(f"number: {value} is outside 0..2^63-1 (an Avro long)")


def _check_weight(value: int) -> None:
    if not 0 <= value <= MAX_WEIGHT:
        raise MessageFormatError(f"weight: {value} is outside 0..2^256-1")


def _check_count(name: str, value: int, minimum: int) -> None:
    if not minimum <= value <= MAX_COUNT:
        raise MessageFormatError(f"{name}: {value} is outside {minimum}..2^31-1 (an Avro int)")


def _utf8(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise MessageFormatError(f"{what}: not UTF-8") from e


def weight_to_bytes(weight: int) -> bytes:
    """Big-endian, minimal length (zero is the empty string)."""
    _check_weight(weight)
    return weight.to_bytes((weight.bit_length() + 7) // 8, "big")


def weight_from_bytes(data: bytes) -> int:
    weight = int.from_bytes(data, "big")
    _check_weight(weight)
    return weight


# ---- Batch entries -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InlineValue:
    """The key (not under any application prefix) is set to ``value`` by the Batch itself."""

    value: bytes


@dataclass(frozen=True, slots=True)
class InlineDelete:
    """The key is deleted by the Batch itself."""


@dataclass(frozen=True, slots=True)
class PrefixCount:
    """``count`` BatchMsg / BatchDeleteMsg messages carry keys beginning with this prefix."""

    count: int

    def __post_init__(self) -> None:
        _check_count("count", self.count, 1)


@dataclass(frozen=True, slots=True)
class SubBatchRef:
    """A sub-batch with this id carries the keys beginning with this prefix."""

    batch_id: bytes

    def __post_init__(self) -> None:
        _check_batch_id(self.batch_id)


BatchEntry = InlineValue | InlineDelete | PrefixCount | SubBatchRef


def _entry_to_record(entry: BatchEntry) -> dict[str, Any]:
    record: dict[str, Any] = {"value": b"", "count": 0, "delete": False, "subbatch": NO_SUB_BATCH}
    match entry:
        case InlineValue(value):
            record["value"] = value
        case InlineDelete():
            record["delete"] = True
        case PrefixCount(count):
            record["count"] = count
        case SubBatchRef(batch_id):
            record["subbatch"] = batch_id
    return record


def _entry_from_record(name: str, record: Mapping[str, Any]) -> BatchEntry:
    value, count, delete, sub_batch = record["value"], record["count"], record["delete"], record["subbatch"]
    if count < 0:
        raise MessageFormatError(f"batch entry {name!r}: negative count {count}")
    roles = [sub_batch != NO_SUB_BATCH, count > 0, bool(delete), value != b""]
    if sum(roles) > 1:
        raise MessageFormatError(f"batch entry {name!r} sets more than one of value, count, delete, subbatch")
    if roles[0]:
        return SubBatchRef(sub_batch)
    if roles[1]:
        return PrefixCount(count)
    if roles[2]:
        return InlineDelete()
    return InlineValue(value)


# ---- messages ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Batch:
    """``\\x00`` + hash. Describes a block and how the rest of its content travels."""

    block_hash: bytes
    number: int
    weight: int
    parent: bytes
    entries: Mapping[str, BatchEntry] = field(default_factory=dict)
    """The spec's ``updates`` map: an application key (inline) or a prefix, to its entry."""

    def __post_init__(self) -> None:
        _check_hash("block hash", self.block_hash)
        _check_hash("parent", self.parent)
        _check_number(self.number)
        _check_weight(self.weight)

    def encode(self) -> WireMessage:
        return WireMessage(bytes([MessageType.BATCH]) + self.block_hash, self.encode_value())

    def encode_value(self) -> bytes:
        return avro.encode_batch_record(
            {
                "num": self.number,
                "weight": weight_to_bytes(self.weight),
                "parent": self.parent,
                "updates": {name: _entry_to_record(entry) for name, entry in self.entries.items()},
            }
        )

    @classmethod
    def decode_value(cls, block_hash: bytes, value: bytes) -> Batch:
        record = avro.decode_batch_record(value)
        entries = {name: _entry_from_record(name, entry) for name, entry in record["updates"].items()}
        return cls(block_hash, record["num"], weight_from_bytes(record["weight"]), record["parent"], entries)


@dataclass(frozen=True, slots=True)
class SubBatchHeader:
    """``\\x01`` + hash + batch id. Value: the number of SubBatchMsg messages (an Avro int)."""

    block_hash: bytes
    batch_id: bytes
    item_count: int

    def __post_init__(self) -> None:
        _check_hash("block hash", self.block_hash)
        _check_batch_id(self.batch_id)
        _check_count("item count", self.item_count, 0)

    def encode(self) -> WireMessage:
        key = bytes([MessageType.SUB_BATCH_HEADER]) + self.block_hash + self.batch_id
        return WireMessage(key, avro.encode_int(self.item_count))


@dataclass(frozen=True, slots=True)
class SubBatchMsg:
    """``\\x02`` + hash + batch id + index (an Avro long). Value: deletes and updates (Avro)."""

    block_hash: bytes
    batch_id: bytes
    index: int
    deletes: tuple[str, ...] = ()
    updates: Mapping[str, bytes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_hash("block hash", self.block_hash)
        _check_batch_id(self.batch_id)
        _check_count("index", self.index, 0)

    def encode(self) -> WireMessage:
        return WireMessage(
            sub_batch_msg_key(self.block_hash, self.batch_id, self.index),
            encode_sub_batch_value(self.deletes, self.updates),
        )


def sub_batch_msg_key(block_hash: bytes, batch_id: bytes, index: int) -> bytes:
    return bytes([MessageType.SUB_BATCH_MSG]) + block_hash + batch_id + avro.encode_long(index)


def encode_sub_batch_value(deletes: Sequence[str], updates: Mapping[str, bytes]) -> bytes:
    return avro.encode_sub_batch_record({"delete": list(deletes), "updates": dict(updates)})


@dataclass(frozen=True, slots=True)
class BatchMsg:
    """``\\x03`` + hash + application key. Value: the raw value."""

    block_hash: bytes
    key: str
    value: bytes

    def __post_init__(self) -> None:
        _check_hash("block hash", self.block_hash)

    def encode(self) -> WireMessage:
        return WireMessage(bytes([MessageType.BATCH_MSG]) + self.block_hash + self.key.encode(), self.value)


@dataclass(frozen=True, slots=True)
class BatchDeleteMsg:
    """``\\x04`` + hash + application key. Value: empty."""

    block_hash: bytes
    key: str

    def __post_init__(self) -> None:
        _check_hash("block hash", self.block_hash)

    def encode(self) -> WireMessage:
        return WireMessage(bytes([MessageType.BATCH_DELETE_MSG]) + self.block_hash + self.key.encode(), b"")


@dataclass(frozen=True, slots=True)
class _AncestorMessage:
    """The message type + common ancestor hash. Value: the ancestor's number (an Avro long)."""

    TYPE: ClassVar[MessageType]
    block_hash: bytes
    number: int

    def __post_init__(self) -> None:
        _check_hash("block hash", self.block_hash)
        _check_number(self.number)

    def encode(self) -> WireMessage:
        return WireMessage(bytes([self.TYPE]) + self.block_hash, avro.encode_long(self.number))


@dataclass(frozen=True, slots=True)
class Reorg(_AncestorMessage):
    """``\\x05`` + common ancestor hash. Value: the ancestor's number (an Avro long)."""

    TYPE: ClassVar[MessageType] = MessageType.REORG


@dataclass(frozen=True, slots=True)
class ReorgComplete(_AncestorMessage):
    """``\\x06`` + common ancestor hash. Value: the ancestor's number (an Avro long)."""

    TYPE: ClassVar[MessageType] = MessageType.REORG_COMPLETE


CardinalMessage = Batch | SubBatchHeader | SubBatchMsg | BatchMsg | BatchDeleteMsg | Reorg | ReorgComplete
BlockDataMessage = SubBatchHeader | SubBatchMsg | BatchMsg | BatchDeleteMsg
"""Messages that carry part of a block announced by a Batch."""

_HASH_END = 1 + HASH_SIZE
_BATCH_ID_END = _HASH_END + HASH_SIZE


def decode_message(message: WireMessage) -> CardinalMessage:
    """The typed message a key and value encode; :class:`MessageFormatError` when they encode none."""
    key, value = message.key, message.value
    if len(key) < _HASH_END:
        raise MessageFormatError(f"key of {len(key)} bytes is shorter than a type byte and a block hash")
    try:
        kind = MessageType(key[0])
    except ValueError as e:
        raise MessageFormatError(f"unknown message type byte 0x{key[0]:02x}") from e
    return _DECODERS[kind](key[1:_HASH_END], key, value)


def _decode_batch(block_hash: bytes, key: bytes, value: bytes) -> Batch:
    _no_more(key[_HASH_END:], MessageType.BATCH)
    return Batch.decode_value(block_hash, value)


def _decode_sub_batch_header(block_hash: bytes, key: bytes, value: bytes) -> SubBatchHeader:
    batch_id = _batch_id(key)
    _no_more(key[_BATCH_ID_END:], MessageType.SUB_BATCH_HEADER)
    return SubBatchHeader(block_hash, batch_id, avro.decode_int(value, "sub-batch item count"))


def _decode_sub_batch_msg(block_hash: bytes, key: bytes, value: bytes) -> SubBatchMsg:
    batch_id = _batch_id(key)
    index = avro.decode_long(key[_BATCH_ID_END:], "sub-batch index")
    record = avro.decode_sub_batch_record(value)
    return SubBatchMsg(block_hash, batch_id, index, tuple(record["delete"]), record["updates"])


def _decode_batch_msg(block_hash: bytes, key: bytes, value: bytes) -> BatchMsg:
    return BatchMsg(block_hash, _utf8(key[_HASH_END:], "batch message key"), value)


def _decode_batch_delete_msg(block_hash: bytes, key: bytes, value: bytes) -> BatchDeleteMsg:
    if value:
        raise MessageFormatError(f"batch delete message has a {len(value)}-byte value; it must be empty")
    return BatchDeleteMsg(block_hash, _utf8(key[_HASH_END:], "batch delete message key"))


def _decode_reorg(block_hash: bytes, key: bytes, value: bytes) -> Reorg:
    _no_more(key[_HASH_END:], MessageType.REORG)
    return Reorg(block_hash, avro.decode_long(value, "reorg number"))


def _decode_reorg_complete(block_hash: bytes, key: bytes, value: bytes) -> ReorgComplete:
    _no_more(key[_HASH_END:], MessageType.REORG_COMPLETE)
    return ReorgComplete(block_hash, avro.decode_long(value, "reorg complete number"))


_DECODERS: dict[MessageType, Callable[[bytes, bytes, bytes], CardinalMessage]] = {
    MessageType.BATCH: _decode_batch,
    MessageType.SUB_BATCH_HEADER: _decode_sub_batch_header,
    MessageType.SUB_BATCH_MSG: _decode_sub_batch_msg,
    MessageType.BATCH_MSG: _decode_batch_msg,
    MessageType.BATCH_DELETE_MSG: _decode_batch_delete_msg,
    MessageType.REORG: _decode_reorg,
    MessageType.REORG_COMPLETE: _decode_reorg_complete,
}
"""Each message type's decoder, given the block hash, the whole key and the value."""


def _batch_id(key: bytes) -> bytes:
    if len(key) < _BATCH_ID_END:
        raise MessageFormatError(f"key of {len(key)} bytes is too short to hold a sub-batch id")
    return key[_HASH_END:_BATCH_ID_END]


def _no_more(rest: bytes, kind: MessageType) -> None:
    if rest:
        raise MessageFormatError(f"{kind.name.lower()} key has {len(rest)} unexpected trailing bytes")
