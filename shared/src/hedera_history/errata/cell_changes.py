"""What applying an errata changes, cell by cell, before anything is written.

The state for one time of error is recomputed whole every time: the original entry (captured from
the store once, kept in ``errata_log``), every errata accepted for that time, and the one in force
(the latest by consensus time, then by id). The history cells the entry has ever had (the
original's, and those of every accepted errata's correct item) are set to what the errata in
force says: its correct item's cells, or a tombstone where it has none. So the order in which
errata arrive does not matter (T1, T2, T3 of the HIP), and planning an errata already applied
finds nothing to change. A cell is written only when its latest value differs; every write is
stamped with the in-force errata's consensus time, above the block's own, so re-writing the
original block later keeps the correction.

Sidecar records follow the entry: removed with it, left alone (or brought back) otherwise.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from hedera_history import hapi
from hedera_history.block import ConsensusSummary, VerifiedBlock
from hedera_history.config import Settings
from hedera_history.derived.rows import compensation_key, encode_delta
from hedera_history.errata.cells import (
    Q_ERRATA,
    ErrataMarker,
    encode_marker,
    is_tombstone,
    tombstone_value,
)
from hedera_history.errata.codec import parse_errata_body
from hedera_history.errata.errata_file import EntryKind, ErrataBody, ErrataFile
from hedera_history.errata.log import (
    Q_FILE,
    Q_IN_FORCE,
    Q_INSERTED,
    Q_ORIGINAL,
    Q_TIME_OF_ERROR,
    Address,
    ImageCell,
    OriginalEntry,
    decode_original,
    encode_original,
    entries_in_row,
    entry_qualifier,
    file_row_key,
    inserted_row_key,
    time_row_key,
)
from hedera_history.errata.token_marks import moved_markers
from hedera_history.errors import ErrataPlacementError, RowDecodeError
from hedera_history.formats.names import record_file_name
from hedera_history.formats.parsed_files import RecordFile, RecordItem
from hedera_history.store import schema as s
from hedera_history.store.accounts import entity_text
from hedera_history.store.chaintime import cell_timestamp_micros
from hedera_history.store.encoding import decode_value, encode_value
from hedera_history.store.entity_index import is_entity_index_key
from hedera_history.store.gateway import BigtableGateway, RowQuery, StoredRow
from hedera_history.store.keys import plain_account_history_key, row_key_for_transaction
from hedera_history.store.reader import HistoryReader
from hedera_history.store.rows import block_to_rows, transaction_content_cells
from hedera_history.store.time_rows import read_between, read_one
from hedera_history.store.values import Position, decode_position, encode_position, encode_u64, marked_apart

ITEM_TABLES = (s.TRANSACTIONS, s.TX_BY_HASH, s.TX_BY_ID, s.ACCOUNT_HISTORY)
"""The history tables an entry's own cells live in (besides its sidecar records)."""
_PLACEMENT_LOOKAHEAD = 16
_PLACEMENT_FIRST_WINDOW_NS = 10_000_000
"""10 ms: about 100 rows at 10k TPS."""
_PLACEMENT_WINDOW_GROWTH = 16
_PLACEMENT_LAST_WINDOW_NS = 16**7 * _PLACEMENT_FIRST_WINDOW_NS
"""About 31 days: the last window an inserted entry's successors are looked for in (the windows
together cover about 33 days after its time)."""
MICROS_PER_MS = 1000
_NO_HASH = bytes(48)
"""Placeholder hashes of the one-item block ``item_cells`` builds (only its item rows are used)."""


@dataclass(frozen=True, slots=True)
class CellChange(ImageCell):
    """One cell an errata writes: the value after, and the latest value before (None: no cell)."""

    before: bytes | None

    @property
    def removes(self) -> bool:
        return is_tombstone(self.value)


@dataclass(frozen=True)
class ErrataPlan:
    errata: ErrataFile
    entry_kind: EntryKind
    """What the errata in force does to the entry."""
    in_force: str
    """Id of the errata in force at the time of error (this one, unless a later one supersedes it)."""
    block_number: int
    index: int
    original_present: bool
    log: tuple[CellChange, ...]
    history: tuple[CellChange, ...]
    derived: tuple[CellChange, ...]
    record: tuple[CellChange, ...]
    """The ``f/<id>`` row: written last, its presence means the errata was applied."""

    @property
    def superseded(self) -> bool:
        return self.in_force != self.errata.errata_id

    @property
    def changes(self) -> tuple[CellChange, ...]:
        return (*self.log, *self.history, *self.derived, *self.record)

    @property
    def already_applied(self) -> bool:
        return not self.changes


