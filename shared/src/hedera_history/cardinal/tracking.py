"""The stateless consumer: one message at a time, many instances at once, state as single cells.

Each received message becomes one cell in its block's tracking row (written only if absent), so
duplicates, reordering and concurrent instances are harmless; nothing is read-modify-written but
the watermark, which moves by compare-and-set. After each write the row is read back and judged:

* ``block/<hash>``: ``batch`` (digest of the Batch value + the Batch without inline values),
  ``header/<id>`` (item count), ``sub/<id>/<index>`` (digest), ``key/<key>`` (``u`` + digest,
  or ``d``), then ``done`` (the one-time completion marker), ``connected`` (this block and
  every ancestor down to ``first_number`` are complete), ``linked`` (the complete blocks below
  it are connected too) and, on a conflict, ``conflict``.
* ``children/<parent hash>``: one column per complete child, so completion can flow down.
* ``roots``: one column per root of the watermark (a complete block numbered ``first_number``, or
  one declared a root), so a crash that left the first block unconnected can be found again.
* ``watermark``: ``tip``, the heaviest connected block; moves only to a strictly heavier one.

A crash can leave a complete block unconnected (between its ``done`` and its ``connected``, or
part way down the walk to its waiting children). Any later delivery of one of its messages walks
again; :meth:`StatelessTracker.reconnect` does it without one, from the watermark's children (or
the roots while there is no watermark), so a sweep repairs what no redelivery will.

Values go to the :class:`BlockSink` *before* the cell that records them, so a crash in between
is repaired by redelivery; the completion marker is written last of all.
"""

from __future__ import annotations

import enum
import hashlib
import threading
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Final, Protocol

from hedera_history.cardinal import avro_schemas as avro
from hedera_history.cardinal import messages as msg
from hedera_history.cardinal.chain_blocks import BlockHeader
from hedera_history.cardinal.conflicts import ConflictPolicy, conflict
from hedera_history.cardinal.identity import sub_batch_id
from hedera_history.cardinal.subscription import EVERYTHING, Subscription
from hedera_history.errors import MessageFormatError

COL_BATCH: Final = b"batch"
COL_DONE: Final = b"done"
COL_CONNECTED: Final = b"connected"
COL_LINKED: Final = b"linked"
COL_CONFLICT: Final = b"conflict"
COL_TIP: Final = b"tip"
HEADER_COLUMN: Final = b"header/"
SUB_COLUMN: Final = b"sub/"
KEY_COLUMN: Final = b"key/"
_MARK: Final = b"1"
_DIGEST_SIZE: Final = 32


class TrackingStore(Protocol):
    """A key-value store of rows of cells with an atomic per-cell compare-and-set.

    In Bigtable: ``read_row`` reads the latest cell of each column; ``check_and_set`` is a
    CheckAndMutateRow whose predicate tests the column (absent, or holding exactly ``expected``).
    """

    def read_row(self, row: bytes) -> Mapping[bytes, bytes]:
        """Every column of ``row`` with its value; empty when the row does not exist."""
        ...

    def check_and_set(self, row: bytes, column: bytes, expected: bytes | None, value: bytes) -> bool:
        """Set the cell to ``value`` if it holds ``expected`` (None: if it is absent). True if set."""
        ...


class InMemoryTrackingStore:
    """A :class:`TrackingStore` in a dict; each operation is atomic, so threads may share it."""

    def __init__(self) -> None:
        self._rows: dict[bytes, dict[bytes, bytes]] = {}
        self._lock = threading.Lock()

    def read_row(self, row: bytes) -> Mapping[bytes, bytes]:
        with self._lock:
            return dict(self._rows.get(row, {}))

    def check_and_set(self, row: bytes, column: bytes, expected: bytes | None, value: bytes) -> bool:
        with self._lock:
            cells = self._rows.setdefault(row, {})
            if cells.get(column) != expected:
                return False
            cells[column] = value
            return True

    def rows(self) -> dict[bytes, dict[bytes, bytes]]:
        """A copy of everything (for tests and inspection)."""
        with self._lock:
            return {row: dict(cells) for row, cells in self._rows.items()}


