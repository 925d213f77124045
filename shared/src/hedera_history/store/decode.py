"""Stored rows back into values. Every ``decode_*`` raises RowDecodeError naming the row.

Readers catch that error per row, so one corrupt row never fails a whole multi-row read.

Cells an errata removed hold a tombstone (``is_tombstone``): they do not exist. A ``transactions``
row whose record is one is a removed entry and an account-history or sidecar row whose block cell
is one is gone (their decoders answer None); tombstoned index cells are left out of the results.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.block import NodeSignature
from hedera_history.errors import RowDecodeError
from hedera_history.formats.parsed_files import SidecarMetadata
from hedera_history.store import schema as s
from hedera_history.store.duplicates import PART_COMPLETE, Q_PART, check_part_cell, first_part_row, second_part_row
from hedera_history.store.encoding import decode_value
from hedera_history.store.gateway import StoredCell, StoredRow
from hedera_history.store.keys import (
    block_number_from_key,
    consensus_from_key,
    decode_account_history_key,
    parse_items_qualifier,
)
from hedera_history.store.values import (
    CompletionValue,
    EntryPointer,
    HashEntry,
    IdEntry,
    decode_block_proof,
    decode_completion,
    decode_entry_pointer,
    decode_hapi_version,
    decode_hash_entry,
    decode_id_entry,
    decode_position,
    decode_sidecar_metadata,
    decode_signature,
    decode_text,
    decode_u32,
    decode_u64,
)

T = TypeVar("T")

TOMBSTONE_HEADER = 0xEE
"""First byte of a cell an errata removed (``errata.cells.tombstone_value``): no encoding header
``store.encoding`` knows. Defined here, where readers test for it: errata builds on the store, not the
other way round, and takes it from here."""
Q_ERRATA_MARKER = b"errata"
"""The ``transactions`` cell an errata leaves on the entry it corrected (``errata.cells.Q_ERRATA``)."""


def is_tombstone(value: bytes) -> bool:
    return value[:1] == bytes([TOMBSTONE_HEADER])


@dataclass(frozen=True, slots=True)
class StoredBlock:
    number: int
    version: int
    name: str
    file_hash: bytes
    metadata_hash: bytes | None
    start_running_hash: bytes | None
    end_running_hash: bytes | None
    previous_hash: bytes
    consensus_start: int
    consensus_end: int
    item_count: int
    hapi_version: tuple[int, int, int]
    sidecars: tuple[SidecarMetadata, ...]
    signatures: tuple[NodeSignature, ...]
    completion: CompletionValue
    parts: tuple[StoredBlock, ...] = ()
    """The two files of a duplicate block (``store.duplicates``), each with its own header and
    signatures; this block merges them as the mirror node does. Empty for any other block."""
    wrapped_envelope: bytes | None = None
    """A wrapped record block's envelope (``schema.Q_WRAPPED_BLOCK``); None for any other block."""
    gas_used: int | None = None
    """Gas of its top-level contract results; None in rows written before it was stored."""
    logs_bloom: bytes | None = None
    """The OR of their logs blooms (256 bytes); None in rows written before it was stored."""
    unsigned: bool = False
    """A block-stream block stored unsigned (its ``h:block_proof`` cell's signed flag clear: a
    pre-TSS placeholder proof taken under ``HEDERA_HISTORY_UNSIGNED_BLOCKS``): nothing signs it."""

    @property
    def following_hash(self) -> bytes | None:
        """What the next record file must name as its ``previous_hash`` (as a parsed file's ``hash``):
        the end running hash from V5 on, the file hash before; None for a row without one."""
        return self.end_running_hash if self.version >= 5 else self.file_hash


@dataclass(frozen=True, slots=True)
class StoredTransaction:
    consensus_ns: int
    block_number: int
    index: int
    record_bytes: bytes
    transaction_bytes: bytes
    errata_marker: bytes | None = None
    """The stored ``t:errata`` cell when an errata corrected this entry (``errata.cells.decode_marker``)."""
    part: int = 0
    """1 for an entry of a duplicate block's second file as stored: its ``index`` counts from that
    file's start. ``HistoryReader`` answers with the first file's item count added, and part 0."""
    in_items: bool = False
    """The row only points (layout 2): the bytes are the item at ``index`` of the block's items
    row (of file ``part``) and are still empty here. ``HistoryReader`` fills them in."""
    cell: int | None = None
    """With ``in_items``: the items cell holding the item (None: read the whole items row)."""
    offset: int | None = None
    """With ``cell``, from an index entry: the item's place in the cell; ``index`` is then known
    only once the cell is read (the cell's first index plus this)."""

    def record(self) -> Any:
        """The ``TransactionRecord``."""
        return hapi.TransactionRecord.FromString(self.record_bytes)