def plan_errata(errata: ErrataFile, gateway: BigtableGateway, settings: Settings) -> ErrataPlan:
    """Read the state at the errata's time of error and work out every cell to write.

    Raises ErrataPlacementError (transient) while the block holding that time is not complete.
    """
    time_of_error = errata.time_of_error
    log_row = _values_of(_one_row(gateway, s.ERRATA_LOG, time_row_key(time_of_error)))
    bodies: dict[tuple[int, str], ErrataBody] = {}
    for errata_ns, errata_id, body_bytes in entries_in_row(log_row):
        bodies[(errata_ns, errata_id)] = parse_errata_body(body_bytes, f"errata {errata_id}", errata_ns=errata_ns)
    bodies[(errata.consensus_ns, errata.errata_id)] = errata.body

    stored_original = log_row.get(Q_ORIGINAL)
    if stored_original is not None:
        original = decode_original(decode_value(stored_original))
    else:
        original = capture_original(gateway, time_of_error, settings)

    (in_force_ns, in_force_id), in_force = max(bodies.items(), key=lambda entry: entry[0])
    block_stamp = max((c.timestamp_micros for c in original.cells), default=0)
    stamp = correction_stamp(in_force_ns, block_stamp if original.present else None)

    kind = _entry_kind(in_force, original)
    desired = _desired_history(in_force, original, kind, settings, in_force_id=in_force_id, in_force_ns=in_force_ns)
    entry_row = _stored_row_key(original)
    desired = in_entry_row(desired, time_of_error, entry_row)
    touched = {c.address for c in original.cells if c.table != s.SIDECARS or kind is EntryKind.DELETE}
    for body in bodies.values():
        if body.correct_item is not None:
            corrected = item_cells(body.correct_item, original.block_number, original.index, settings)
            touched.update(in_entry_row(corrected, time_of_error, entry_row))
    tombstone = tombstone_value(in_force_id)
    wanted: dict[Address, bytes] = {address: desired.get(address, tombstone) for address in touched | set(desired)}
    history = _diff(gateway, wanted, stamp)
    removed = [(c.address, c.before) for c in history if c.removes]
    history += _diff(gateway, moved_markers(gateway, removed, original.block_number), stamp)

    log_wanted: dict[Address, tuple[bytes, int]] = {
        (s.ERRATA_LOG, time_row_key(time_of_error), s.ERRATA_LOG_FAMILY, Q_ORIGINAL): (
            encode_value(encode_original(original)),
            block_stamp,
        ),
        (s.ERRATA_LOG, time_row_key(time_of_error), s.ERRATA_LOG_FAMILY, entry_qualifier(*_key(errata))): (
            encode_value(errata.body_bytes),
            cell_timestamp_micros(errata.consensus_ns),
        ),
        (s.ERRATA_LOG, time_row_key(time_of_error), s.ERRATA_LOG_FAMILY, Q_IN_FORCE): (
            encode_value(in_force_id.encode("ascii")),
            stamp,
        ),
    }
    if kind is EntryKind.INSERT:
        key = inserted_row_key(original.block_number, time_of_error)
        log_wanted[(s.ERRATA_LOG, key, s.ERRATA_LOG_FAMILY, Q_INSERTED)] = (encode_value(b""), stamp)
    log = _diff_stamped(gateway, log_wanted)

    record_wanted = {
        (s.ERRATA_LOG, file_row_key(errata.errata_id), s.ERRATA_LOG_FAMILY, Q_FILE): (
            encode_value(errata.data),
            cell_timestamp_micros(errata.consensus_ns),
        ),
        (s.ERRATA_LOG, file_row_key(errata.errata_id), s.ERRATA_LOG_FAMILY, Q_TIME_OF_ERROR): (
            encode_value(encode_u64(time_of_error)),
            cell_timestamp_micros(errata.consensus_ns),
        ),
    }
    return ErrataPlan(
        errata=errata,
        entry_kind=kind,
        in_force=in_force_id,
        block_number=original.block_number,
        index=original.index,
        original_present=original.present,
        log=log,
        history=history,
        derived=_diff_stamped(gateway, compensation_cells(errata)),
        record=_diff_stamped(gateway, record_wanted),
    )


