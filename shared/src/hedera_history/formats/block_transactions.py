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

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import BlockTransactionError
from hedera_history.formats.block import ITEM_SLOTS, BlockFile, ItemKind, kind_name, parse_message
from hedera_history.formats.block import BlockItem as BlockFileItem
from hedera_history.formats.block_protos import BlockItem, StateChanges, TraceData, TransactionOutput, TransactionResult
from hedera_history.formats.wire import LEN, VARINT
from hedera_history.speedups import block_transaction_groups as compiled_groups


@dataclass(frozen=True, slots=True)
class TransactionMessages:
    """A transaction's messages, parsed."""

    signed_transaction: hapi.SignedTransaction
    body: hapi.TransactionBody
    result: TransactionResult
    outputs: tuple[TransactionOutput, ...]
    trace_data: tuple[TraceData, ...]
    state_changes: tuple[StateChanges, ...]


class BlockTransaction:
    """One transaction of a block with everything the block says about it.

    Where the compiled core grouped the block file's items, its messages (signed transaction,
    body, result, outputs, trace data, state changes) are read when first asked for: most records
    need none of them, only the facts the walk read from the wire (times, status, body case, the
    record's fields renumbered)."""

    __slots__ = (
        "_body",
        "_counts",
        "_outputs",
        "_result",
        "_signed",
        "_source",
        "_state_changes",
        "_trace_data",
        "consensus_ns",
        "data_case",
        "in_batch",
        "item_indexes",
        "legacy_hash",
        "output_cases",
        "parent",
        "parent_consensus_ns",
        "record_fields",
        "signed_transaction_bytes",
        "status",
        "transaction_bytes",
    )

    signed_transaction_bytes: bytes
    """The ``SignedTransaction`` exactly as the block (or the batch body) holds it."""
    parent: int | None
    """Index of the parent in the block's transactions, None for a top-level transaction."""
    in_batch: bool
    """A user transaction of an atomic batch (its signed transaction is in the batch's body)."""
    item_indexes: tuple[int, ...]
    """The block items that make it up, in order (an inner batch transaction has no
    ``signed_transaction`` item of its own)."""
    consensus_ns: int
    parent_consensus_ns: int | None
    status: int
    """The result's status (a ``ResponseCodeEnum`` number)."""
    data_case: str | None
    """The body's ``data`` case (``cryptoTransfer``), None when it has none."""
    legacy_hash: bool
    """``use_serialized_tx_message_hash_algorithm``: the network received it in the old form."""
    output_cases: tuple[str | None, ...]
    """Each output's ``transaction`` case, in order."""
    record_fields: bytes | None
    """The record's fields the result and the body give, renumbered (``block_records``), when the
    compiled core read them; None otherwise."""
    transaction_bytes: bytes | None
    """The ``Transaction`` the record item carries (``block_records.transaction_bytes``) when the
    compiled core built it; None otherwise."""
    _source: Any
    """The block's items as one parse of the whole block read them, where the messages read lazily
    come from (compiled core only)."""
    _counts: tuple[int, int]
    """How many of ``item_indexes`` after the result are outputs, and then trace data."""
    _signed: hapi.SignedTransaction | None
    _body: hapi.TransactionBody | None
    _result: TransactionResult | None
    _outputs: tuple[TransactionOutput, ...] | None
    _trace_data: tuple[TraceData, ...] | None
    _state_changes: tuple[StateChanges, ...] | None

    def __init__(
        self,
        signed_transaction_bytes: bytes,
        messages: TransactionMessages,
        *,
        parent: int | None,
        in_batch: bool,
        item_indexes: tuple[int, ...],
    ) -> None:
        """A transaction of parsed messages (the compiled core makes the lazy ones itself)."""
        signed, body, result = messages.signed_transaction, messages.body, messages.result
        self.signed_transaction_bytes = signed_transaction_bytes
        self._signed, self._body, self._result = signed, body, result
        self._outputs, self._trace_data = messages.outputs, messages.trace_data
        self._state_changes = messages.state_changes
        self.parent = parent
        self.in_batch = in_batch
        self.item_indexes = item_indexes
        self.consensus_ns = _nanoseconds(result.consensus_timestamp)
        has_parent = result.HasField("parent_consensus_timestamp")
        self.parent_consensus_ns = _nanoseconds(result.parent_consensus_timestamp) if has_parent else None
        self.status = result.status
        self.data_case = body.WhichOneof("data")
        self.legacy_hash = signed.use_serialized_tx_message_hash_algorithm
        self.output_cases = tuple(output.WhichOneof("transaction") for output in messages.outputs)
        self.record_fields = None
        self.transaction_bytes = None

    def _parts(self, field: str, start: int, stop: int) -> tuple[Any, ...]:
        """The messages of ``item_indexes[start:stop]``, each its item's ``field`` as the whole
        block's one parse read it (the same message a parse of the item's payload gives)."""
        items = self._source
        return tuple([getattr(items[i], field) for i in self.item_indexes[start:stop]])

    @property
    def signed_transaction(self) -> hapi.SignedTransaction:
        if self._signed is None:
            self._signed, self._body = _decode(self.signed_transaction_bytes, 0)
        return self._signed

    @property
    def body(self) -> hapi.TransactionBody:
        if self._body is None:
            self._signed, self._body = _decode(self.signed_transaction_bytes, 0)
        return self._body

    @property
    def result(self) -> TransactionResult:
        if self._result is None:
            (self._result,) = self._parts("transaction_result", 1, 2)
        return self._result

    @property
    def outputs(self) -> tuple[TransactionOutput, ...]:
        if self._outputs is None:
            self._outputs = self._parts("transaction_output", 2, 2 + self._counts[0])
        return self._outputs

    @property
    def trace_data(self) -> tuple[TraceData, ...]:
        if self._trace_data is None:
            start = 2 + self._counts[0]
            self._trace_data = self._parts("trace_data", start, start + self._counts[1])
        return self._trace_data

    @property
    def state_changes(self) -> tuple[StateChanges, ...]:
        if self._state_changes is None:
            self._state_changes = self._parts("state_changes", 2 + sum(self._counts), len(self.item_indexes))
        return self._state_changes

    def output(self, case: str) -> TransactionOutput | None:
        """The output of ``case`` (e.g. ``account_create``); the last one when there are several,
        as the reference keeps one per case."""
        if case not in self.output_cases:
            return None
        found = None
        for which, output in zip(self.output_cases, self.outputs, strict=True):
            if which == case:
                found = output
        return found


