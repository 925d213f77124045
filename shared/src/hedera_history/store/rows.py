"""Row building: a verified block in, the rows of every history table out. Pure and deterministic.

The same block always gives the same rows, cells and timestamps, whoever builds it (the ingest
function for the stream, the Spark job for a backfill), so writing it again changes nothing.
Nothing here depends on which node's copy of a file was read (no gzip sizes, no paths).
An item whose record or body does not decode still gets its ``transactions`` row and its place
in the items table; only the index rows that need the decoded fields are left out (records that do
not decode are counted in ``BlockRows.undecodable_records`` and logged).

Each transaction is stored once, in the block's signed file (``items``); its ``transactions`` row
points there (block, index). Only an errata writes a transaction's bytes into its row
(:func:`transaction_content_cells`), over the pointer.

The stream builds a block's rows in parts (:func:`split_block`): ingest builds the block-level
rows and cuts the items into ranges, and each store call builds one range's rows
(:func:`range_rows`); the parts together are :func:`block_to_rows`'s cells, the backfill's one call.
"""

from __future__ import annotations

import logging
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from google.protobuf.message import DecodeError

from hedera_history import hapi, speedups
from hedera_history.block import NodeSignature, VerifiedBlock
from hedera_history.config import Settings
from hedera_history.errors import CorruptFileError
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.logs import event
from hedera_history.speedups import transaction_rows as compiled_transaction_rows
from hedera_history.store import schema as s
from hedera_history.store.accounts import body_entities, case_entities, decode_transaction_body, record_entities
from hedera_history.store.airdrop_index import airdrop_index_keys
from hedera_history.store.block_items import cell_qualifier, items_cells
from hedera_history.store.block_totals import contract_totals
from hedera_history.store.chaintime import block_time_ns, cell_timestamp_micros
from hedera_history.store.contract_index import contract_index_keys
from hedera_history.store.duplicates import (
    Q_PART,
    DuplicateBlock,
    completion_cell,
    duplicate_part,
    duplicate_part_at,
    parse_duplicate_blocks,
    part_qualifier,
)
from hedera_history.store.encoding import COMPRESS_MIN_SIZE, RAW, encode_value, encode_value_with_dictionary
from hedera_history.store.entity_index import entity_index_keys
from hedera_history.store.file_index import file_index_keys
from hedera_history.store.keys import (
    MAX_U64,
    account_bucket_mark,
    account_prefix,
    entity_id,
    is_system_number,
    qualifier_for_consensus,
    row_key_for_block,
    row_key_for_block_hash,
    row_key_for_sidecar,
    row_key_for_transaction,
    row_key_for_tx_hash,
)
from hedera_history.store.model import BlockRows, Cell, Row
from hedera_history.store.originals import encode_item_list, signed_file_bytes
from hedera_history.store.registered_node_index import registered_node_index_keys
from hedera_history.store.reward_index import reward_index_keys
from hedera_history.store.schedule_index import schedule_index_keys
from hedera_history.store.stake_index import stake_index_keys
from hedera_history.store.token_index import may_approve, token_index_keys
from hedera_history.store.topic_index import topic_index_keys
from hedera_history.store.values import (
    FLAG_PART_1,
    FLAG_SCHEDULED,
    BlockProofValue,
    CompletionValue,
    SignatureValue,
    cell_suffix,
    encode_block_proof,
    encode_hapi_version,
    encode_sidecar_metadata,
    encode_signature,
    encode_text,
    encode_u32,
    encode_u64,
    pack_entry_pointer,
    pack_hash_entry,
    pack_id_entry,
    pack_position,
)

logger = logging.getLogger(__name__)


RANGE_ITEMS = 2000
"""At most this many items in one :class:`ItemRange`: a 20,000-transaction period is ten ranges,
each built and written by its own store call, while a small block stays one range."""
RANGE_BYTES = 4 * 1024 * 1024
"""An :class:`ItemRange` is closed before its items' bytes pass this (a message stays well under
the transport's limit whatever the transactions weigh)."""