def correction_stamp(in_force_ns: int, block_stamp: int | None) -> int:
    """The cell time of a correction: the in-force errata's consensus time, but always a
    millisecond above the cells of the block it corrects (so re-writing the block never hides it).
    An errata within the same millisecond as its block's first item (a network errata is one
    nanosecond after its time of error) is lifted to the next millisecond."""
    stamp = cell_timestamp_micros(in_force_ns)
    if block_stamp is None:
        return stamp
    return max(stamp, block_stamp + MICROS_PER_MS)


def compensation_cells(errata: ErrataFile) -> dict[Address, tuple[bytes, int]]:
    """The errata's compensating hbar transfers, summed per account, as a ``balances`` ``c/`` row."""
    deltas: dict[str, int] = {}
    for item in errata.body.compensating_items:
        record = hapi.TransactionRecord.FromString(item.record_bytes)
        for amount in record.transferList.accountAmounts:
            account = entity_text(amount.accountID)
            if account is not None:
                deltas[account] = deltas.get(account, 0) + int(amount.amount)
    key = compensation_key(errata.consensus_ns, errata.errata_id)
    stamp = cell_timestamp_micros(errata.consensus_ns)
    return {
        (s.BALANCES, key, s.BALANCES_FAMILY, account.encode("ascii")): (encode_value(encode_delta(delta)), stamp)
        for account, delta in sorted(deltas.items())
        if delta
    }


def capture_original(gateway: BigtableGateway, consensus_ns: int, settings: Settings) -> OriginalEntry:
    """The entry the stream put at ``consensus_ns`` (its history cells as the block wrote them), or
    an absent entry placed in the block that holds that time."""
    reader = HistoryReader(gateway)
    row = read_one(gateway, s.TRANSACTIONS, consensus_ns)
    cells = _stamped_values_of(row) if row is not None else {}
    needed = (s.Q_RECORD, s.Q_TRANSACTION, s.Q_POSITION)
    # Layout 2: a row with only its position points into the block's items row.
    pointer = s.Q_POSITION in cells and not is_tombstone(cells[s.Q_POSITION][0]) and s.Q_RECORD not in cells
    if row is not None and (pointer or all(q in cells and not is_tombstone(cells[q][0]) for q in needed)):
        position = decode_position(decode_value(cells[s.Q_POSITION][0]))
        if not reader.complete_blocks([position.block_number]):
            raise ErrataPlacementError(f"block {position.block_number} holding {consensus_ns} is not complete yet")
        stamp = cells[s.Q_POSITION if pointer else s.Q_RECORD][1]
        item = (
            _pointed_item(reader, consensus_ns)
            if pointer
            else RecordItem(decode_value(cells[s.Q_TRANSACTION][0]), decode_value(cells[s.Q_RECORD][0]), consensus_ns)
        )
        image = [
            ImageCell(table, key, family, qualifier, value, stamp)
            for (table, key, family, qualifier), value in in_entry_row(
                item_cells(item, position.block_number, position.index, settings), consensus_ns, row.key
            ).items()
        ]
        sidecars = read_one(gateway, s.SIDECARS, consensus_ns)
        if sidecars is not None:
            image.extend(
                ImageCell(s.SIDECARS, sidecars.key, c.family, c.qualifier, c.value, c.timestamp_micros)
                for c in sidecars.cells
            )
        return OriginalEntry(consensus_ns, position.block_number, position.index, True, tuple(image))
    block, index = place(reader, gateway, consensus_ns)
    return OriginalEntry(consensus_ns, block, index, False, ())


def _pointed_item(reader: HistoryReader, consensus_ns: int) -> RecordItem:
    stored = reader.transaction(consensus_ns)
    if stored is None:
        raise ErrataPlacementError(f"the entry at {consensus_ns} is not in a complete block yet")
    return RecordItem(stored.transaction_bytes, stored.record_bytes, consensus_ns)


