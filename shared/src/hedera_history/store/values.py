"""Payload layouts of the small cells (inside the envelope of ``store.encoding``).

All integers are big-endian and fixed width; variable parts are ``u32 length + bytes``. Each
``decode_*`` raises RowDecodeError on a payload of the wrong shape.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from hedera_history.errors import RowDecodeError, RowLayoutError
from hedera_history.formats.parsed_files import SidecarMetadata

_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")
_HAPI = struct.Struct(">III")
_POSITION = struct.Struct(">QI")
_HASH_ENTRY_1 = struct.Struct(">Qi")
_ID_ENTRY_1 = struct.Struct(">QiBi")
_HASH_ENTRY = struct.Struct(">QHHBi")
_ID_ENTRY = struct.Struct(">QHHiBi")
_ENTRY_POINTER = struct.Struct(">QHHB")

FLAG_APART = 0x01
"""An index entry of layout 2 whose transaction's bytes are in its ``transactions`` row (an errata
wrote them there), not only in the items row: a reader must read that row."""
FLAG_PART_1 = 0x02
"""An index entry of a duplicate block's second file (its index counts from that file's start)."""
FLAG_SCHEDULED = 0x04
"""``tx_by_id`` only: the transaction id's ``scheduled`` flag."""
_ENTRY_FLAGS = FLAG_APART | FLAG_PART_1
_COMPLETION = struct.Struct(">BII")
COMPLETION_LAYOUT = 3
"""Written in every completion cell, so a block says which layout its rows have: 1, transactions
rows hold the record and transaction bytes; 2, they point into the items row (block, index) and
``tx_by_hash`` keys are 16 bytes of the hash; 3, as 2 with ``transactions`` and ``sidecars`` keys
behind a time bucket (``keys.row_key_for_transaction``). Readers take all three."""
KNOWN_COMPLETION_LAYOUTS = (1, 2, 3)


def encode_u64(value: int) -> bytes:
    return _U64.pack(value)


def decode_u64(payload: bytes) -> int:
    return int(_unpack(_U64, payload, "u64")[0])


def encode_u32(value: int) -> bytes:
    return _U32.pack(value)


def decode_u32(payload: bytes) -> int:
    return int(_unpack(_U32, payload, "u32")[0])


def encode_hapi_version(version: tuple[int, int, int]) -> bytes:
    return _HAPI.pack(*version)


def decode_hapi_version(payload: bytes) -> tuple[int, int, int]:
    major, minor, patch = _unpack(_HAPI, payload, "hapi version")
    return int(major), int(minor), int(patch)


_CELL_1 = struct.Struct(">B")
_CELL_2 = struct.Struct(">H")


def cell_suffix(cell: int | None) -> bytes:
    """The items cell a layout-2 entry names, at its end: one byte below 256, else two (the
    entry's length tells which, and tells it from entries naming no cell); none for None."""
    if cell is None:
        return b""
    if 0 <= cell < 0x100:
        return _CELL_1.pack(cell)
    if 0x100 <= cell < 0x10000:
        return _CELL_2.pack(cell)
    raise RowLayoutError(f"items cell number {cell} does not fit two bytes")


def _split_cell(payload: bytes, size: int, what: str) -> tuple[bytes, int | None]:
    """An entry of ``size`` bytes and the cell after it (None: the entry names no cell, as
    entries written before cells did)."""
    extra = len(payload) - size
    if extra == 0:
        return payload, None
    if extra == 1:
        return payload[:size], payload[size]
    if extra == 2:
        return payload[:size], int(_CELL_2.unpack_from(payload, size)[0])
    raise RowDecodeError(f"{what}: expected {size} to {size + 2} bytes, got {len(payload)}")


@dataclass(frozen=True, slots=True)
class Position:
    """Where a transaction stands: its block, its index among the block's items and the items
    cell holding it (None in rows written before cells: the whole items row is read)."""

    block_number: int
    index: int
    cell: int | None = None


def encode_position(position: Position) -> bytes:
    return pack_position(position.block_number, position.index) + cell_suffix(position.cell)


pack_position = _POSITION.pack
"""``pack_position(block_number, index)``: :func:`encode_position` without building a Position,
to be followed by ``cell_suffix(cell)``."""


def decode_position(payload: bytes) -> Position:
    payload, cell = _split_cell(payload, _POSITION.size, "position")
    block, index = _unpack(_POSITION, payload, "position")
    return Position(int(block), int(index), cell)


@dataclass(frozen=True, slots=True)
class EntryPointer:
    """Where an index entry's transaction is: block, items cell, the item's place in that cell,
    flags (``FLAG_*``). ``cell`` and ``offset`` are None in entries of layout 1, which named the
    block only. The item's index in the block is the cell's first index (in its qualifier) plus
    ``offset``."""

    block_number: int
    cell: int | None = None
    offset: int | None = None
    flags: int = 0

    @property
    def part(self) -> int:
        return 1 if self.flags & FLAG_PART_1 else 0

    @property
    def apart(self) -> bool:
        return bool(self.flags & FLAG_APART)


