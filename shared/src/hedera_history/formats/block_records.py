"""A native block's transactions as the record items and sidecar records the row builder reads.

Each transaction becomes a :class:`~hedera_history.formats.parsed_files.RecordItem`: the
``Transaction`` the network was sent and a ``TransactionRecord`` synthesized as the reference
mirror node's block transformer synthesizes it (``BlockFileTransformer`` and
``downloader/block/transformer/``), so the record stream and the block stream give one model:

* ``Transaction``: the signed transaction's own bytes wrapped as ``signedTransactionBytes``; one
  the network received in the old form (``use_serialized_tx_message_hash_algorithm``) as its body
  bytes and signature map.
* Record: transaction id and memo from the body; consensus time, status, fee, transfers, token
  transfers, custom fees, automatic associations, staking rewards, parent consensus time and
  schedule reference from the result; the transaction hash is SHA-384 of the signed transaction
  bytes (of the rebuilt ``Transaction`` in the old form), the hash the network defines for block
  streams; the contract result and sidecars from the EVM output and trace data
  (``block_contracts``); what the kind adds from its outputs and state changes (``block_kinds``).

Transactions are transformed newest first, as the reference does, so that entities created and
supplies changed by several transactions sharing one set of state changes are told apart
(``block_state``), and a slot's value written is the value a later transaction of its batch read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from hedera_history import hapi
from hedera_history.formats.block_contracts import ContractOutcome, add_contract_result
from hedera_history.formats.block_kinds import KIND_TRANSFORMS, Transformation
from hedera_history.formats.block_protos import BlockItem
from hedera_history.formats.block_state import SlotKey, StateContext
from hedera_history.formats.block_transactions import BODY_FIELDS, RESULT_FIELDS, BlockTransaction, block_transactions
from hedera_history.formats.hashing import HASH_SIZE, sha384
from hedera_history.formats.parsed_files import RecordItem, SidecarRecord, SidecarType
from hedera_history.formats.wire import length_delimited, varint_field
from hedera_history.speedups import renumbered_fields

SUCCESS_STATUSES = frozenset(
    hapi.ResponseCodeEnum.Value(name)
    for name in ("SUCCESS", "FEE_SCHEDULE_FILE_PART_UPLOADED", "SUCCESS_BUT_MISSING_EXPECTED_OPERATION")
)

_SIDECAR_TYPES = {
    "state_changes": SidecarType.CONTRACT_STATE_CHANGE,
    "actions": SidecarType.CONTRACT_ACTION,
    "bytecode": SidecarType.CONTRACT_BYTECODE,
}


@dataclass(frozen=True, slots=True)
class BlockRecords:
    """A block's transactions as record items, in stream order, and the sidecar records their
    trace data gives, in consensus order."""

    items: tuple[RecordItem, ...]
    sidecar_records: tuple[SidecarRecord, ...]


def records_from_items(items: Sequence[BlockItem]) -> BlockRecords:
    """:func:`block_records` of the transactions a native block's items group into."""
    return block_records(block_transactions(items))


def block_records(transactions: Sequence[BlockTransaction]) -> BlockRecords:
    """Every transaction's record item and sidecar records."""
    successful = _successes(transactions)
    context = _Contexts(transactions)
    following = _following(transactions)
    reads: dict[int, dict[SlotKey, bytes]] = {}

    def value_written(index: int, slot: SlotKey) -> bytes | None:
        later = following[index]
        while later is not None:
            if slot in reads.get(later, ()):
                return reads[later][slot]
            later = following[later]
        return context(index).storage.get(slot)

    items: list[RecordItem] = []
    sidecars: list[list[SidecarRecord]] = []
    for index in reversed(range(len(transactions))):
        transaction = transactions[index]
        record = _common_record(transaction)
        outcome = None
        if transaction.output_cases:  # an EVM result is an output's
            outcome = add_contract_result(record, transaction, context(index), partial(value_written, index))
        kind = KIND_TRANSFORMS.get(transaction.data_case or "")
        if kind is not None:
            kind(Transformation(transaction, record, context(index), successful[index]))
        items.append(RecordItem(transaction_bytes(transaction), record.SerializeToString(), transaction.consensus_ns))
        if outcome is not None:
            reads[index] = outcome.storage_reads
            sidecars.append(_sidecar_records(transaction, outcome))
    items.reverse()
    sidecars.reverse()
    return BlockRecords(
        tuple(items), tuple(sorted((r for records in sidecars for r in records), key=lambda r: r.consensus_ns))
    )


def transaction_bytes(transaction: BlockTransaction) -> bytes:
    """The ``Transaction`` the record item carries (its hash is not the network's for blocks)."""
    if transaction.transaction_bytes is not None:
        return transaction.transaction_bytes
    if transaction.legacy_hash:
        signed = transaction.signed_transaction
        data: bytes = hapi.Transaction(bodyBytes=signed.bodyBytes, sigMap=signed.sigMap).SerializeToString()
        return data
    signed_bytes = transaction.signed_transaction_bytes
    # Transaction.signedTransactionBytes (field 5) as serialising it writes it: nothing when empty.
    return length_delimited(5, signed_bytes) if signed_bytes else b""