def in_entry_row(cells: Mapping[Address, bytes], consensus_ns: int, key: bytes | None) -> dict[Address, bytes]:
    """``cells`` with those of the entry's ``transactions`` row moved to ``key``, the row the entry
    is stored in (a row of layout 2 is keyed by the time alone), and then the system accounts'
    ``account_history`` rows to the plain keys layout 2 gave them: a correction goes where the
    entry is, so readers, which take those rows first, see it. ``key`` None: the layout-3 key."""
    wanted = row_key_for_transaction(consensus_ns)
    if key is None or key == wanted:
        return dict(cells)
    return {
        (table, _row_of_layout_2(table, row_key, wanted, key), family, qualifier): value
        for (table, row_key, family, qualifier), value in cells.items()
    }


def _row_of_layout_2(table: str, row_key: bytes, layout_3_key: bytes, entry_key: bytes) -> bytes:
    if table == s.TRANSACTIONS and row_key == layout_3_key:
        return entry_key
    if table == s.ACCOUNT_HISTORY and not is_entity_index_key(row_key):  # the index came after layout 2
        return plain_account_history_key(row_key)
    return row_key


def _stored_row_key(original: OriginalEntry) -> bytes | None:
    """The key of the ``transactions`` row the original entry was found in (None: there was none)."""
    return next((c.key for c in original.cells if c.table == s.TRANSACTIONS), None)


def place(reader: HistoryReader, gateway: BigtableGateway, consensus_ns: int) -> tuple[int, int]:
    """``(block, index)`` for an entry inserted at ``consensus_ns``: the block whose items span
    that time (or the block before the next one, when the time falls between blocks) and the
    index of the first later item (the earlier block's item count)."""
    for row in itertools.islice(_rows_after(gateway, consensus_ns), _PLACEMENT_LOOKAHEAD):
        cell = row.cell(s.TRANSACTION_FAMILY, s.Q_POSITION)
        if cell is None or is_tombstone(cell.value):
            continue
        try:
            position = decode_position(decode_value(cell.value))
        except RowDecodeError:
            continue
        block = reader.get_block(position.block_number)
        if block is None:
            break
        if block.consensus_start < consensus_ns:
            return position.block_number, position.index
        previous = reader.get_block(position.block_number - 1) if position.block_number > 0 else None
        if previous is not None:
            return previous.number, previous.item_count
        break
    raise ErrataPlacementError(
        f"no complete block is known to hold consensus time {consensus_ns} yet (the block, or the one after it, "
        "is not stored)"
    )


def _rows_after(gateway: BigtableGateway, consensus_ns: int) -> Iterator[StoredRow]:
    """The ``transactions`` rows (positions only) after ``consensus_ns``, in time order. Rows are
    spread over 16 buckets, so a row limit would not give the earliest: they are read in windows
    of time that follow each other, each sixteen times longer (one ReadRows each), as far as the
    caller reads."""
    low, window = consensus_ns + 1, _PLACEMENT_FIRST_WINDOW_NS
    while window <= _PLACEMENT_LAST_WINDOW_NS:
        yield from read_between(
            gateway,
            s.TRANSACTIONS,
            low,
            low + window,
            families=(s.TRANSACTION_FAMILY,),
            qualifier_regex=b"^position$",
        )
        low, window = low + window, window * _PLACEMENT_WINDOW_GROWTH