@dataclass(frozen=True, slots=True)
class TransactionIdResult:
    """One consensus result of a transaction id."""

    consensus_ns: int
    block_number: int
    nonce: int
    scheduled: bool
    status: int
    located: EntryPointer | None = None
    """Where the transaction is (layout 2; None for an entry of layout 1)."""


@dataclass(frozen=True, slots=True)
class HashResult:
    consensus_ns: int
    block_number: int
    status: int
    located: EntryPointer | None = None
    """Where the transaction is (layout 2; None for an entry of layout 1)."""


@dataclass(frozen=True, slots=True)
class AccountHistoryEntry:
    consensus_ns: int
    block_number: int
    located: EntryPointer | None = None
    """Where the transaction is (layout 2; None for an entry of layout 1)."""


@dataclass(frozen=True, slots=True)
class StoredSidecarRecord:
    consensus_ns: int
    type: int
    sidecar_id: int
    index: int
    raw: bytes
    """A serialised ``TransactionSidecarRecord``."""


@dataclass(frozen=True, slots=True)
class SidecarRow:
    block_number: int
    records: tuple[StoredSidecarRecord, ...]


@dataclass(frozen=True, slots=True)
class BlockFile:
    kind: str
    """``file``: the record file's signed bytes (V6 decompressed); ``items``: the item list."""
    data: bytes


def guarded(table: str, row: StoredRow, decode: Callable[[StoredRow], T]) -> T:
    """``decode(row)``, with any shape error reported as RowDecodeError naming table and row."""
    try:
        return decode(row)
    except RowDecodeError as e:
        raise RowDecodeError(f"{table} row {row.key!r}: {e.reason}") from e
    except (ValueError, IndexError, UnicodeDecodeError) as e:
        raise RowDecodeError(f"{table} row {row.key!r}: {e}") from e


def decode_block_row(row: StoredRow) -> StoredBlock:
    """The block; for a duplicate block (two files), the files merged as the mirror node merges
    them: consensus start, name and previous hash from the first, the rest from the second, counts
    and sidecars summed."""
    completion = decode_completion(_payload(_required(row, s.BLOCK_COMPLETION_FAMILY, s.Q_COMPLETE)))
    second_row = second_part_row(row)
    if second_row is None:
        return _decode_block_file(row, completion)
    first = _decode_block_file(first_part_row(row), _part_completion(row, 0))
    second = _decode_block_file(second_row, _part_completion(row, 1))
    return replace(
        second,
        name=first.name,
        start_running_hash=first.start_running_hash,
        previous_hash=first.previous_hash,
        consensus_start=first.consensus_start,
        item_count=first.item_count + second.item_count,
        sidecars=first.sidecars + second.sidecars,
        gas_used=None if first.gas_used is None or second.gas_used is None else first.gas_used + second.gas_used,
        logs_bloom=_either_bloom(first.logs_bloom, second.logs_bloom),
        completion=completion,
        parts=(first, second),
    )


def _either_bloom(first: bytes | None, second: bytes | None) -> bytes | None:
    """The OR of both files' blooms (None when either file's row has none)."""
    if first is None or second is None:
        return None
    return bytes(a | b for a, b in zip(first, second, strict=True))


def _part_completion(row: StoredRow, part: int) -> CompletionValue:
    return decode_completion(_payload(_required(row, s.BLOCK_HEADER_FAMILY, PART_COMPLETE[part])))