@dataclass(frozen=True, slots=True)
class ItemRange:
    """Consecutive items of one block and what their rows need of the block: the rows of the
    items (``transactions``, ``tx_by_hash``, ``tx_by_id``, ``account_history``) built from it
    (:func:`range_rows`) are those :func:`block_to_rows` builds for the same items."""

    block_number: int
    part: int | None
    """Which file of a duplicate block (``store.duplicates``), None for an ordinary block."""
    timestamp_micros: int
    """The block's cell timestamp (``chaintime.cell_timestamp_micros``)."""
    cell_starts: tuple[int, ...]
    """The index of the first item of each cell of the block's items row, by cell number; empty
    when the items were not cut (each item then stands in cell 0 at its own index)."""
    first_index: int
    """The index of ``items[0]`` in the block."""
    items: tuple[RecordItem, ...]


@dataclass(frozen=True, slots=True)
class SplitBlock:
    """A block's rows in parts: the block-level rows (header, signatures, items row, sidecars)
    with the completion row, and the item ranges whose rows complete them."""

    block_rows: BlockRows
    ranges: tuple[ItemRange, ...]


class _BlockLevel(NamedTuple):
    rows: _RowSet
    constants: _BlockConstants
    cell_starts: tuple[int, ...]
    completion: Row
    time_ns: int


def block_to_rows(block: VerifiedBlock, settings: Settings) -> BlockRows:
    """Every history row of ``block`` and, apart, its completion row."""
    level = _block_level(block, settings)
    _add_range(level.rows, level.constants, level.cell_starts, 0, block.record.items)
    return BlockRows(block.block_number, level.time_ns, level.rows.build(), level.completion, level.rows.undecodable)


def split_block(
    block: VerifiedBlock, settings: Settings, *, max_items: int = RANGE_ITEMS, max_bytes: int = RANGE_BYTES
) -> SplitBlock:
    """The rows of ``block`` without its items' rows, and its items cut into ranges of at most
    ``max_items`` items and ``max_bytes`` bytes (an item heavier than that has a range of its
    own); the block-level rows and every range's :func:`range_rows` together are
    :func:`block_to_rows`, cell for cell."""
    level = _block_level(block, settings)
    items = block.record.items
    ranges = tuple(
        ItemRange(
            block.block_number, level.constants.part, level.rows.timestamp, level.cell_starts, first, items[first:end]
        )
        for first, end in _range_bounds(items, max_items, max_bytes)
    )
    block_rows = BlockRows(block.block_number, level.time_ns, level.rows.build(), level.completion)
    return SplitBlock(block_rows, ranges)


def range_rows(item_range: ItemRange) -> tuple[Row, ...]:
    """The rows of the items of ``item_range``: exactly the cells :func:`block_to_rows` gives them."""
    rows = _RowSet(item_range.timestamp_micros)
    constants = _BlockConstants(item_range.block_number, item_range.part)
    _add_range(rows, constants, item_range.cell_starts, item_range.first_index, item_range.items)
    return rows.build()


def _block_level(block: VerifiedBlock, settings: Settings) -> _BlockLevel:
    """Header, signatures, items row and sidecars of ``block`` in a row set, and its completion row."""
    record = block.record
    time_ns = block_time_ns(record)
    block_key = row_key_for_block(block.block_number)
    part = duplicate_part(record, block.block_number, parse_duplicate_blocks(settings.duplicate_blocks))
    constants = _BlockConstants(block.block_number, part)
    rows = _RowSet(cell_timestamp_micros(time_ns))
    _add_header(rows, block, block_key, part)
    cell_starts = _add_items(rows, block, block_key, part)
    sidecar_records = _add_sidecars(rows, block, constants) if settings.sidecars_enabled else 0
    completion = CompletionValue(item_count=len(record.items), sidecar_record_count=sidecar_records)
    completion_row = Row(s.BLOCKS, block_key, (completion_cell(part, completion, rows.timestamp),))
    return _BlockLevel(rows, constants, cell_starts, completion_row, time_ns)