def item_cells(item: RecordItem, block_number: int, index: int, settings: Settings) -> dict[Address, bytes]:
    """The history cells (values with their encoding header) the row builder writes for ``item``
    as entry ``index`` of block ``block_number``, sidecars aside: the same code the stream uses,
    so the keys can never drift apart. The ``transactions`` row also holds the item's own bytes
    (the stream's row only points into the items row, which keeps the block as signed), and the
    index cells say so (``FLAG_APART``): a reader following them reads that row."""
    record = RecordFile(
        name=record_file_name(item.consensus_ns, compressed=True).name,
        version=6,
        hapi_version=(0, 0, 0),
        items=(item,),
        file_hash=b"",
        metadata_hash=None,
        start_running_hash=_NO_HASH,
        end_running_hash=_NO_HASH,
        computed_end_running_hash=None,
        previous_file_hash=None,
        block_number=block_number,
    )
    block = VerifiedBlock(record, block_number, (), (), ConsensusSummary(b"", None, 0, 0))
    built = block_to_rows(block, settings.with_(sidecars_enabled=False, duplicate_blocks=""))
    out: dict[Address, bytes] = {}
    for row in built.rows:
        if row.table not in ITEM_TABLES:
            continue
        for c in row.cells:
            value = c.value
            if row.table != s.TRANSACTIONS:
                value = encode_value(marked_apart(row.table, decode_value(value)))
            out[(row.table, row.key, c.family, c.qualifier)] = value
    key = row_key_for_transaction(item.consensus_ns)
    out[(s.TRANSACTIONS, key, s.TRANSACTION_FAMILY, s.Q_POSITION)] = encode_value(
        encode_position(Position(block_number, index))
    )
    for (family, qualifier), value in transaction_content_cells(item).items():
        out[(s.TRANSACTIONS, key, family, qualifier)] = value
    return out


def _entry_kind(body: ErrataBody, original: OriginalEntry) -> EntryKind:
    if body.correct_item is None:
        return EntryKind.DELETE
    return EntryKind.UPDATE if original.present else EntryKind.INSERT


def _desired_history(
    body: ErrataBody,
    original: OriginalEntry,
    kind: EntryKind,
    settings: Settings,
    *,
    in_force_id: str,
    in_force_ns: int,
) -> dict[Address, bytes]:
    desired: dict[Address, bytes] = {}
    if body.correct_item is not None:
        desired.update(item_cells(body.correct_item, original.block_number, original.index, settings))
        desired.update({c.address: c.value for c in original.sidecar_cells()})
    if kind is EntryKind.DELETE and not original.present:
        return desired  # nothing was there and nothing should be: no marker either
    marker = (s.TRANSACTIONS, row_key_for_transaction(original.consensus_ns), s.TRANSACTION_FAMILY, Q_ERRATA)
    desired[marker] = encode_marker(ErrataMarker(kind, in_force_id, in_force_ns))
    return desired


def _diff(gateway: BigtableGateway, wanted: Mapping[Address, bytes], stamp: int) -> tuple[CellChange, ...]:
    return _diff_stamped(gateway, {address: (value, stamp) for address, value in wanted.items()})


def _diff_stamped(gateway: BigtableGateway, wanted: Mapping[Address, tuple[bytes, int]]) -> tuple[CellChange, ...]:
    """The cells whose latest value differs from the wanted one. A tombstone over a cell that does
    not exist, or is one already, changes nothing."""
    current = read_latest(gateway, wanted)
    changes = []
    for address in sorted(wanted):
        value, stamp = wanted[address]
        before = current.get(address)
        if before == value or (is_tombstone(value) and (before is None or is_tombstone(before))):
            continue
        changes.append(CellChange(*address, value=value, timestamp_micros=stamp, before=before))
    return tuple(changes)


def read_latest(gateway: BigtableGateway, addresses: Iterable[Address]) -> dict[Address, bytes]:
    """The latest value of each cell that exists."""
    by_table: dict[str, set[bytes]] = {}
    wanted = set(addresses)
    for table, key, _, _ in wanted:
        by_table.setdefault(table, set()).add(key)
    found: dict[Address, bytes] = {}
    for table, keys in sorted(by_table.items()):
        for row in gateway.read_rows(table, RowQuery(keys=tuple(sorted(keys)))):
            for c in row.cells:
                address = (table, row.key, c.family, c.qualifier)
                if address in wanted:
                    found.setdefault(address, c.value)
    return found


def _key(errata: ErrataFile) -> tuple[int, str]:
    return errata.consensus_ns, errata.errata_id


def _one_row(gateway: BigtableGateway, table: str, key: bytes) -> StoredRow | None:
    for row in gateway.read_rows(table, RowQuery(keys=(key,))):
        return row
    return None


def _values_of(row: StoredRow | None) -> dict[bytes, bytes]:
    return {} if row is None else {c.qualifier: c.value for c in row.cells}


def _stamped_values_of(row: StoredRow) -> dict[bytes, tuple[bytes, int]]:
    return {c.qualifier: (c.value, c.timestamp_micros) for c in row.cells}