def _nanoseconds(timestamp: Any) -> int:
    return int(timestamp.seconds) * 1_000_000_000 + int(timestamp.nanos)


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
    item kind when one does not parse, as :meth:`~hedera_history.formats.block.BlockItem.message`.

    With the compiled core, the whole block is parsed once as :data:`_CheckedBlock` (every item as
    its kind's message, every signed transaction and its body too: what the walk below would
    parse) and the core groups the items from their bytes, each transaction's messages then taken
    from that parse when first read; a block that does not parse so, or that the core leaves to
    Python (an atomic batch, a field of an unexpected shape), is walked here, which names the fault."""
    checked = None if compiled_groups is None else _checked(block.content())
    if compiled_groups is not None and checked is not None:
        transactions = compiled_groups(_LAYOUT, block.items, checked.items)
        if transactions is not None:
            return tuple(transactions)
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


def _checked(content: bytes) -> Any | None:
    """``content`` parsed as :data:`_CheckedBlock`, None when it does not parse."""
    try:
        return _CheckedBlock.FromString(content)
    except DecodeError:
        return None


def _checked_block_type() -> Any:
    """``Block`` as the walk reads it: each ``BlockItem`` as it is, but for its signed transaction,
    a ``SignedTransaction`` whose body bytes are a ``TransactionBody`` (same wire format). A parse
    that succeeds is one where every part the walk parses parses (occurrences of a field merge
    where the walk keeps the last, so it may refuse what the walk reads, never the reverse)."""
    field = descriptor_pb2.FieldDescriptorProto
    package = "hedera_history.checked_block"
    item = BlockItem.DESCRIPTOR
    signed = hapi.SignedTransaction.DESCRIPTOR
    proto = descriptor_pb2.FileDescriptorProto(name="hedera_history/checked_block.proto", package=package)
    proto.syntax = "proto3"
    proto.dependency.extend(sorted({item.file.name, signed.file.name, hapi.TransactionBody.DESCRIPTOR.file.name}))
    checked_signed = proto.message_type.add()
    signed.CopyToProto(checked_signed)
    checked_signed.name = "Signed"
    for signed_field in checked_signed.field:
        if signed_field.name == "bodyBytes":
            signed_field.type = field.TYPE_MESSAGE
            signed_field.type_name = f".{hapi.TransactionBody.DESCRIPTOR.full_name}"
    checked_item = proto.message_type.add()
    item.CopyToProto(checked_item)
    checked_item.name = "Item"
    for item_field in checked_item.field:
        if item_field.number == _SIGNED_TRANSACTION:
            item_field.type = field.TYPE_MESSAGE
            item_field.type_name = f".{package}.Signed"
    block = proto.message_type.add(name="Block")
    block.field.add(
        name="items", number=1, type=field.TYPE_MESSAGE, label=field.LABEL_REPEATED, type_name=f".{package}.Item"
    )
    pool = descriptor_pool.Default()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{package}.Block"))


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


def _case_names(oneof: Any) -> tuple[str | None, ...]:
    """A oneof's case names by field number (None for a number that is no case), for the compiled core."""
    names = {case.number: case.name for case in oneof.fields}
    return tuple(names.get(number) for number in range(max(names) + 1))


