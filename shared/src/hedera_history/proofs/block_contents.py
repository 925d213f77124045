"""The block node's proof shape (``proof_service.proto``'s ``BlockContentsProof``): one block item,
its sibling hashes from its leaf to the root the ledger signed, and the TSS signature. Pure.

:func:`block_contents_proofs` turns a block-stream ``ProofBundle`` into one such proof per item
(the item's path to its block root followed by the block's path to the signed root), so a client
of the block node's proof API can check ours; :func:`verify_block_contents` checks one (ours or a
block node's) against a trusted ledger: the shape carries no roster, so the client must hold the
ledger's publication. Bytes are accepted as a ``BlockContentsProofResponse`` (status SUCCESS) or a
bare ``BlockContentsProof``, in their canonical encoding or protobuf's JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message

from hedera_history import hapi
from hedera_history.errors import ProofFormatError, ProofLedgerError, ProofTssError
from hedera_history.formats.block_hash import leaf_hash
from hedera_history.formats.block_protos import BlockItem
from hedera_history.proofs.block_paths import fold
from hedera_history.proofs.trust import LedgerTrust
from hedera_history.proofs.verify_native import check_canonical_signature, steps
from hedera_history.proto_gen.block_contents_proof_pb2 import BlockContentsProof, BlockContentsProofResponse
from hedera_history.proto_gen.proof_pb2 import ProofBundle
from hedera_history.verify.tss import TssTrust, TssVerdict, verify_tss_signature


def block_contents_proofs(bundle: ProofBundle) -> list[BlockContentsProof]:
    """One block-node proof per item of a block-stream bundle, in the bundle's item order."""
    if not bundle.HasField("native_block"):
        raise ProofFormatError("only a block-stream proof has the block node's shape")
    evidence = bundle.native_block
    proofs = []
    for proven in evidence.items:
        proof = BlockContentsProof(block_item=proven.block_item, block_signature=evidence.block_signature)
        for step in (*proven.siblings, *evidence.root_path):
            proof.sibling_hashes.add(is_first=step.is_first, sibling_hash=step.sibling_hash)
        proofs.append(proof)
    return proofs


def transaction_item_proof(bundle: ProofBundle) -> BlockContentsProofResponse:
    """The block node's answer for the bundle's transaction: its ``signed_transaction`` item's proof."""
    for proof in block_contents_proofs(bundle):
        if BlockItem.FromString(proof.block_item).WhichOneof("item") == "signed_transaction":
            return BlockContentsProofResponse(status=BlockContentsProofResponse.SUCCESS, block_content_proof=proof)
    raise ProofFormatError("the bundle proves no signed transaction item")


def encode_message(message: Message) -> bytes:
    data: bytes = message.SerializeToString(deterministic=True)
    return data


@dataclass(frozen=True, slots=True)
class ContentsVerdict:
    item: BlockItem
    signed_root: bytes
    tss: TssVerdict
    ledger_id: bytes

    def line(self) -> str:
        kind = self.item.WhichOneof("item")
        what = f"block item {kind}"
        if kind == "signed_transaction":
            body = hapi.TransactionBody.FromString(
                hapi.SignedTransaction.FromString(self.item.signed_transaction).bodyBytes
            )
            tid = body.transactionID
            what += (
                f" (transaction {tid.accountID.shardNum}.{tid.accountID.realmNum}.{tid.accountID.accountNum}-"
                f"{tid.transactionValidStart.seconds}-{tid.transactionValidStart.nanos:09d})"
            )
        elif kind == "block_header":
            what += f" (block {self.item.block_header.number})"
        return (
            f"verified: {what} (block node proof shape, signed root {self.signed_root.hex()[:16]}…); hinTS weight "
            f"{self.tss.signed_weight} of {self.tss.total_weight}, key endorsed ({self.tss.endorsement.value}) by "
            f"nodes {list(self.tss.endorser_node_ids)}; ledger {self.ledger_id.hex()[:16]}… (trusted publication)"
        )


def decode_block_contents(data: bytes) -> BlockContentsProof | None:
    """The block-node proof ``data`` holds, or None when it holds none."""
    for kind in (BlockContentsProofResponse, BlockContentsProof):
        message = _parse(kind, data)
        if isinstance(message, BlockContentsProofResponse):
            if message.status == BlockContentsProofResponse.SUCCESS and message.block_content_proof.block_item:
                return message.block_content_proof
        elif isinstance(message, BlockContentsProof) and message.block_item and message.block_signature:
            return message
    return None


def verify_block_contents(proof: BlockContentsProof, trust: LedgerTrust) -> ContentsVerdict:
    """The verdict on one block-node proof, or a ``ProofError`` leaf."""
    if trust.publication is None:
        raise ProofLedgerError(
            "a block node proof carries no roster: checking it needs the ledger's publication (--ledger-publication)"
        )
    if trust.publication.ledger_id != trust.ledger_id:
        raise ProofLedgerError("the trusted publication is of another ledger than the trusted id")
    try:
        item = BlockItem.FromString(proof.block_item)
    except DecodeError as e:
        raise ProofFormatError(f"not a block item: {e}") from e
    signed_root = fold(leaf_hash(proof.block_item), steps(proof.sibling_hashes))
    check_canonical_signature(bytes(proof.block_signature), trust.publication, "block node proof")
    verdict = verify_tss_signature(signed_root, bytes(proof.block_signature), TssTrust(trust.publication))
    if verdict.reason is not None:
        raise ProofTssError(f"TSS signature: {verdict.reason}") from verdict.reason
    return ContentsVerdict(item, signed_root, verdict, trust.ledger_id)


def _parse(kind: type[Message], data: bytes) -> Message | None:
    message = kind()
    if data[:1] == b"{":
        try:
            json_format.Parse(data, message)
        except (json_format.ParseError, json.JSONDecodeError, UnicodeDecodeError):
            return None
        return message
    try:
        message.ParseFromString(data)
    except DecodeError:
        return None
    known = kind()
    known.CopyFrom(message)
    known.DiscardUnknownFields()
    return message if encode_message(known) == data else None