def _decode_block_file(row: StoredRow, completion: CompletionValue) -> StoredBlock:
    def header(qualifier: bytes) -> bytes:
        return _payload(_required(row, s.BLOCK_HEADER_FAMILY, qualifier))

    def optional(qualifier: bytes) -> bytes | None:
        cell = row.cell(s.BLOCK_HEADER_FAMILY, qualifier)
        return None if cell is None else _payload(cell)

    signatures = []
    for cell in row.family(s.BLOCK_SIGNATURE_FAMILY):
        value = decode_signature(_payload(cell))
        signatures.append(
            NodeSignature(cell.qualifier.decode("ascii"), value.node_id, value.file_signature, value.metadata_signature)
        )
    return StoredBlock(
        number=block_number_from_key(row.key),
        version=decode_u32(header(s.Q_VERSION)),
        name=decode_text(header(s.Q_NAME)),
        file_hash=header(s.Q_FILE_HASH),
        metadata_hash=optional(s.Q_METADATA_HASH),
        start_running_hash=optional(s.Q_START_RUNNING_HASH),
        end_running_hash=optional(s.Q_END_RUNNING_HASH),
        previous_hash=header(s.Q_PREVIOUS_HASH),
        consensus_start=decode_u64(header(s.Q_CONSENSUS_START)),
        consensus_end=decode_u64(header(s.Q_CONSENSUS_END)),
        item_count=decode_u32(header(s.Q_ITEM_COUNT)),
        hapi_version=decode_hapi_version(header(s.Q_HAPI_VERSION)),
        sidecars=decode_sidecar_metadata(header(s.Q_SIDECARS)),
        signatures=tuple(signatures),
        completion=completion,
        wrapped_envelope=optional(s.Q_WRAPPED_BLOCK),
        gas_used=None if (gas := optional(s.Q_GAS_USED)) is None else decode_u64(gas),
        logs_bloom=optional(s.Q_LOGS_BLOOM),
        unsigned=(proof := optional(s.Q_BLOCK_PROOF)) is not None and not decode_block_proof(proof).signed,
    )


def decode_transaction_row(row: StoredRow) -> StoredTransaction | None:
    """The entry, or None when an errata removed it (its record is a tombstone).

    A row with only a position points into the block's items row (``in_items``); a row with the
    record and transaction cells (written before layout 2, or by an errata) holds its own bytes.
    """
    family = s.TRANSACTION_FAMILY
    record = row.cell(family, s.Q_RECORD)
    if record is not None and is_tombstone(record.value):
        return None
    marker = row.cell(family, Q_ERRATA_MARKER)
    position_cell = _required(row, family, s.Q_POSITION)
    if is_tombstone(position_cell.value):
        return None
    position = decode_position(_payload(position_cell))
    part = row.cell(family, Q_PART)
    pointer = record is None
    return StoredTransaction(
        consensus_ns=consensus_from_key(row.key),
        block_number=position.block_number,
        index=position.index,
        part=0 if part is None else check_part_cell(part.value),
        record_bytes=b"" if pointer else _payload(_required(row, family, s.Q_RECORD)),
        transaction_bytes=b"" if pointer else _payload(_required(row, family, s.Q_TRANSACTION)),
        errata_marker=None if marker is None or is_tombstone(marker.value) else marker.value,
        in_items=pointer,
        cell=position.cell if pointer else None,
    )


def decode_tx_hash_row(row: StoredRow) -> list[HashResult]:
    """Every consensus result under one hash, oldest first."""
    results = []
    for cell in _present(row.family(s.TX_BY_HASH_FAMILY)):
        entry: HashEntry = decode_hash_entry(_payload(cell))
        located = _located(entry.block_number, entry.cell, entry.offset, entry.flags)
        results.append(HashResult(consensus_from_key(cell.qualifier), entry.block_number, entry.status, located))
    return sorted(results, key=lambda r: r.consensus_ns)


def decode_tx_id_row(row: StoredRow) -> list[TransactionIdResult]:
    """Every consensus result of one transaction id, oldest first."""
    results = []
    for cell in _present(row.family(s.TX_BY_ID_FAMILY)):
        entry: IdEntry = decode_id_entry(_payload(cell))
        results.append(
            TransactionIdResult(
                consensus_from_key(cell.qualifier),
                entry.block_number,
                entry.nonce,
                entry.scheduled,
                entry.status,
                _located(entry.block_number, entry.cell, entry.offset, entry.flags),
            )
        )
    return sorted(results, key=lambda r: r.consensus_ns)