pack_entry_pointer = _ENTRY_POINTER.pack
"""``pack_entry_pointer(block_number, cell, offset, flags)``: an ``account_history`` cell of layout 2."""


def decode_entry_pointer(payload: bytes) -> EntryPointer:
    """An ``account_history`` cell: ``u64 block`` (layout 1) or ``u64 block, u16 cell, u16 offset,
    u8 flags``."""
    if len(payload) == _U64.size:
        return EntryPointer(decode_u64(payload))
    block, cell, offset, flags = _unpack(_ENTRY_POINTER, payload, "account history entry")
    flags = _checked_flags(int(flags), _ENTRY_FLAGS, "account history entry")
    return EntryPointer(int(block), int(cell), int(offset), flags)


@dataclass(frozen=True, slots=True)
class HashEntry:
    """A ``tx_by_hash`` cell: the block of the transaction and its receipt status (and, from
    layout 2, its items cell, its place in the cell and flags)."""

    block_number: int
    status: int
    cell: int | None = None
    offset: int = 0
    flags: int = 0


def encode_hash_entry(entry: HashEntry) -> bytes:
    if entry.cell is None:
        return _HASH_ENTRY_1.pack(entry.block_number, entry.status)
    return pack_hash_entry(entry.block_number, entry.cell, entry.offset, entry.flags, entry.status)


pack_hash_entry = _HASH_ENTRY.pack
"""``pack_hash_entry(block_number, cell, offset, flags, status)``: :func:`encode_hash_entry`
without a HashEntry."""


def decode_hash_entry(payload: bytes) -> HashEntry:
    if len(payload) == _HASH_ENTRY_1.size:
        block, status = _unpack(_HASH_ENTRY_1, payload, "tx_by_hash entry")
        return HashEntry(int(block), int(status))
    block, cell, offset, flags, status = _unpack(_HASH_ENTRY, payload, "tx_by_hash entry")
    flags = _checked_flags(int(flags), _ENTRY_FLAGS, "tx_by_hash entry")
    return HashEntry(int(block), int(status), int(cell), int(offset), flags)


@dataclass(frozen=True, slots=True)
class IdEntry:
    """A ``tx_by_id`` cell: what tells results sharing one transaction id apart (and, from layout
    2, the result's items cell, its place in the cell and flags)."""

    block_number: int
    nonce: int
    scheduled: bool
    status: int
    cell: int | None = None
    offset: int = 0
    flags: int = 0


def encode_id_entry(entry: IdEntry) -> bytes:
    if entry.cell is None:
        return _ID_ENTRY_1.pack(entry.block_number, entry.nonce, int(entry.scheduled), entry.status)
    flags = entry.flags | (FLAG_SCHEDULED if entry.scheduled else 0)
    return pack_id_entry(entry.block_number, entry.cell, entry.offset, entry.nonce, flags, entry.status)


pack_id_entry = _ID_ENTRY.pack
"""``pack_id_entry(block_number, cell, offset, nonce, flags, status)`` (``FLAG_SCHEDULED`` among
the flags): :func:`encode_id_entry` without an IdEntry."""


def decode_id_entry(payload: bytes) -> IdEntry:
    if len(payload) == _ID_ENTRY_1.size:
        block, nonce, scheduled, status = _unpack(_ID_ENTRY_1, payload, "tx_by_id entry")
        if scheduled not in (0, 1):
            raise RowDecodeError(f"tx_by_id entry: scheduled flag must be 0 or 1, got {scheduled}")
        return IdEntry(int(block), int(nonce), bool(scheduled), int(status))
    block, cell, offset, nonce, flags, status = _unpack(_ID_ENTRY, payload, "tx_by_id entry")
    flags = _checked_flags(int(flags), _ENTRY_FLAGS | FLAG_SCHEDULED, "tx_by_id entry")
    scheduled = bool(flags & FLAG_SCHEDULED)
    return IdEntry(int(block), int(nonce), scheduled, int(status), int(cell), int(offset), flags & ~FLAG_SCHEDULED)


FLAG_OFFSETS = {
    "tx_by_hash": (_HASH_ENTRY.size, 12),
    "tx_by_id": (_ID_ENTRY.size, 16),
    "account_history": (_ENTRY_POINTER.size, 12),
}
"""Index table -> (size of its layout-2 entry, offset of the flags byte in it)."""


def marked_apart(table: str, payload: bytes) -> bytes:
    """An index entry of ``table`` with ``FLAG_APART`` set, as an errata writes the index cells of
    the entry it puts in a ``transactions`` row (a reader then reads that row, so the entry's cell
    and offset are left at 0: they name no item); any other payload (layout 1) is returned as it is."""
    size, offset = FLAG_OFFSETS.get(table, (-1, 0))
    if len(payload) != size:
        return payload
    flags = payload[offset] | FLAG_APART
    return payload[:8] + bytes(4) + payload[12:offset] + bytes([flags]) + payload[offset + 1 :]


def _checked_flags(flags: int, known: int, what: str) -> int:
    if flags & ~known:
        raise RowDecodeError(f"{what}: unknown flags 0x{flags:02x}")
    return flags


