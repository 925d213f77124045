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

from hedera_history import hapi
from hedera_history.formats.block_contracts import ContractOutcome, add_contract_result
from hedera_history.formats.block_kinds import KIND_TRANSFORMS, Transformation
from hedera_history.formats.block_protos import BlockItem
from hedera_history.formats.block_state import SlotKey, StateContext
from hedera_history.formats.block_transactions import BlockTransaction, block_transactions
from hedera_history.formats.hashing import sha384
from hedera_history.formats.parsed_files import RecordItem, SidecarRecord, SidecarType
from hedera_history.formats.wire import LEN, VARINT, length_delimited, varint_field
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
    contexts = _contexts(transactions)
    following = _following(transactions)
    reads: list[dict[SlotKey, bytes]] = [{} for _ in transactions]
    built: list[tuple[RecordItem, list[SidecarRecord]]] = []
    for index in reversed(range(len(transactions))):
        transaction = transactions[index]

        def value_written(slot: SlotKey, index: int = index) -> bytes | None:
            later = following[index]
            while later is not None:
                if slot in reads[later]:
                    return reads[later][slot]
                later = following[later]
            return contexts[index].storage.get(slot)

        record = _common_record(transaction)
        outcome = add_contract_result(record, transaction, contexts[index], value_written)
        kind = KIND_TRANSFORMS.get(transaction.body.WhichOneof("data") or "")
        if kind is not None:
            kind(Transformation(transaction, record, contexts[index], successful[index]))
        if outcome is not None:
            reads[index] = outcome.storage_reads
        item = RecordItem(transaction_bytes(transaction), record.SerializeToString(), transaction.consensus_ns)
        built.append((item, _sidecar_records(transaction, outcome)))
    built.reverse()
    return BlockRecords(
        tuple(item for item, _ in built),
        tuple(sorted((r for _, records in built for r in records), key=lambda r: r.consensus_ns)),
    )


def transaction_bytes(transaction: BlockTransaction) -> bytes:
    """The ``Transaction`` the record item carries (its hash is not the network's for blocks)."""
    signed = transaction.signed_transaction
    if signed.use_serialized_tx_message_hash_algorithm:
        wrapped = hapi.Transaction(bodyBytes=signed.bodyBytes, sigMap=signed.sigMap)
    else:
        wrapped = hapi.Transaction(signedTransactionBytes=transaction.signed_transaction_bytes)
    data: bytes = wrapped.SerializeToString()
    return data


def transaction_hash(transaction: BlockTransaction) -> bytes:
    """The transaction hash of a block-stream transaction: SHA-384 of its signed transaction bytes,
    or of the ``Transaction`` it came as in the old form."""
    if transaction.signed_transaction.use_serialized_tx_message_hash_algorithm:
        return sha384(transaction_bytes(transaction))
    return sha384(transaction.signed_transaction_bytes)


# The result's fields the record takes, under the record's numbers (same message types), for the
# compiled core (speedups.renumbered_fields): (number, record's number, wire type) each.
_RESULT_FIELDS = bytes(
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
_BODY_FIELDS = bytes((*(1, 4, LEN), *(6, 5, LEN)))  # transactionID, memo
_SET_WHEN_EMPTY = length_delimited(3, b"") + length_delimited(4, b"") + length_delimited(10, b"")
"""consensusTimestamp, transactionID and transferList: copied whether or not the result and the
body hold them, so set even when empty (the copies they merge into)."""


def _common_record(transaction: BlockTransaction) -> hapi.TransactionRecord:
    """The record's fields from the body and the result: parsed from the fields themselves as the
    compiled core renumbers them (one parse, where copying each costs a parse and a serialisation
    of its own), else copied field by field."""
    status = transaction.result.status
    if renumbered_fields is not None and status >= 0:
        from_result = renumbered_fields(transaction.result.SerializeToString(), _RESULT_FIELDS)
        from_body = renumbered_fields(transaction.signed_transaction.bodyBytes, _BODY_FIELDS)
        if from_result is not None and from_body is not None:
            receipt = length_delimited(1, varint_field(1, status))
            hashed = length_delimited(2, transaction_hash(transaction))
            data = b"".join((receipt, hashed, _SET_WHEN_EMPTY, from_result, from_body))
            return hapi.TransactionRecord.FromString(data)
    return _copied_record(transaction)


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
        successful.append(parent_ok and transaction.result.status in SUCCESS_STATUSES)
    return successful


def _contexts(transactions: Sequence[BlockTransaction]) -> list[StateContext]:
    """Each transaction's state context: its own state changes', or its top-level ancestor's."""
    contexts: list[StateContext] = []
    for transaction in transactions:
        if transaction.parent is None:
            contexts.append(StateContext(transaction.state_changes))
        else:
            contexts.append(contexts[transaction.parent])
    return contexts


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
        if transaction.body.WhichOneof("data") == "atomic_batch":
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