class BlockSink(Protocol):
    """Where a block's values go (e.g. the destination tables). Both methods must be idempotent."""

    def write(self, block_hash: bytes, updates: Mapping[str, bytes], deletes: Collection[str]) -> None:
        """Part of a block's content; called before the message is recorded, maybe more than once."""
        ...

    def finish(self, block: BlockHeader) -> None:
        """Every part has been written; called before the completion marker, maybe more than once."""
        ...


class Disposition(enum.Enum):
    RECORDED = "recorded"
    """The message was new; its block is not complete yet."""
    DUPLICATE = "duplicate"
    """The message had been recorded before; nothing changed."""
    COMPLETED = "completed"
    """This call set the block's completion marker: reported exactly once per block."""
    ALREADY_COMPLETE = "already_complete"
    """The block was complete before: nothing to do."""
    CONFLICT = "conflict"
    """The block's producers disagree; it will not complete."""
    IGNORED = "ignored"
    """A Reorg or ReorgComplete message: the watermark rule already follows the heaviest chain."""


@dataclass(frozen=True, slots=True)
class TrackingOutcome:
    disposition: Disposition
    block_hash: bytes
    completed: BlockHeader | None = None
    """The block this call completed (with ``COMPLETED``)."""
    watermark: BlockHeader | None = None
    """The new watermark, when this call moved it."""


@dataclass(frozen=True, slots=True)
class RowStatus:
    complete: bool
    conflict: str | None = None