def _range_bounds(items: Sequence[RecordItem], max_items: int, max_bytes: int) -> list[tuple[int, int]]:
    """``(first, end)`` of each range, in order; none for a block without items."""
    bounds: list[tuple[int, int]] = []
    first = size = 0
    for index, item in enumerate(items):
        weight = len(item.transaction_bytes) + len(item.record_bytes)
        if index > first and (index - first >= max_items or size + weight > max_bytes):
            bounds.append((first, index))
            first, size = index, 0
        size += weight
    if items:
        bounds.append((first, len(items)))
    return bounds


def _add_range(
    rows: _RowSet,
    constants: _BlockConstants,
    cell_starts: tuple[int, ...],
    first_index: int,
    items: Sequence[RecordItem],
) -> None:
    """The rows of ``items``, the block's items from ``first_index`` on."""
    undecodable_before = rows.undecodable
    # Bytes not cut at item boundaries stay whole in cell 0 (block_items.items_cells).
    starts = cell_starts or (0,)
    cell = bisect_right(starts, first_index) - 1
    next_start = starts[cell + 1] if cell + 1 < len(starts) else None
    suffix = cell_suffix(cell)
    for index, item in enumerate(items, first_index):
        while next_start is not None and index >= next_start:
            cell += 1
            next_start = starts[cell + 1] if cell + 1 < len(starts) else None
            suffix = cell_suffix(cell)
        _add_transaction(rows, constants, index, item, cell, index - starts[cell], suffix)
    undecodable = rows.undecodable - undecodable_before
    if undecodable:
        event(
            logger,
            "records that do not decode: their index rows are left out",
            logging.WARNING,
            block=constants.block_number,
            first_index=first_index,
            records=undecodable,
        )


_Cells = dict[tuple[str, bytes], bytes]
"""(family, qualifier) -> value with its envelope header."""
_Targets = tuple[dict[bytes, _Cells], dict[bytes, _Cells], dict[bytes, _Cells], dict[bytes, bytes]]
"""A row set's ``transactions``, ``tx_by_hash`` and ``tx_by_id`` rows and its account history."""

_RAW_HEADER = bytes([RAW])


def _value(payload: bytes) -> bytes:
    """``encode_value(payload)``, skipping the call for payloads too small to be compressed."""
    return _RAW_HEADER + payload if len(payload) < COMPRESS_MIN_SIZE else encode_value(payload)


class _RowSet:
    """Cells gathered per table and row key; several items may add to one row (e.g. one tx id)."""

    def __init__(self, timestamp_micros: int) -> None:
        self.timestamp = timestamp_micros
        self.tables: dict[str, dict[bytes, _Cells]] = {name: {} for name in s.HISTORY_TABLES}
        self.account_history: dict[bytes, bytes] = {}
        """``account_history`` row key -> the value of its one cell (where the transaction is)."""
        tables = self.tables
        self.transactions = tables[s.TRANSACTIONS]
        self.targets: _Targets = (self.transactions, tables[s.TX_BY_HASH], tables[s.TX_BY_ID], self.account_history)
        """What one transaction's rows go into (``speedups.transaction_rows``)."""
        self.undecodable = 0
        """Items whose record does not decode (no index rows for them)."""

    def put(self, table: str, key: bytes, family: str, qualifier: bytes, payload: bytes) -> None:
        self.cells(table, key)[(family, qualifier)] = encode_value(payload)

    def cells(self, table: str, key: bytes) -> _Cells:
        """The cells of one row, to put values (already enveloped) into."""
        return _cells(self.tables[table], key)

    def build(self) -> tuple[Row, ...]:
        """Rows in schema table order then key order, cells in (family, qualifier) order."""
        stamp = self.timestamp
        out: list[Row] = []
        self._merge_account_history()
        for table, rows in self.tables.items():
            if table == s.ACCOUNT_HISTORY and self.account_history:
                _table_rows(_CLASSES, table, self.account_history, stamp, _ACCOUNT_BLOCK, out)
            else:
                _table_rows(_CLASSES, table, rows, stamp, None, out)
        return tuple(out)

    def _merge_account_history(self) -> None:
        """Should account history rows also be given cells through :meth:`cells`, every account
        history row is built the ordinary way."""
        rows = self.tables[s.ACCOUNT_HISTORY]
        if rows:
            for key, value in self.account_history.items():
                rows.setdefault(key, {})[_ACCOUNT_BLOCK] = value
            self.account_history.clear()