@dataclass(frozen=True, slots=True)
class SignatureValue:
    node_id: int
    file_signature: bytes
    metadata_signature: bytes | None


def encode_signature(value: SignatureValue) -> bytes:
    parts = [_U64.pack(value.node_id), _sized(value.file_signature)]
    if value.metadata_signature is not None:
        parts.append(_sized(value.metadata_signature))
    return b"".join(parts)


def decode_signature(payload: bytes) -> SignatureValue:
    node_id = decode_u64(payload[:8])
    file_signature, rest = _take_sized(payload[8:], "file signature")
    metadata_signature = None
    if rest:
        metadata_signature, rest = _take_sized(rest, "metadata signature")
    if rest:
        raise RowDecodeError(f"signature cell: {len(rest)} bytes after the metadata signature")
    return SignatureValue(node_id, file_signature, metadata_signature)


@dataclass(frozen=True, slots=True)
class BlockProofValue:
    """``h:block_proof`` of a block-stream block: ``u8 signed, u64 weight, u64 total weight`` then
    the serialised ``BlockProof`` as it stands in the block (TSS: the signers' weight of the hinTS
    key's total; unsigned, a pre-TSS placeholder: 0 of 0)."""

    signed: bool
    weight: int
    total_weight: int
    proof: bytes


_BLOCK_PROOF = struct.Struct(">BQQ")


def encode_block_proof(value: BlockProofValue) -> bytes:
    return _BLOCK_PROOF.pack(int(value.signed), value.weight, value.total_weight) + value.proof


def decode_block_proof(payload: bytes) -> BlockProofValue:
    signed, weight, total = _unpack(_BLOCK_PROOF, payload[: _BLOCK_PROOF.size], "block proof")
    return BlockProofValue(bool(signed), weight, total, payload[_BLOCK_PROOF.size :])


def encode_sidecar_metadata(sidecars: tuple[SidecarMetadata, ...]) -> bytes:
    """``u32 count``, then per sidecar ``u32 id, u32 type count, u32 types..., sized hash``."""
    parts = [_U32.pack(len(sidecars))]
    for sidecar in sidecars:
        parts.append(_U32.pack(sidecar.id) + _U32.pack(len(sidecar.types)))
        parts.extend(_U32.pack(t) for t in sidecar.types)
        parts.append(_sized(sidecar.hash))
    return b"".join(parts)


def decode_sidecar_metadata(payload: bytes) -> tuple[SidecarMetadata, ...]:
    count = decode_u32(payload[:4])
    rest = payload[4:]
    out: list[SidecarMetadata] = []
    for _ in range(count):
        sidecar_id, type_count = _unpack(struct.Struct(">II"), rest[:8], "sidecar header")
        end = 8 + 4 * type_count
        if len(rest) < end:
            raise RowDecodeError("sidecar metadata: truncated type list")
        types = tuple(int(t) for t in struct.unpack(f">{type_count}I", rest[8:end]))
        digest, rest = _take_sized(rest[end:], "sidecar hash")
        out.append(SidecarMetadata(int(sidecar_id), types, digest))
    if rest:
        raise RowDecodeError(f"sidecar metadata: {len(rest)} bytes after {count} entries")
    return tuple(out)


@dataclass(frozen=True, slots=True)
class CompletionValue:
    """What the completion cell says about the finished block."""

    item_count: int
    sidecar_record_count: int
    layout: int = COMPLETION_LAYOUT
    """The layout the block's rows were written in (see COMPLETION_LAYOUT)."""


def encode_completion(value: CompletionValue) -> bytes:
    return _COMPLETION.pack(value.layout, value.item_count, value.sidecar_record_count)


def decode_completion(payload: bytes) -> CompletionValue:
    layout, items, sidecar_records = _unpack(_COMPLETION, payload, "completion")
    if layout not in KNOWN_COMPLETION_LAYOUTS:
        raise RowDecodeError(f"completion cell: unknown layout {layout}")
    return CompletionValue(int(items), int(sidecar_records), int(layout))


def encode_text(text: str) -> bytes:
    return text.encode("utf-8")


def decode_text(payload: bytes) -> str:
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RowDecodeError(f"text cell is not UTF-8: {e}") from e


def _sized(data: bytes) -> bytes:
    return _U32.pack(len(data)) + data


def _take_sized(data: bytes, what: str) -> tuple[bytes, bytes]:
    if len(data) < 4:
        raise RowDecodeError(f"{what}: missing length")
    (length,) = _U32.unpack_from(data)
    if len(data) < 4 + length:
        raise RowDecodeError(f"{what}: needs {length} bytes, {len(data) - 4} left")
    return data[4 : 4 + length], data[4 + length :]


def _unpack(layout: struct.Struct, payload: bytes, what: str) -> tuple[int, ...]:
    if len(payload) != layout.size:
        raise RowDecodeError(f"{what}: expected {layout.size} bytes, got {len(payload)}")
    return tuple(layout.unpack(payload))
