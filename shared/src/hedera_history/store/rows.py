"""Row building: a verified block in, the rows of every history table out. Pure and deterministic.

The same block always gives the same rows, cells and timestamps, whoever builds it (the ingest
function for the stream, the Spark job for a backfill), so writing it again changes nothing.
Nothing here depends on which node's copy of a file was read (no gzip sizes, no paths).
An item whose record or body does not decode still gets its ``transactions`` row and its place
in the items table; only the index rows that need the decoded fields are left out.
"""

from __future__ import annotations

from collections.abc import Iterable

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.block import NodeSignature, VerifiedBlock
from hedera_history.config import Settings
from hedera_history.errors import CorruptFileError
from hedera_history.formats.model import RecordItem
from hedera_history.store import schema as s
from hedera_history.store.accounts import accounts_touched, decode_transaction_body, entity_text
from hedera_history.store.chaintime import block_time_ns, cell_timestamp_micros
from hedera_history.store.duplicates import (
    Q_PART,
    DuplicateBlock,
    completion_cell,
    duplicate_part,
    duplicate_part_at,
    parse_duplicate_blocks,
    part_qualifier,
)
from hedera_history.store.encoding import encode_value
from hedera_history.store.keys import (
    MAX_U64,
    qualifier_for_consensus,
    row_key_for_account_history,
    row_key_for_block,
    row_key_for_sidecar,
    row_key_for_transaction,
    row_key_for_tx_hash,
    row_key_for_tx_id,
)
from hedera_history.store.model import BlockRows, Cell, Row
from hedera_history.store.originals import encode_item_list, signed_file_bytes
from hedera_history.store.values import (
    CompletionValue,
    HashEntry,
    IdEntry,
    Position,
    SignatureValue,
    encode_hapi_version,
    encode_hash_entry,
    encode_id_entry,
    encode_position,
    encode_sidecar_metadata,
    encode_signature,
    encode_text,
    encode_u32,
    encode_u64,
)

ITEMS_CHUNK_SIZE = 8 * 1024 * 1024
"""Largest slice of the signed bytes in one items cell (keeps cells and messages bounded)."""

_TABLE_ORDER = {name: i for i, name in enumerate(s.HISTORY_TABLES)}


def block_to_rows(block: VerifiedBlock, settings: Settings) -> BlockRows:
    """Every history row of ``block`` and, apart, its completion row."""
    record = block.record
    time_ns = block_time_ns(record)
    rows = _RowSet(cell_timestamp_micros(time_ns))
    block_key = row_key_for_block(block.block_number)
    part = duplicate_part(record, block.block_number, parse_duplicate_blocks(settings.duplicate_blocks))

    _add_header(rows, block, block_key, part)
    _add_items(rows, block, block_key, part)
    for index, item in enumerate(record.items):
        _add_transaction(rows, block.block_number, index, item)
        if part == 1:
            rows.put(s.TRANSACTIONS, row_key_for_transaction(item.consensus_ns), s.TRANSACTION_FAMILY, Q_PART, b"\x01")
    sidecar_records = 0
    if settings.sidecars_enabled:
        sidecar_records = _add_sidecars(rows, block)

    completion = CompletionValue(item_count=len(record.items), sidecar_record_count=sidecar_records)
    completion_row = Row(s.BLOCKS, block_key, (completion_cell(part, completion, rows.timestamp),))
    return BlockRows(block.block_number, time_ns, rows.build(), completion_row)


class _RowSet:
    """Cells gathered per (table, row key); several items may add to one row (e.g. one tx id)."""

    def __init__(self, timestamp_micros: int) -> None:
        self.timestamp = timestamp_micros
        self._rows: dict[tuple[str, bytes], dict[tuple[str, bytes], bytes]] = {}

    def put(self, table: str, key: bytes, family: str, qualifier: bytes, payload: bytes) -> None:
        self._rows.setdefault((table, key), {})[(family, qualifier)] = encode_value(payload)

    def build(self) -> tuple[Row, ...]:
        ordered = sorted(self._rows.items(), key=lambda entry: (_TABLE_ORDER[entry[0][0]], entry[0][1]))
        return tuple(
            Row(table, key, tuple(Cell(f, q, v, self.timestamp) for (f, q), v in sorted(cells.items())))
            for (table, key), cells in ordered
        )


def _add_header(rows: _RowSet, block: VerifiedBlock, key: bytes, part: int | None) -> None:
    record = block.record
    header: list[tuple[bytes, bytes]] = [
        (s.Q_VERSION, encode_u32(record.version)),
        (s.Q_NAME, encode_text(record.name.rsplit("/", 1)[-1])),
        (s.Q_FILE_HASH, record.file_hash),
        (s.Q_PREVIOUS_HASH, record.previous_hash),
        (s.Q_CONSENSUS_START, encode_u64(record.consensus_start)),
        (s.Q_CONSENSUS_END, encode_u64(record.consensus_end)),
        (s.Q_ITEM_COUNT, encode_u32(len(record.items))),
        (s.Q_HAPI_VERSION, encode_hapi_version(record.hapi_version)),
        (s.Q_SIDECARS, encode_sidecar_metadata(record.sidecars)),
    ]
    optional = (
        (s.Q_METADATA_HASH, record.metadata_hash),
        (s.Q_START_RUNNING_HASH, record.start_running_hash),
        (s.Q_END_RUNNING_HASH, record.end_running_hash),
    )
    header.extend((q, v) for q, v in optional if v is not None)
    for qualifier, payload in header:
        rows.put(s.BLOCKS, key, s.BLOCK_HEADER_FAMILY, part_qualifier(part, qualifier), payload)
    for signature in block.signatures:
        qualifier = part_qualifier(part, signature.node_account.encode())
        rows.put(s.BLOCKS, key, s.BLOCK_SIGNATURE_FAMILY, qualifier, _signature_payload(signature))