# Row building makes about 16 Cell and Row objects per transaction; a frozen dataclass's own
# __init__ sets each field through object.__setattr__, twice the time of these constructors,
# which set the same slots directly (the objects are equal and as immutable as any other).
_make = object.__new__
_CELL_SLOTS, _ROW_SLOTS = vars(Cell), vars(Row)
_set_family, _set_qualifier = _CELL_SLOTS["family"].__set__, _CELL_SLOTS["qualifier"].__set__
_set_value, _set_stamp = _CELL_SLOTS["value"].__set__, _CELL_SLOTS["timestamp_micros"].__set__
_set_table, _set_key, _set_cells = _ROW_SLOTS["table"].__set__, _ROW_SLOTS["key"].__set__, _ROW_SLOTS["cells"].__set__


def _new_cell(family: str, qualifier: bytes, value: bytes, timestamp_micros: int) -> Cell:
    cell = _make(Cell)
    _set_family(cell, family)
    _set_qualifier(cell, qualifier)
    _set_value(cell, value)
    _set_stamp(cell, timestamp_micros)
    return cell


def _new_row(table: str, key: bytes, cells: tuple[Cell, ...]) -> Row:
    row = _make(Row)
    _set_table(row, table)
    _set_key(row, key)
    _set_cells(row, cells)
    return row


def python_table_rows(
    classes: tuple[Any, ...],
    table: str,
    rows: dict[bytes, Any],
    stamp: int,
    single: tuple[str, bytes] | None,
    out: list[Any],
) -> None:
    """``speedups.table_rows`` where the compiled core is missing (the classes are this module's)."""
    append = out.append
    if single is not None:
        family, qualifier = single
        for key in sorted(rows):
            append(_new_row(table, key, (_new_cell(family, qualifier, rows[key], stamp),)))
        return
    for key in sorted(rows):
        cells = rows[key]
        if len(cells) == 1:
            (((family, qualifier), value),) = cells.items()
            append(_new_row(table, key, (_new_cell(family, qualifier, value, stamp),)))
        else:
            append(_new_row(table, key, tuple([_new_cell(f, q, v, stamp) for (f, q), v in sorted(cells.items())])))


_table_rows: speedups.TableRows = speedups.table_rows or python_table_rows
_CLASSES = (
    Row,
    (_ROW_SLOTS["table"], _ROW_SLOTS["key"], _ROW_SLOTS["cells"]),
    Cell,
    (_CELL_SLOTS["family"], _CELL_SLOTS["qualifier"], _CELL_SLOTS["value"], _CELL_SLOTS["timestamp_micros"]),
)


class _BlockConstants:
    """What every transaction row of one block shares, computed once per block."""

    def __init__(self, block_number: int, part: int | None) -> None:
        self.block_number = block_number
        self.part = part
        self.block_value = _value(encode_u64(block_number))
        self.flags = FLAG_PART_1 if part == 1 else 0
        """Of every index entry of the block (``values.FLAG_*``)."""
        self.part_mark = _PART_MARK if part == 1 else None
        """The ``transactions`` cell marking the rows of a duplicate block's second file."""


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
    gas_used, logs_bloom = contract_totals(record.items)
    header += [(s.Q_GAS_USED, encode_u64(gas_used)), (s.Q_LOGS_BLOOM, logs_bloom)]
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
    if block.native is not None:
        consensus = block.consensus
        proof = BlockProofValue(block.native.signed, consensus.stake, consensus.total_stake, block.native.proof)
        rows.put(s.BLOCKS, key, s.BLOCK_HEADER_FAMILY, s.Q_BLOCK_PROOF, encode_block_proof(proof))
    if block.wrapped_envelope is not None:
        rows.put(s.BLOCKS, key, s.BLOCK_HEADER_FAMILY, s.Q_WRAPPED_BLOCK, block.wrapped_envelope)
    # The hash the API shows for the block (``/api/v1/blocks/{hash}``), pointing at its number.
    shown = record.end_running_hash or record.file_hash
    rows.put(
        s.BLOCKS, row_key_for_block_hash(shown), s.BLOCK_HEADER_FAMILY, s.Q_BLOCK_NUMBER, encode_u64(block.block_number)
    )


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