def transaction_hash(transaction: BlockTransaction) -> bytes:
    """The transaction hash of a block-stream transaction: SHA-384 of its signed transaction bytes,
    or of the ``Transaction`` it came as in the old form."""
    if transaction.legacy_hash:
        return sha384(transaction_bytes(transaction))
    return sha384(transaction.signed_transaction_bytes)


_SET_WHEN_EMPTY = length_delimited(3, b"") + length_delimited(4, b"") + length_delimited(10, b"")
"""consensusTimestamp, transactionID and transferList: copied whether or not the result and the
body hold them, so set even when empty (the copies they merge into)."""
_TRANSACTION_HASH_TAG = length_delimited(2, bytes(HASH_SIZE))[:-HASH_SIZE]


def _common_record(transaction: BlockTransaction) -> hapi.TransactionRecord:
    """The record's fields from the body and the result: parsed from the fields themselves as the
    compiled core renumbers them (one parse, where copying each costs a parse and a serialisation
    of its own), else copied field by field."""
    status = transaction.status
    if status < 0:
        return _copied_record(transaction)
    fields = transaction.record_fields
    if fields is None and renumbered_fields is not None:
        from_result = renumbered_fields(transaction.result.SerializeToString(), RESULT_FIELDS)
        from_body = renumbered_fields(transaction.signed_transaction.bodyBytes, BODY_FIELDS)
        if from_result is not None and from_body is not None:
            fields = from_result + from_body
    if fields is None:
        return _copied_record(transaction)
    receipt = _RECEIPTS.get(status) or length_delimited(1, varint_field(1, status))
    hashed = _TRANSACTION_HASH_TAG + transaction_hash(transaction)
    return hapi.TransactionRecord.FromString(b"".join((receipt, hashed, _SET_WHEN_EMPTY, fields)))


_RECEIPTS = {status: length_delimited(1, varint_field(1, status)) for status in range(512)}
"""The receipt of each common status (its status alone), built once."""


def _copied_record(transaction: BlockTransaction) -> hapi.TransactionRecord:
    result = transaction.result
    body = transaction.body
    record = hapi.TransactionRecord(
        memo=body.memo,
        transactionFee=result.transaction_fee_charged,
        transactionHash=transaction_hash(transaction),
    )
    record.receipt.status = result.status
    record.consensusTimestamp.CopyFrom(result.consensus_timestamp)
    record.transactionID.CopyFrom(body.transactionID)
    record.transferList.CopyFrom(result.transfer_list)
    record.tokenTransferLists.extend(result.token_transfer_lists)
    record.assessed_custom_fees.extend(result.assessed_custom_fees)
    record.automatic_token_associations.extend(result.automatic_token_associations)
    record.paid_staking_rewards.extend(result.paid_staking_rewards)
    if result.HasField("parent_consensus_timestamp"):
        record.parent_consensus_timestamp.CopyFrom(result.parent_consensus_timestamp)
    if result.HasField("schedule_ref"):
        record.scheduleRef.CopyFrom(result.schedule_ref)
    return record


def _successes(transactions: Sequence[BlockTransaction]) -> list[bool]:
    """Whether each succeeded: its own status, and its parent's (a child of a failed parent was
    reverted with it)."""
    successful: list[bool] = []
    for transaction in transactions:
        parent_ok = transaction.parent is None or successful[transaction.parent]
        successful.append(parent_ok and transaction.status in SUCCESS_STATUSES)
    return successful


class _Contexts:
    """Each transaction's state context: its own state changes', or its top-level ancestor's; made
    when first asked for (most transactions never ask)."""

    __slots__ = ("made", "roots", "transactions")

    def __init__(self, transactions: Sequence[BlockTransaction]) -> None:
        self.transactions = transactions
        self.made: dict[int, StateContext] = {}
        roots: list[int] = []
        for index, transaction in enumerate(transactions):
            roots.append(index if transaction.parent is None else roots[transaction.parent])
        self.roots = roots

    def __call__(self, index: int) -> StateContext:
        root = self.roots[index]
        context = self.made.get(root)
        if context is None:
            context = self.made[root] = StateContext(self.transactions[root].state_changes)
        return context


def _following(transactions: Sequence[BlockTransaction]) -> list[int | None]:
    """For each transaction, the next one that may read what it wrote before the state changes
    settle: the next user transaction of its batch, else the next child of its parent."""
    following: list[int | None] = [None] * len(transactions)
    last_in_batch: int | None = None
    last_child: int | None = None
    for index, transaction in enumerate(transactions):
        if transaction.in_batch:
            if last_in_batch is not None:
                following[last_in_batch] = index
            last_in_batch = index
            continue
        if transaction.data_case == "atomic_batch":
            last_in_batch = None
        if transaction.parent is None:
            last_child = None
            continue
        if last_child is not None and transactions[last_child].parent == transaction.parent:
            following[last_child] = index
        last_child = index
    return following


def _sidecar_records(transaction: BlockTransaction, outcome: ContractOutcome | None) -> list[SidecarRecord]:
    if outcome is None:
        return []
    records = []
    for sidecar in outcome.sidecars:
        kind = sidecar.WhichOneof("sidecar_records")
        records.append(SidecarRecord(transaction.consensus_ns, _SIDECAR_TYPES[kind], sidecar.SerializeToString()))
    return records