class StatelessTracker:
    """The Cardinal Streams consumer rules over a :class:`TrackingStore`; keeps no state itself.

    Blocks numbered ``first_number`` are the roots of the watermark: a block is *connected* when
    it is complete and is a root or its parent is connected; the watermark is the heaviest
    connected block, so every block from a root up to it is complete.
    """

    def __init__(
        self,
        store: TrackingStore,
        sink: BlockSink,
        *,
        first_number: int = 0,
        subscription: Subscription = EVERYTHING,
        conflicts: ConflictPolicy | None = None,
        namespace: bytes = b"",
        verify_sub_batch_ids: bool = True,
        before_connect: Callable[[BlockHeader], None] | None = None,
    ) -> None:
        """``before_connect``: called when this call is about to mark a complete block connected,
        between its ``done`` and its ``connected`` (a fault-injection test's crash point; nothing
        else uses it)."""
        self._store = store
        self._sink = sink
        self._first_number = first_number
        self._subscription = subscription
        self._conflicts = conflicts or ConflictPolicy()
        self._namespace = namespace
        self._verify_ids = verify_sub_batch_ids
        self._before_connect = before_connect

    # ---- rows ------------------------------------------------------------------------------------

    def block_row(self, block_hash: bytes) -> bytes:
        return self._namespace + b"block/" + block_hash.hex().encode()

    def children_row(self, parent: bytes) -> bytes:
        return self._namespace + b"children/" + parent.hex().encode()

    def watermark_row(self) -> bytes:
        return self._namespace + b"watermark"

    def roots_row(self) -> bytes:
        return self._namespace + b"roots"

    # ---- queries ---------------------------------------------------------------------------------

    def watermark(self) -> BlockHeader | None:
        """The heaviest block such that it and all its ancestors down to a root are complete."""
        cell = self._store.read_row(self.watermark_row()).get(COL_TIP)
        return None if cell is None else _decode_header(cell)

    def is_complete(self, block_hash: bytes) -> bool:
        return COL_DONE in self._store.read_row(self.block_row(block_hash))

    # ---- roots -----------------------------------------------------------------------------------

    def declare_root(self, block: BlockHeader) -> None:
        """Make ``block`` a root of the watermark whatever its number: a stream followed from its
        middle begins at a block whose ancestors this store never receives. Its parent's row is
        marked connected (and nothing else: the parent never completes here), so the block connects
        once complete, as a block numbered ``first_number`` does. Idempotent."""
        self._store.check_and_set(self.roots_row(), block.hash.hex().encode(), None, _MARK)
        self._store.check_and_set(self.block_row(block.parent), COL_CONNECTED, None, _MARK)

    # ---- receiving -------------------------------------------------------------------------------

    def receive(self, message: msg.WireMessage) -> TrackingOutcome:
        """Record one message and judge its block. Safe to call again with the same message."""
        decoded = msg.decode_message(message)
        if isinstance(decoded, msg.Reorg | msg.ReorgComplete):
            return TrackingOutcome(Disposition.IGNORED, decoded.block_hash)
        block_hash = decoded.block_hash
        row_key = self.block_row(block_hash)
        row = self._store.read_row(row_key)
        if COL_DONE in row:
            header = _batch_header(block_hash, row[COL_BATCH])
            return TrackingOutcome(Disposition.ALREADY_COMPLETE, block_hash, watermark=self._connect(header))
        if COL_CONFLICT in row:
            return TrackingOutcome(Disposition.CONFLICT, block_hash)
        column, cell = _cell_for(decoded, message.value)
        existing = row.get(column)
        disposition = Disposition.DUPLICATE
        if existing is None:
            if COL_BATCH in row:
                # The Batch is known: refuse a contradicting message before its values reach the sink.
                status = self._evaluate(block_hash, {**row, column: cell})
                if status.conflict is not None:
                    return self._conflict(block_hash, status.conflict)
            self._deliver(decoded)
            if self._store.check_and_set(row_key, column, None, cell):
                disposition = Disposition.RECORDED
            else:
                existing = self._store.read_row(row_key).get(column)
            row = self._store.read_row(row_key)
        if existing is not None and existing != cell:
            return self._conflict(block_hash, f"two different messages recorded as {column[:80]!r}")
        return self._judge(block_hash, row, disposition)

    def _deliver(self, message: msg.CardinalMessage) -> None:
        tracks = self._subscription.tracks_key
        match message:
            case msg.Batch():
                updates = {
                    k: e.value for k, e in message.entries.items() if isinstance(e, msg.InlineValue) and tracks(k)
                }
                deletes = [k for k, e in message.entries.items() if isinstance(e, msg.InlineDelete) and tracks(k)]
                if updates or deletes:
                    self._sink.write(message.block_hash, updates, deletes)
            case msg.SubBatchMsg():
                updates = self._subscription.filter_updates(message.updates)
                deletes = [key for key in message.deletes if tracks(key)]
                if updates or deletes:
                    self._sink.write(message.block_hash, updates, deletes)
            case msg.BatchMsg(block_hash, key, value) if tracks(key):
                self._sink.write(block_hash, {key: value}, ())
            case msg.BatchDeleteMsg(block_hash, key) if tracks(key):
                self._sink.write(block_hash, {}, (key,))

    def _judge(self, block_hash: bytes, row: Mapping[bytes, bytes], disposition: Disposition) -> TrackingOutcome:
        batch_cell = row.get(COL_BATCH)
        if COL_CONFLICT in row:
            return TrackingOutcome(Disposition.CONFLICT, block_hash)
        if batch_cell is None:
            return TrackingOutcome(disposition, block_hash)
        status = self._evaluate(block_hash, row)
        if status.conflict is not None:
            return self._conflict(block_hash, status.conflict)
        if not status.complete:
            return TrackingOutcome(disposition, block_hash)
        header = _batch_header(block_hash, batch_cell)
        self._sink.finish(header)
        self._store.check_and_set(self.children_row(header.parent), block_hash.hex().encode(), None, _MARK)
        if header.number == self._first_number:
            self._store.check_and_set(self.roots_row(), block_hash.hex().encode(), None, _MARK)
        won = self._store.check_and_set(self.block_row(block_hash), COL_DONE, None, _MARK)
        watermark = self._connect(header)
        if won:
            return TrackingOutcome(Disposition.COMPLETED, block_hash, completed=header, watermark=watermark)
        return TrackingOutcome(Disposition.ALREADY_COMPLETE, block_hash, watermark=watermark)

    def _evaluate(self, block_hash: bytes, row: Mapping[bytes, bytes]) -> RowStatus:
        summary = msg.Batch.decode_value(block_hash, row[COL_BATCH][_DIGEST_SIZE:])
        return evaluate_row(summary, row, self._subscription, verify_sub_batch_ids=self._verify_ids)

    def _conflict(self, block_hash: bytes, reason: str) -> TrackingOutcome:
        self._store.check_and_set(self.block_row(block_hash), COL_CONFLICT, None, reason.encode())
        self._conflicts.report(conflict(block_hash, reason))
        return TrackingOutcome(Disposition.CONFLICT, block_hash)

    # ---- watermark -------------------------------------------------------------------------------

    def reconnect(self) -> BlockHeader | None:
        """Connect the complete blocks a crash left unconnected, as a redelivery of one of their
        messages would; returns the watermark if this call moved it.

        On the chain the watermark follows, the first such block is a complete child of the
        watermark's block (a crash between its ``done`` and its ``connected``, or before its
        ``linked``: its parent is connected, so offered, and nothing past it is connected), or a
        root while there is no watermark; the walk from it reaches every block stranded below it.
        A few reads when there is nothing to repair."""
        tip = self.watermark()
        candidates = self._store.read_row(self.roots_row() if tip is None else self.children_row(tip.hash))
        moved: BlockHeader | None = None
        for hash_hex in candidates:
            block_hash = bytes.fromhex(hash_hex.decode())
            row = self._store.read_row(self.block_row(block_hash))
            if COL_DONE in row and COL_LINKED not in row:
                moved = self._connect(_batch_header(block_hash, row[COL_BATCH])) or moved
        return moved

    def _connect(self, block: BlockHeader) -> BlockHeader | None:
        """Connect ``block`` if its parent is, then the complete descendants waiting below it;
        offer each to the watermark. Returns the watermark if this call moved it.

        A block's ``connected`` marker is written before its children are read, and a child's
        ``done`` before its parent is read, so of two racing instances one always carries the
        connection on. ``linked`` is written once everything below a block was handled (post
        order), so a crash half way leaves an unlinked path that a redelivery walks again.
        """
        moved: BlockHeader | None = None
        stack: list[tuple[BlockHeader, bool]] = [(block, False)]
        while stack:
            current, handled = stack.pop()
            row_key = self.block_row(current.hash)
            if handled:
                self._store.check_and_set(row_key, COL_LINKED, None, _MARK)
                continue
            row = self._store.read_row(row_key)
            if COL_LINKED in row:
                continue
            if COL_CONNECTED not in row:
                if not self._may_connect(current):
                    continue
                if self._before_connect is not None:
                    self._before_connect(current)
                self._store.check_and_set(row_key, COL_CONNECTED, None, _MARK)
            moved = self._offer(current) or moved
            stack.append((current, True))
            for child_hex in self._store.read_row(self.children_row(current.hash)):
                child_hash = bytes.fromhex(child_hex.decode())
                child_row = self._store.read_row(self.block_row(child_hash))
                if COL_DONE in child_row and COL_LINKED not in child_row:
                    stack.append((_batch_header(child_hash, child_row[COL_BATCH]), False))
        return moved

    def _may_connect(self, block: BlockHeader) -> bool:
        if block.number == self._first_number:
            return True
        if block.number < self._first_number:
            return False
        return COL_CONNECTED in self._store.read_row(self.block_row(block.parent))

    def _offer(self, block: BlockHeader) -> BlockHeader | None:
        row_key = self.watermark_row()
        while True:
            current = self._store.read_row(row_key).get(COL_TIP)
            if current is not None and _decode_header(current).weight >= block.weight:
                return None
            if self._store.check_and_set(row_key, COL_TIP, current, _encode_header(block)):
                return block


