"""Proofs of transactions in native blocks (block streams, HIP-1056), built from parsed blocks. Pure.

A transaction's items (its ``signed_transaction``, ``transaction_result``, outputs, trace data and
state changes, as ``formats.block_transactions`` groups them) and the block's header travel with
their Merkle paths to the block root (``proofs.block_paths``); then the path from the block root to
the root the TSS signature signs (none for a block's own ``signed_block_proof``, the state proof's
paths for one proven by a later block) and that signature. The ledger's trust root, block 0's
ledger id publication, travels the same way from block 0 unless the proven block is block 0.
"""

from __future__ import annotations

from collections.abc import Sequence

from hedera_history import hapi
from hedera_history.errors import ObjectNotFoundError, ProofFormatError
from hedera_history.formats.block import BlockFile, ItemKind, ProofKind
from hedera_history.formats.block_hash import block_hashes
from hedera_history.formats.block_transactions import BlockTransaction, block_transactions
from hedera_history.proofs.block_paths import Step, item_paths, state_proof_path
from hedera_history.proofs.codec import FORMAT_VERSION
from hedera_history.proofs.transaction_ids import TransactionQuery
from hedera_history.proofs.verify import transaction_id_text as record_transaction_id_text
from hedera_history.proto_gen.proof_pb2 import MerkleStep, NativeBlockEvidence, ProofBundle
from hedera_history.verify.tss import merkle_paths, publication_from_signed_transaction

HEADER_INDEX = 0


def native_transaction_bundle(
    block: BlockFile, query: TransactionQuery, *, block_zero: BlockFile | None = None
) -> ProofBundle:
    """The proof of the transaction ``query`` names in ``block``. ``block_zero``, the ledger's native
    block 0, proves the ledger id publication (its roster) inside the proof; without it (a stream
    whose block 0 is a record file) the client must hold the publication.
    ObjectNotFoundError when the block holds no such transaction."""
    transaction = find_transaction(block, query)
    bundle = ProofBundle(format_version=FORMAT_VERSION)
    subject = bundle.subject.transaction
    subject.transaction_id = transaction_id_text(transaction)
    subject.nonce = transaction.body.transactionID.nonce
    subject.scheduled = transaction.body.transactionID.scheduled
    subject.consensus_ns = transaction.consensus_ns
    indexes = [HEADER_INDEX, *transaction.item_indexes]
    if block.number == 0:
        indexes += [i for i in ledger_publication_indexes(block) if i not in indexes]
    bundle.native_block.CopyFrom(block_evidence(block, indexes))
    if block.number != 0 and block_zero is not None:
        if block_zero.number != 0:
            raise ProofFormatError(f"block {block_zero.number} given as the ledger's block 0")
        bundle.native_block.ledger.CopyFrom(
            block_evidence(block_zero, [HEADER_INDEX, *ledger_publication_indexes(block_zero)])
        )
    return bundle


def block_evidence(block: BlockFile, indexes: Sequence[int]) -> NativeBlockEvidence:
    """The items at ``indexes`` of ``block`` with their paths, and the block's TSS proof."""
    hashes = block_hashes(block)
    paths = item_paths(block, hashes, indexes)
    evidence = NativeBlockEvidence(mountain_top=paths.top)
    for index in indexes:
        proven = evidence.items.add(block_item=block.items[index].data)
        proven.siblings.extend(_steps(paths.paths[index]))
    root_path, signature = _tss_proof(block, hashes.root)
    evidence.root_path.extend(_steps(root_path))
    evidence.block_signature = signature
    return evidence


def find_transaction(block: BlockFile, query: TransactionQuery) -> BlockTransaction:
    messages = [item.message(block.name) for item in block.items]
    for transaction in block_transactions(messages):
        if transaction.in_batch or not transaction.item_indexes:
            continue
        record_like = _record_of(transaction)
        if query.matches(record_like, transaction.consensus_ns):
            return transaction
    raise ObjectNotFoundError(f"transaction {query}: not in block {block.number}")


def ledger_publication_indexes(block: BlockFile) -> list[int]:
    """The index of block 0's ledger id publication item (one, the first)."""
    for index, item in enumerate(block.items):
        if item.kind == ItemKind.SIGNED_TRANSACTION and publication_from_signed_transaction(item.payload):
            return [index]
    raise ProofFormatError(f"block {block.number} publishes no ledger id")


def transaction_id_text(transaction: BlockTransaction) -> str:
    return record_transaction_id_text(transaction.body.transactionID)


def _record_of(transaction: BlockTransaction) -> hapi.TransactionRecord:
    """What ``TransactionQuery.matches`` reads: the transaction id."""
    return hapi.TransactionRecord(transactionID=transaction.body.transactionID)


def _tss_proof(block: BlockFile, root: bytes) -> tuple[list[Step], bytes]:
    for proof in block.proofs:
        message = proof.message(block.name)
        if proof.field == ProofKind.SIGNED_BLOCK_PROOF:
            return [], bytes(message.signed_block_proof.block_signature)
        if proof.field == ProofKind.BLOCK_STATE_PROOF:
            state_proof = message.block_state_proof
            steps = state_proof_path(merkle_paths(state_proof.paths), root)
            return steps, bytes(state_proof.signed_block_proof.block_signature)
    raise ProofFormatError(f"block {block.number} carries no TSS proof (signed block proof or state proof)")


def _steps(steps: Sequence[Step]) -> list[MerkleStep]:
    return [MerkleStep(is_first=step.is_first, sibling_hash=step.sibling) for step in steps]