def signature_row(
    block_number: int, block_time: int, signature: NodeSignature, duplicates: tuple[DuplicateBlock, ...] = ()
) -> Row:
    """One node's signature cell on its own, exactly as :func:`block_to_rows` writes it (for a
    signature verified after its block was published); ``block_time`` tells the two files of a
    duplicate block apart."""
    part = duplicate_part_at(block_number, block_time, duplicates)
    cell = Cell(
        s.BLOCK_SIGNATURE_FAMILY,
        part_qualifier(part, signature.node_account.encode()),
        encode_value(_signature_payload(signature)),
        cell_timestamp_micros(block_time),
    )
    return Row(s.BLOCKS, row_key_for_block(block_number), (cell,))


def _signature_payload(signature: NodeSignature) -> bytes:
    return encode_signature(SignatureValue(signature.node_id, signature.file_signature, signature.metadata_signature))


def _add_items(rows: _RowSet, block: VerifiedBlock, key: bytes, part: int | None) -> None:
    original = signed_file_bytes(block.record)
    kind, data = (s.ITEMS_FILE_KIND, original) if original is not None else (s.ITEMS_LIST_KIND, None)
    if data is None:
        data = encode_item_list(block.record)
    for number, start in enumerate(range(0, max(len(data), 1), ITEMS_CHUNK_SIZE)):
        qualifier = part_qualifier(part, kind + b"/%04d" % number)
        rows.put(s.ITEMS, key, s.ITEMS_FAMILY, qualifier, data[start : start + ITEMS_CHUNK_SIZE])


def _add_transaction(rows: _RowSet, block_number: int, index: int, item: RecordItem) -> None:
    consensus = item.consensus_ns
    tx_key = row_key_for_transaction(consensus)
    rows.put(s.TRANSACTIONS, tx_key, s.TRANSACTION_FAMILY, s.Q_RECORD, item.record_bytes)
    rows.put(s.TRANSACTIONS, tx_key, s.TRANSACTION_FAMILY, s.Q_TRANSACTION, item.transaction_bytes)
    rows.put(
        s.TRANSACTIONS,
        tx_key,
        s.TRANSACTION_FAMILY,
        s.Q_POSITION,
        encode_position(Position(block_number, index)),
    )

    try:
        record = hapi.TransactionRecord.FromString(item.record_bytes)
    except DecodeError:
        return
    try:
        body = decode_transaction_body(item.transaction_bytes)
    except CorruptFileError:
        body = None
    status = int(record.receipt.status)
    qualifier = qualifier_for_consensus(consensus)

    if record.transactionHash:
        entry = encode_hash_entry(HashEntry(block_number, status))
        rows.put(s.TX_BY_HASH, row_key_for_tx_hash(record.transactionHash), s.TX_BY_HASH_FAMILY, qualifier, entry)

    transaction_id = record.transactionID if record.HasField("transactionID") else None
    if transaction_id is None and body is not None and body.HasField("transactionID"):
        transaction_id = body.transactionID
    if transaction_id is not None:
        payer = entity_text(transaction_id.accountID)
        start = transaction_id.transactionValidStart
        valid_start = start.seconds * 1_000_000_000 + start.nanos
        if payer is not None and 0 <= valid_start <= MAX_U64:
            id_entry = IdEntry(block_number, transaction_id.nonce, transaction_id.scheduled, status)
            rows.put(
                s.TX_BY_ID,
                row_key_for_tx_id(payer, valid_start),
                s.TX_BY_ID_FAMILY,
                qualifier,
                encode_id_entry(id_entry),
            )

    for account in accounts_touched(body, record):
        key = row_key_for_account_history(account, consensus)
        rows.put(s.ACCOUNT_HISTORY, key, s.ACCOUNT_HISTORY_FAMILY, s.Q_BLOCK, encode_u64(block_number))


def _add_sidecars(rows: _RowSet, block: VerifiedBlock) -> int:
    count = 0
    for sidecar in sorted(block.sidecars, key=lambda f: f.id):
        for index, record in enumerate(sidecar.records):
            key = row_key_for_sidecar(record.consensus_ns)
            rows.put(
                s.SIDECARS,
                key,
                s.SIDECAR_RECORD_FAMILY,
                sidecar_qualifier(int(record.type), sidecar.id, index),
                record.raw,
            )
            rows.put(s.SIDECARS, key, s.SIDECAR_META_FAMILY, s.Q_BLOCK, encode_u64(block.block_number))
            count += 1
    return count


def sidecar_qualifier(sidecar_type: int, sidecar_id: int, index: int) -> bytes:
    """``<type>/<sidecar file id, 2 digits>/<index in the file, 8 digits>``, e.g. ``1/01/00000000``."""
    return b"%d/%02d/%08d" % (sidecar_type, sidecar_id, index)


def rows_by_table(rows: Iterable[Row]) -> dict[str, list[Row]]:
    """Rows grouped by logical table, in schema order."""
    grouped: dict[str, list[Row]] = {}
    for row in rows:
        grouped.setdefault(row.table, []).append(row)
    return grouped