def _add_items(rows: _RowSet, block: VerifiedBlock, key: bytes, part: int | None) -> tuple[int, ...]:
    """The items cells of the block; returns the index of each cell's first item (none when the
    items were not cut, see :attr:`ItemRange.cell_starts`)."""
    if block.native is not None:
        kind, data = s.ITEMS_BLOCK_KIND, block.native.content  # the block as signed, whole
    elif (original := signed_file_bytes(block.record)) is not None:
        kind, data = s.ITEMS_FILE_KIND, original
    else:
        kind, data = s.ITEMS_LIST_KIND, encode_item_list(block.record)
    cells, placed = items_cells(kind, data)
    row = rows.cells(s.ITEMS, key)
    dictionary = cells[0].data
    for cell in cells:
        qualifier = part_qualifier(part, cell_qualifier(kind, cell.number, cell.first_index))
        value = encode_value(cell.data) if cell.number == 0 else encode_value_with_dictionary(cell.data, dictionary)
        row[(s.ITEMS_FAMILY, qualifier)] = value
    return tuple(cell.first_index for cell in cells) if placed else ()


_TX_RECORD = (s.TRANSACTION_FAMILY, s.Q_RECORD)
_TX_TRANSACTION = (s.TRANSACTION_FAMILY, s.Q_TRANSACTION)
_TX_POSITION = (s.TRANSACTION_FAMILY, s.Q_POSITION)
_TX_PART = (s.TRANSACTION_FAMILY, Q_PART)
_PART_MARK = _value(b"\x01")
_ACCOUNT_BLOCK = (s.ACCOUNT_HISTORY_FAMILY, s.Q_BLOCK)
_SIDECAR_BLOCK = (s.SIDECAR_META_FAMILY, s.Q_BLOCK)


_UNINDEXED_CASES = frozenset({"cryptoTransfer", "contractCall", "ethereumTransaction"})
"""Body cases of most transactions that no index (``store.*_index``) reads by case: such a
transaction has index rows only through a record field :func:`record_index_fields` names, or, a
CryptoTransfer, an approved transfer (``token_index.may_approve``)."""
_CREATED_CONTRACT, _TOKEN_TRANSFERS, _SCHEDULE_REF, _TOKEN_ASSOCIATIONS, _STAKING_REWARDS = 1, 2, 4, 8, 16
_CALL_RESULT = 32
"""The bits of :func:`record_index_fields`."""
_TOKEN_FIELDS = _TOKEN_TRANSFERS | _TOKEN_ASSOCIATIONS
"""Of a transaction of those cases, only the token index reads these."""
_SHORT_PATH_FIELDS = _TOKEN_FIELDS | _CALL_RESULT
"""Of a transaction of those cases, only the token index and the contract index (a call's result)
read these."""