def decode_account_history_row(row: StoredRow) -> AccountHistoryEntry | None:
    """The entry, or None when an errata took it out of the account's history."""
    _, consensus = decode_account_history_key(row.key)
    return history_entry(consensus, decode_pointer_cell(row))


def decode_pointer_cell(row: StoredRow) -> EntryPointer | None:
    """Where the transaction of an ``account_history`` row is (an account's entry, or a row of the
    entity index: ``store.entity_index``); None when an errata removed it."""
    cell = _required(row, s.ACCOUNT_HISTORY_FAMILY, s.Q_BLOCK)
    if is_tombstone(cell.value):
        return None
    return decode_entry_pointer(_payload(cell))


def history_entry(consensus_ns: int, pointer: EntryPointer | None) -> AccountHistoryEntry | None:
    """The entry a pointer cell of ``account_history`` gives for a consensus time (None: removed)."""
    if pointer is None:
        return None
    return AccountHistoryEntry(consensus_ns, pointer.block_number, None if pointer.cell is None else pointer)


def _located(block_number: int, cell: int | None, offset: int, flags: int) -> EntryPointer | None:
    return None if cell is None else EntryPointer(block_number, cell, offset, flags)


def decode_sidecar_row(row: StoredRow) -> SidecarRow | None:
    """The records, or None when an errata removed the entry they belong to."""
    consensus = consensus_from_key(row.key)
    block_cell = _required(row, s.SIDECAR_META_FAMILY, s.Q_BLOCK)
    if is_tombstone(block_cell.value):
        return None
    block = decode_u64(_payload(block_cell))
    records = []
    for cell in _present(row.family(s.SIDECAR_RECORD_FAMILY)):
        kind, sidecar_id, index = cell.qualifier.split(b"/")
        records.append(StoredSidecarRecord(consensus, int(kind), int(sidecar_id), int(index), _payload(cell)))
    return SidecarRow(block, tuple(records))


def decode_sidecar_message(record: StoredSidecarRecord) -> Any:
    """The ``TransactionSidecarRecord`` a stored sidecar record holds."""
    try:
        return hapi.TransactionSidecarRecord.FromString(record.raw)
    except DecodeError as e:
        raise RowDecodeError(
            f"sidecar record {record.type}/{record.sidecar_id}/{record.index} at {record.consensus_ns}: {e}"
        ) from e


def decode_items_row(row: StoredRow) -> BlockFile:
    """The chunks of the items row joined in order (of a duplicate block: the first file's)."""
    return _decode_items(first_part_row(row))


def decode_items_parts(row: StoredRow) -> tuple[BlockFile, ...]:
    """Every file of the items row: one, or the two files of a duplicate block in order."""
    second = second_part_row(row)
    first = _decode_items(first_part_row(row))
    return (first,) if second is None else (first, _decode_items(second))


def _decode_items(row: StoredRow) -> BlockFile:
    chunks: dict[bytes, list[tuple[int, bytes]]] = {}
    for cell in row.family(s.ITEMS_FAMILY):
        qualifier = parse_items_qualifier(cell.qualifier)
        chunks.setdefault(qualifier.kind, []).append((qualifier.number, cell.value))
    if len(chunks) != 1:
        raise RowDecodeError(f"expected one kind of items cells, found {sorted(chunks)}")
    ((kind, parts),) = chunks.items()
    parts.sort()
    if [n for n, _ in parts] != list(range(len(parts))):
        raise RowDecodeError(f"items chunks are not contiguous: {[n for n, _ in parts]}")
    # Cell 0 is the dictionary of the others (store.block_items).
    first = decode_value(parts[0][1])
    rest = b"".join(decode_value(value, first) for _, value in parts[1:])
    return BlockFile(kind.decode("ascii"), first + rest)


def _required(row: StoredRow, family: str, qualifier: bytes) -> StoredCell:
    cell = row.cell(family, qualifier)
    if cell is None:
        raise RowDecodeError(f"missing cell {family}:{qualifier.decode('ascii', 'replace')}")
    return cell


def _present(cells: list[StoredCell]) -> list[StoredCell]:
    return [cell for cell in cells if not is_tombstone(cell.value)]


def _payload(cell: StoredCell) -> bytes:
    return decode_value(cell.value)
