"""A native block's items grouped into transactions, as the reference mirror node's block reader groups them.

A transaction is a ``signed_transaction`` item followed by its ``transaction_result``, then its
``transaction_output`` items, its ``trace_data`` items and the ``state_changes`` items stamped with
its own consensus time. A ``signed_transaction`` with no result after it is a system transaction
(state signatures and the like) and makes no transaction. ``state_changes`` items met while a
signed transaction or a result is looked for belong to no transaction (end of round, genesis) and
are passed over. The user transactions of an atomic batch are not items of their own: after the
batch's result come their results, one for each transaction of the batch body in turn, and their
signed transactions are the body's; a failed one ends the batch (the rest never ran, so have no
result).

A child names its parent by ``parent_consensus_timestamp``, resolved the way the reference does:
the transaction just before, that one's parent, or (inside a batch) that one's grandparent.
Header, round, event, footer and proof items, and item kinds newer than the bundled protobufs, are
stepped over: they carry no transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import BlockTransactionError
from hedera_history.formats.block import BlockFile, ItemKind, kind_name, parse_message
from hedera_history.formats.block_protos import BlockItem, StateChanges, TraceData, TransactionOutput, TransactionResult


@dataclass(frozen=True, slots=True, eq=False)
class BlockTransaction:
    """One transaction of a block with everything the block says about it."""

    signed_transaction_bytes: bytes
    """The ``SignedTransaction`` exactly as the block (or the batch body) holds it."""
    signed_transaction: hapi.SignedTransaction
    body: hapi.TransactionBody
    result: TransactionResult
    outputs: tuple[TransactionOutput, ...]
    trace_data: tuple[TraceData, ...]
    state_changes: tuple[StateChanges, ...]
    parent: int | None
    """Index of the parent in the block's transactions, None for a top-level transaction."""
    in_batch: bool
    """A user transaction of an atomic batch (its signed transaction is in the batch's body)."""
    item_indexes: tuple[int, ...]
    """The block items that make it up, in order (an inner batch transaction has no
    ``signed_transaction`` item of its own)."""

    @property
    def consensus_ns(self) -> int:
        timestamp = self.result.consensus_timestamp
        return int(timestamp.seconds) * 1_000_000_000 + int(timestamp.nanos)

    @property
    def parent_consensus_ns(self) -> int | None:
        if not self.result.HasField("parent_consensus_timestamp"):
            return None
        timestamp = self.result.parent_consensus_timestamp
        return int(timestamp.seconds) * 1_000_000_000 + int(timestamp.nanos)

    def output(self, case: str) -> TransactionOutput | None:
        """The output of ``case`` (e.g. ``account_create``); the last one when there are several,
        as the reference keeps one per case."""
        found = None
        for output in self.outputs:
            if output.WhichOneof("transaction") == case:
                found = output
        return found


def block_transactions(items: Sequence[BlockItem]) -> tuple[BlockTransaction, ...]:
    """Every transaction of a native block, in stream order; BlockTransactionError when a signed
    transaction or its body does not decode."""
    kinds = [_KIND_NUMBERS.get(item.WhichOneof("item") or "", 0) for item in items]
    parts = [_message_part(kind, item) for kind, item in zip(kinds, items, strict=True)]
    return tuple(_Grouping(kinds, parts).run())


def _message_part(kind: int, item: BlockItem) -> Any:
    if kind == _SIGNED_TRANSACTION:
        return bytes(item.signed_transaction)
    return getattr(item, kind_name(kind)) if kind in _PART_TYPES else None


def block_file_transactions(block: BlockFile) -> tuple[BlockTransaction, ...]:
    """:func:`block_transactions` of a parsed block file's items, each read from its wire bytes
    as the message its kind names (no ``BlockItem`` wrapper parsed); CorruptFileError naming the
    item kind when one does not parse, as :meth:`~hedera_history.formats.block.BlockItem.message`."""
    kinds = [item.kind for item in block.items]
    parts: list[Any] = []
    append = parts.append
    for item in block.items:
        kind = item.kind
        if kind == _SIGNED_TRANSACTION:
            append(item.payload)
        elif kind in _PART_TYPES:
            append(parse_message(_PART_TYPES[kind], item.payload, f"{item.name} item", block.name))
        else:
            item.message(block.name)  # every item parses, as the reference reads them all
            append(None)
    return tuple(_Grouping(kinds, parts).run())