def _add_transaction(
    rows: _RowSet, block: _BlockConstants, index: int, item: RecordItem, cell: int, offset: int, suffix: bytes
) -> None:
    """The rows of one item: the ``index``-th of the block, at ``offset`` in items cell ``cell``
    (``suffix``: ``values.cell_suffix(cell)``)."""
    consensus = item.consensus_ns
    place = (block.block_number, index, cell, offset, block.flags, suffix, block.part_mark)
    try:
        record = hapi.TransactionRecord.FromString(item.record_bytes)
    except DecodeError:
        _put_position(rows.transactions, row_key_for_transaction(consensus), place)
        rows.undecodable += 1
        return
    try:
        body = decode_transaction_body(item.transaction_bytes)
    except CorruptFileError:
        body = None
    case = None if body is None else body.WhichOneof("data")
    pointer, status, has_id, index_fields = _transaction_rows(record, body, case, item, rows.targets, place)
    if not has_id and body is not None and body.HasField("transactionID"):
        _put_id(rows.tables[s.TX_BY_ID], qualifier_for_consensus(consensus), place, body.transactionID, status)
    if case in _UNINDEXED_CASES and not index_fields & ~_SHORT_PATH_FIELDS:
        # Only the token index may have rows for it (token transfers, associations, approvals), and
        # the contract index when the record holds a call's result.
        index_keys = contract_index_keys(record, consensus) if index_fields & _CALL_RESULT else []
        if index_fields & _TOKEN_FIELDS or (case == "cryptoTransfer" and may_approve(item.transaction_bytes)):
            index_keys += token_index_keys(case, body, record, consensus, item.transaction_bytes, rows)
        if index_keys:
            rows.account_history.update((key, pointer) for key in index_keys)
        return
    index_keys = entity_index_keys(body, record, consensus)  # creations, updates, aliases: rare
    index_keys += contract_index_keys(record, consensus)
    index_keys += reward_index_keys(record, consensus)
    if body is not None:
        index_keys += topic_index_keys(case, body, record, consensus) + file_index_keys(case, body, record, consensus)
        index_keys += stake_index_keys(case, record, consensus) + schedule_index_keys(case, body, record, consensus)
        index_keys += airdrop_index_keys(case, body, record, consensus)
        index_keys += token_index_keys(case, body, record, consensus, item.transaction_bytes, rows)
        index_keys += registered_node_index_keys(case, body, record, consensus)
    if index_keys:
        rows.account_history.update((key, pointer) for key in index_keys)


_Place = tuple[int, int, int, int, int, bytes, bytes | None]
"""Where a transaction stands and what its entries say of it: block number, index in the block,
items cell, offset in the cell, the block's entry flags, the cell's suffix (``values.cell_suffix``)
and the ``transactions`` part mark (None but in a duplicate block's second file)."""
_CELL_NAMES = (_TX_POSITION, _TX_PART, s.TX_BY_HASH_FAMILY, s.TX_BY_ID_FAMILY)
"""The cells :func:`speedups.transaction_rows` puts: position, part mark, and the families of the
hash and id entries (their qualifier: the consensus time)."""


def _transaction_rows(
    record: Any, body: Any | None, case: str | None, item: RecordItem, targets: _Targets, place: _Place
) -> tuple[bytes, int, bool, int]:
    """One transaction's position, ``tx_by_hash`` and ``tx_by_id`` entries and ``account_history``
    pointers, put into ``targets``: read from the record's and transaction's bytes by the compiled
    core, else through the message API. Returns (pointer, status, whether the record has a
    transaction id, :func:`record_index_fields`)."""
    if compiled_transaction_rows is not None:
        transaction = None if body is None else item.transaction_bytes
        entities = [] if body is None else case_entities(body, case)
        done = compiled_transaction_rows(
            item.record_bytes, transaction, item.consensus_ns, entities, targets, _CELL_NAMES, place
        )
        if done is not None:
            return done
    return python_transaction_rows(record, body, case, item.consensus_ns, targets, place)


def python_transaction_rows(
    record: Any, body: Any | None, case: str | None, consensus_ns: int, targets: _Targets, place: _Place
) -> tuple[bytes, int, bool, int]:
    """``speedups.transaction_rows`` through the message API (where the compiled core is missing or
    leaves the bytes to the parser)."""
    transactions, by_hash, by_id, history = targets
    block_number, _, cell, offset, flags, _, _ = place
    _put_position(transactions, row_key_for_transaction(consensus_ns), place)
    qualifier = qualifier_for_consensus(consensus_ns)
    status = int(record.receipt.status)
    if record.transactionHash:
        entry = _RAW_HEADER + pack_hash_entry(block_number, cell, offset, flags, status)
        _cells(by_hash, row_key_for_tx_hash(record.transactionHash))[(s.TX_BY_HASH_FAMILY, qualifier)] = entry
    has_id = record.HasField("transactionID")
    if has_id:
        _put_id(by_id, qualifier, place, record.transactionID, status)
    pointer = _RAW_HEADER + pack_entry_pointer(block_number, cell, offset, flags)
    inverted = b"%016x" % (MAX_U64 - consensus_ns)
    bucketed = account_bucket_mark(consensus_ns) + inverted  # a system account's (keys.LAST_SYSTEM_ACCOUNT)
    touched = record_entities(record).union(() if body is None else body_entities(body, case))
    history.update(
        (account_prefix(entity_id(*numbers)) + (bucketed if is_system_number(numbers[2]) else inverted), pointer)
        for numbers in touched
    )
    return pointer, status, has_id, record_index_fields(record)