_DATA_CASES = _case_names(hapi.TransactionBody.DESCRIPTOR.oneofs_by_name["data"])
_ATOMIC_BATCH = hapi.TransactionBody.DESCRIPTOR.fields_by_name["atomic_batch"].number
_OUTPUT_CASES = _case_names(TransactionOutput.DESCRIPTOR.oneofs_by_name["transaction"])
_CheckedBlock = _checked_block_type()

# The result's fields a transaction's record takes, under the record's numbers (same message
# types), for the compiled core (speedups.renumbered_fields): (number, record's number, wire type).
RESULT_FIELDS = bytes(
    (
        *(2, 3, LEN),  # consensus_timestamp -> consensusTimestamp
        *(3, 15, LEN),  # parent_consensus_timestamp
        *(5, 12, LEN),  # schedule_ref -> scheduleRef
        *(6, 6, VARINT),  # transaction_fee_charged -> transactionFee
        *(7, 10, LEN),  # transfer_list -> transferList
        *(8, 11, LEN),  # token_transfer_lists -> tokenTransferLists
        *(9, 14, LEN),  # automatic_token_associations
        *(10, 18, LEN),  # paid_staking_rewards
        *(12, 13, LEN),  # assessed_custom_fees
    )
)
BODY_FIELDS = bytes((*(1, 4, LEN), *(6, 5, LEN)))  # transactionID, memo

_TRANSACTION_SLOTS = (
    *("signed_transaction_bytes", "transaction_bytes", "item_indexes", "_counts", "parent", "consensus_ns"),
    *("parent_consensus_ns", "status", "data_case", "legacy_hash", "record_fields", "output_cases", "in_batch"),
    *("_source", "_signed", "_body", "_result", "_outputs", "_trace_data", "_state_changes"),
)
"""The slots the compiled core fills, in its order (the last six, the messages, with None)."""
_LAYOUT = (
    BlockFileItem,
    ITEM_SLOTS,
    _DATA_CASES,
    _ATOMIC_BATCH,
    _OUTPUT_CASES,
    RESULT_FIELDS,
    BODY_FIELDS,
    BlockTransaction,
    tuple(vars(BlockTransaction)[name] for name in _TRANSACTION_SLOTS),
)
"""What ``speedups.block_transaction_groups`` reads items with and makes transactions of."""


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
            messages = TransactionMessages(
                signed_transaction,
                body,
                result,
                outputs=tuple([parts[p] for p in outputs]),
                trace_data=tuple([parts[p] for p in traces]),
                state_changes=tuple(changes),
            )
            transaction = BlockTransaction(
                data,
                messages,
                parent=self._parent(result),
                in_batch=in_batch,
                item_indexes=tuple(positions),
            )
            self.found.append(transaction)
            if transaction.data_case == "atomic_batch":
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