_SIGNED_TRANSACTION = int(ItemKind.SIGNED_TRANSACTION)
_RESULT = int(ItemKind.TRANSACTION_RESULT)
_OUTPUT = int(ItemKind.TRANSACTION_OUTPUT)
_TRACE = int(ItemKind.TRACE_DATA)
_STATE_CHANGES = int(ItemKind.STATE_CHANGES)
_PART_TYPES = {
    _RESULT: TransactionResult,
    _OUTPUT: TransactionOutput,
    _TRACE: TraceData,
    _STATE_CHANGES: StateChanges,
}
"""The item kinds a transaction is made of (its signed transaction aside) -> their message (each
``BlockItem``'s field of that kind's name)."""
_KIND_NUMBERS = {kind.name.lower(): int(kind) for kind in ItemKind}


class _Grouping:
    """The walk over the items: ``kinds`` their field numbers, ``parts`` what each holds (the
    signed transaction's bytes, the parsed message of a transaction's other items, else None)."""

    def __init__(self, kinds: list[int], parts: list[Any]) -> None:
        self.kinds = kinds
        self.parts = parts
        self.index = 0
        self.found: list[BlockTransaction] = []
        self.batch: Sequence[bytes] = ()
        self.batch_next = 0

    def run(self) -> list[BlockTransaction]:
        count = len(self.kinds)
        while self.index < count:
            before = self.index
            self._read_transactions()
            if self.index == before:
                self.index += 1  # an item that starts no transaction
        return self.found

    def _take(self, kind: int) -> int | None:
        """The index of the next item if it is of ``kind`` (consumed), else None; state changes
        of no transaction in between are consumed, except while outputs or trace data are read
        (the state changes then may be the transaction's own)."""
        kinds = self.kinds
        index = self.index
        skips = kind not in (_OUTPUT, _TRACE)
        while index < len(kinds):
            current = kinds[index]
            if current == kind:
                self.index = index + 1
                return index
            if current == _STATE_CHANGES and skips:
                index += 1
                continue
            break
        self.index = index
        return None

    def _next_signed(self) -> tuple[bytes, int | None] | None:
        """The next signed transaction: an item, else the batch's next user transaction."""
        position = self._take(_SIGNED_TRANSACTION)
        if position is not None:
            return self.parts[position], position
        if self.batch_next < len(self.batch):
            self.batch_next += 1
            return bytes(self.batch[self.batch_next - 1]), None
        return None

    def _read_transactions(self) -> None:
        parts = self.parts
        while (signed := self._next_signed()) is not None:
            data, signed_position = signed
            in_batch = signed_position is None
            signed_transaction, body = _decode(data, len(self.found))
            result_position = self._take(_RESULT)
            if result_position is None:
                if in_batch:
                    self.batch, self.batch_next = (), 0
                continue
            positions = [result_position] if signed_position is None else [signed_position, result_position]
            outputs = self._take_all(_OUTPUT, positions)
            traces = self._take_all(_TRACE, positions)
            result = parts[result_position]
            changes = []
            while (position := self._take(_STATE_CHANGES)) is not None:
                item_changes = parts[position]
                if item_changes.consensus_timestamp != result.consensus_timestamp:
                    break  # consumed, but of no transaction
                changes.append(item_changes)
                positions.append(position)
            transaction = BlockTransaction(
                signed_transaction_bytes=data,
                signed_transaction=signed_transaction,
                body=body,
                result=result,
                outputs=tuple([parts[p] for p in outputs]),
                trace_data=tuple([parts[p] for p in traces]),
                state_changes=tuple(changes),
                parent=self._parent(result),
                in_batch=in_batch,
                item_indexes=tuple(positions),
            )
            self.found.append(transaction)
            if body.WhichOneof("data") == "atomic_batch":
                self.batch, self.batch_next = body.atomic_batch.transactions, 0

    def _take_all(self, kind: int, positions: list[int]) -> list[int]:
        taken = []
        while (position := self._take(kind)) is not None:
            taken.append(position)
            positions.append(position)
        return taken

    def _parent(self, result: TransactionResult) -> int | None:
        """The reference's rule: the previous transaction, its parent, or its grandparent when the
        previous one's parent is itself a child (a batch's inner transaction with children)."""
        if not result.HasField("parent_consensus_timestamp") or not self.found:
            return None
        wanted = result.parent_consensus_timestamp
        previous_index = len(self.found) - 1
        previous = self.found[previous_index]
        if previous.result.consensus_timestamp == wanted:
            return previous_index
        if previous.parent is None:
            return None
        parent = self.found[previous.parent]
        if parent.result.consensus_timestamp == wanted:
            return previous.parent
        if parent.result.HasField("parent_consensus_timestamp") and parent.result.parent_consensus_timestamp == wanted:
            return parent.parent
        return None


def _decode(data: bytes, index: int) -> tuple[hapi.SignedTransaction, hapi.TransactionBody]:
    try:
        signed = hapi.SignedTransaction.FromString(data)
        return signed, hapi.TransactionBody.FromString(signed.bodyBytes)
    except DecodeError as e:
        raise BlockTransactionError(f"transaction {index}: signed transaction does not decode: {e}") from e