def evaluate_row(
    summary: msg.Batch,
    row: Mapping[bytes, bytes],
    subscription: Subscription,
    *,
    verify_sub_batch_ids: bool = True,
) -> RowStatus:
    """Judge a tracking row against its Batch: complete, incomplete, or a conflict (and why)."""
    reading = _RowReading(summary, subscription)
    problem = reading.read(row) or reading.overcounted() or reading.check_sub_batches(verify_sub_batch_ids)
    if problem is not None:
        return RowStatus(False, problem)
    return RowStatus(reading.complete())


class _RowReading:
    """A tracking row tallied against its Batch; each step answers the first conflict it finds."""

    def __init__(self, summary: msg.Batch, subscription: Subscription) -> None:
        self.summary = summary
        self.subscription = subscription
        entries = summary.entries.items()
        self.counts = {name: entry.count for name, entry in entries if isinstance(entry, msg.PrefixCount)}
        self.prefixes = {e.batch_id.hex(): name for name, e in entries if isinstance(e, msg.SubBatchRef)}
        self.item_counts: dict[str, int] = {}
        self.digests: dict[str, dict[int, bytes]] = {sub_id: {} for sub_id in self.prefixes}
        self.received = dict.fromkeys(self.counts, 0)
        self.complete_subs: set[str] = set()

    def read(self, row: Mapping[bytes, bytes]) -> str | None:
        for column, value in row.items():
            if column.startswith(HEADER_COLUMN):
                sub_id = column[len(HEADER_COLUMN) :].decode()
                if sub_id not in self.prefixes:
                    return f"header for sub-batch {sub_id} that the Batch does not announce"
                self.item_counts[sub_id] = avro.decode_int(value, "recorded item count")
            elif column.startswith(SUB_COLUMN):
                sub_id, _, index = column[len(SUB_COLUMN) :].decode().partition("/")
                if sub_id not in self.prefixes:
                    return f"message of sub-batch {sub_id} that the Batch does not announce"
                self.digests[sub_id][int(index)] = value
            elif column.startswith(KEY_COLUMN):
                key = column[len(KEY_COLUMN) :].decode()
                prefix = next((p for p in self.counts if key.startswith(p)), None)
                if prefix is not None:
                    self.received[prefix] += 1
                elif self.subscription.tracks_key(key):
                    return f"key {key!r} is under no prefix the Batch counts"
        return None

    def overcounted(self) -> str | None:
        for prefix, count in self.counts.items():
            if self.received[prefix] > count:
                return f"{self.received[prefix]} messages under prefix {prefix!r}; the Batch counts {count}"
        return None

    def check_sub_batches(self, verify_ids: bool) -> str | None:
        """Records the sub-batches whose every message arrived (their content checked against
        their id when ``verify_ids``)."""
        for sub_id, item_count in self.item_counts.items():
            digests = self.digests[sub_id]
            if any(index >= item_count for index in digests):
                return f"sub-batch {sub_id} has a message beyond its {item_count} items"
            if len(digests) == item_count:
                self.complete_subs.add(sub_id)
                in_order = [digests[index] for index in range(item_count)]
                expected = sub_batch_id(self.summary.block_hash, self.prefixes[sub_id], in_order)
                if verify_ids and expected.hex() != sub_id:
                    return f"sub-batch {sub_id} content does not match its id"
        return None

    def complete(self) -> bool:
        tracks = self.subscription.tracks_group
        return all(self.received[p] == c for p, c in self.counts.items() if tracks(p)) and all(
            sub_id in self.complete_subs for sub_id, prefix in self.prefixes.items() if tracks(prefix)
        )