def record_index_fields(record: Any) -> int:
    """Which of the fields an index reads whatever the body's case the record holds, as bits: a
    created contract's result, token transfers, a schedule reference, automatic token associations,
    staking rewards paid, a call's result."""
    fields = (
        (record.HasField("contractCreateResult"), _CREATED_CONTRACT),
        (record.HasField("contractCallResult"), _CALL_RESULT),
        (len(record.tokenTransferLists), _TOKEN_TRANSFERS),
        (record.HasField("scheduleRef"), _SCHEDULE_REF),
        (len(record.automatic_token_associations), _TOKEN_ASSOCIATIONS),
        (len(record.paid_staking_rewards), _STAKING_REWARDS),
    )
    return sum(bit for present, bit in fields if present)


def _cells(rows: dict[bytes, _Cells], key: bytes) -> _Cells:
    cells = rows.get(key)
    if cells is None:
        cells = rows[key] = {}
    return cells


def _put_position(transactions: dict[bytes, _Cells], key: bytes, place: _Place) -> None:
    block_number, index, _, _, _, suffix, part_mark = place
    cells = _cells(transactions, key)
    cells[_TX_POSITION] = _RAW_HEADER + pack_position(block_number, index) + suffix
    if part_mark is not None:
        cells[_TX_PART] = part_mark


def _put_id(by_id: dict[bytes, _Cells], qualifier: bytes, place: _Place, transaction_id: Any, status: int) -> None:
    """The ``tx_by_id`` entry of a transaction id, unless it names no payer or its valid start does
    not fit 64 bits."""
    payer, start = transaction_id.accountID, transaction_id.transactionValidStart
    valid_start = start.seconds * 1_000_000_000 + start.nanos
    if payer.accountNum > 0 and 0 <= valid_start <= MAX_U64:
        block_number, _, cell, offset, flags, _, _ = place
        key = account_prefix(entity_id(payer.shardNum, payer.realmNum, payer.accountNum)) + b"%016x" % valid_start
        id_flags = flags | FLAG_SCHEDULED if transaction_id.scheduled else flags
        entry = pack_id_entry(block_number, cell, offset, transaction_id.nonce, id_flags, status)
        _cells(by_id, key)[(s.TX_BY_ID_FAMILY, qualifier)] = _RAW_HEADER + entry


def transaction_content_cells(item: RecordItem) -> dict[tuple[str, bytes], bytes]:
    """The ``transactions`` cells that hold an entry's own bytes (``t:record``, ``t:transaction``),
    values enveloped: written only by an errata, over the pointer row, for an entry whose bytes are
    not the ones the items row holds. A reader prefers them to the items row."""
    return {_TX_RECORD: _value(item.record_bytes), _TX_TRANSACTION: _value(item.transaction_bytes)}


def _add_sidecars(rows: _RowSet, block: VerifiedBlock, constants: _BlockConstants) -> int:
    count = 0
    block_value = constants.block_value
    for sidecar in sorted(block.sidecars, key=lambda f: f.id):
        for index, record in enumerate(sidecar.records):
            cells = rows.cells(s.SIDECARS, row_key_for_sidecar(record.consensus_ns))
            family_qualifier = (s.SIDECAR_RECORD_FAMILY, sidecar_qualifier(int(record.type), sidecar.id, index))
            # In its original bytes: Bigtable compresses each SSTable block of similar records
            # better than zlib does one record alone (bench/amplification_bench.py).
            cells[family_qualifier] = _RAW_HEADER + record.raw
            cells[_SIDECAR_BLOCK] = block_value
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