def _cell_for(message: msg.CardinalMessage, value: bytes) -> tuple[bytes, bytes]:
    """The column that records ``message`` and the value it holds there."""
    digest = hashlib.sha256(value).digest()
    match message:
        case msg.Batch():
            summary = {k: e for k, e in message.entries.items() if isinstance(e, msg.PrefixCount | msg.SubBatchRef)}
            stripped = msg.Batch(message.block_hash, message.number, message.weight, message.parent, summary)
            return COL_BATCH, digest + stripped.encode_value()
        case msg.SubBatchHeader(_, batch_id, item_count):
            return HEADER_COLUMN + batch_id.hex().encode(), avro.encode_int(item_count)
        case msg.SubBatchMsg(_, batch_id, index):
            return SUB_COLUMN + f"{batch_id.hex()}/{index}".encode(), digest
        case msg.BatchMsg(_, key):
            return KEY_COLUMN + key.encode(), b"u" + digest
        case msg.BatchDeleteMsg(_, key):
            return KEY_COLUMN + key.encode(), b"d"
    raise MessageFormatError(f"{type(message).__name__} is not recorded in a tracking row")


def _batch_header(block_hash: bytes, batch_cell: bytes) -> BlockHeader:
    summary = msg.Batch.decode_value(block_hash, batch_cell[_DIGEST_SIZE:])
    return BlockHeader(block_hash, summary.number, summary.parent, summary.weight)


def _encode_header(block: BlockHeader) -> bytes:
    return block.number.to_bytes(8, "big") + block.hash + block.parent + msg.weight_to_bytes(block.weight)


def _decode_header(cell: bytes) -> BlockHeader:
    hash_end = 8 + msg.HASH_SIZE
    parent_end = hash_end + msg.HASH_SIZE
    number = int.from_bytes(cell[:8], "big")
    return BlockHeader(cell[8:hash_end], number, cell[hash_end:parent_end], msg.weight_from_bytes(cell[parent_end:]))
