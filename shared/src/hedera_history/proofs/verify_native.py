"""Check a block-stream proof offline against a trusted ledger: a verdict, or a typed reason. Pure.

For a ``ProofBundle`` holding ``native_block`` evidence (``proofs.native``):

1. every item's leaf folds through its siblings to one block root (``ProofHashMismatchError``); the
   first item is the block's header, which names the block;
2. the block root folds through ``root_path`` to the root the signature signs;
3. the ledger: the publication the client trusts, or the one the bundle proves in block 0 (itself
   such evidence, signed by the roster it publishes), whose ledger id must be the trusted one
   (``ProofLedgerError``);
4. the TSS signature over the signed root, checked by ``verify.tss`` under that ledger
   (``ProofTssError``, its cause the TSS check's typed reason);
5. the subject: the signed transaction's id, nonce and scheduled flag and the result's consensus
   time (``ProofSubjectError``).

A WRAPS-endorsed signature is accepted when its WRAPS proof verifies under the ledger's WRAPS key
(``verify.tss.wraps``, about 1.2 s per proof).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import (
    ConfigError,
    FormatError,
    ProofFormatError,
    ProofHashMismatchError,
    ProofLedgerError,
    ProofSubjectError,
    ProofTssError,
    TssError,
    UnsupportedItemError,
)
from hedera_history.formats.block import BlockItem as RawItem
from hedera_history.formats.block_hash import (
    L16_CUTOVER,
    Layout,
    internal_hash,
    leaf_hash,
    single_child_hash,
    streaming_root,
    subtree_of,
)
from hedera_history.formats.block_protos import BlockItem
from hedera_history.formats.hashing import HASH_SIZE
from hedera_history.formats.wire import read_tag, varint_field
from hedera_history.proofs.block_paths import Step, fold, top_path, top_size
from hedera_history.proofs.transaction_ids import TransactionQuery
from hedera_history.proofs.trust import LedgerTrust
from hedera_history.proto_gen.proof_pb2 import NativeBlockEvidence, ProofBundle
from hedera_history.verify.tss import (
    LedgerPublication,
    TssTrust,
    TssVerdict,
    publication_from_signed_transaction,
    verify_tss_signature,
)
from hedera_history.verify.tss.hints import SIGNATURE_BYTES, VERIFICATION_KEY_BYTES
from hedera_history.verify.tss.schnorr import ENDORSEMENT_BYTES, SIGNER_SLOTS

_NS = 1_000_000_000


@dataclass(frozen=True, slots=True)
class ProvenNativeBlock:
    number: int
    root: bytes
    signed_root: bytes
    items: tuple[BlockItem, ...]
    tss: TssVerdict


@dataclass(frozen=True, slots=True)
class NativeVerdict:
    subject: str
    block: ProvenNativeBlock
    ledger_id: bytes
    ledger_proven_in_bundle: bool

    def line(self) -> str:
        block, tss = self.block, self.block.tss
        through = "its own signature" if block.root == block.signed_root else "a later block's state proof"
        ledger = "proven in block 0 by this proof" if self.ledger_proven_in_bundle else "trusted publication"
        return (
            f"verified: {self.subject} in block {block.number} (block stream, root {block.root.hex()[:16]}…, "
            f"{len(block.items)} item(s)); signed through {through} by hinTS weight {tss.signed_weight} of "
            f"{tss.total_weight}, key endorsed ({tss.endorsement.value}) by nodes {list(tss.endorser_node_ids)}; "
            f"ledger {self.ledger_id.hex()[:16]}… ({ledger})"
        )


def verify_native_bundle(bundle: ProofBundle, trust: LedgerTrust) -> NativeVerdict:
    evidence = bundle.native_block
    publication, ledger_block = _publication(evidence, trust)
    tss_trust = TssTrust(publication)  # one trust: a key endorsed in block 0's signature is checked once
    block = None
    if ledger_block is not None:
        zero = verify_native_evidence(ledger_block, tss_trust, "ledger block")
        if zero.number != 0:
            raise ProofLedgerError(f"the ledger id publication is proven in block {zero.number}, not block 0")
        block = zero if ledger_block is evidence else None
    if block is None:
        block = verify_native_evidence(evidence, tss_trust, "block")
    if bundle.subject.WhichOneof("kind") != "transaction":
        raise ProofFormatError("a block-stream proof answers a transaction")
    subject = _check_transaction(bundle, block)
    return NativeVerdict(subject, block, publication.ledger_id, ledger_block is not None)


def verify_native_evidence(evidence: NativeBlockEvidence, trust: TssTrust, what: str) -> ProvenNativeBlock:
    """The block the evidence proves under ``trust``, or a ``ProofError`` leaf."""
    if not evidence.items:
        raise ProofFormatError(f"{what}: no items")
    items = [_block_item(proven.block_item, f"{what}: item {index}") for index, proven in enumerate(evidence.items)]
    if items[0].WhichOneof("item") != "block_header":
        raise ProofFormatError(f"{what}: the first item is not the block's header")
    header = items[0].block_header
    number = int(header.number)
    root, top_steps = _block_top(evidence, header, what)
    for index, (proven, item) in enumerate(zip(evidence.items, items, strict=True)):
        path = steps(proven.siblings)
        subtree = _subtree(proven.block_item, item, f"{what}: item {index}")
        expected = top_steps[subtree]
        inside = len(path) - len(expected)
        reached = fold(leaf_hash(proven.block_item), path[: max(inside, 0)])
        if inside < 0 or path[inside:] != expected or reached != list(evidence.mountain_top)[3 + subtree]:
            raise ProofHashMismatchError(
                f"{what}: item {index} ({item.WhichOneof('item')}) does not lead to its subtree's root on the "
                f"mountain top of block {number}"
            )
    signed_root = fold(root, steps(evidence.root_path))
    check_canonical_signature(bytes(evidence.block_signature), trust.publication, what)
    verdict = verify_tss_signature(signed_root, bytes(evidence.block_signature), trust)
    if verdict.reason is not None:
        raise ProofTssError(f"{what} {number}: TSS signature: {verdict.reason}") from verdict.reason
    return ProvenNativeBlock(number, root, signed_root, tuple(items), verdict)


def _block_top(evidence: NativeBlockEvidence, header: Any, what: str) -> tuple[bytes, dict[int, list[Step]]]:
    """The block root the header's time and the mountain top give, and for each subtree the path
    from its root up to the block root."""
    version = header.hapi_proto_version
    layout = Layout.L16 if (version.major, version.minor) >= L16_CUTOVER else Layout.L8
    top = [bytes(value) for value in evidence.mountain_top]
    if len(top) != top_size(layout) or any(len(value) != HASH_SIZE for value in top):
        raise ProofFormatError(f"{what}: a mountain top of {top_size(layout)} hashes ({layout.value}) is expected")
    timestamp = header.block_timestamp
    timestamp_leaf = leaf_hash(varint_field(1, timestamp.seconds) + varint_field(2, timestamp.nanos))
    # A streaming tree over a power of two of nodes (L8's eight) is the perfect tree over them.
    mountain = streaming_root(top) if layout is Layout.L16 else single_child_hash(streaming_root(top))
    subtrees = len(top) - 3
    return internal_hash(timestamp_leaf, mountain), {
        subtree: top_path(top, subtree, layout, timestamp_leaf) for subtree in range(subtrees)
    }


def _subtree(data: bytes, item: BlockItem, what: str) -> int:
    case = item.WhichOneof("item")
    kind = item.DESCRIPTOR.fields_by_name[case].number if case else _unknown_kind(data, what)
    try:
        subtree = subtree_of(RawItem(kind, data, 0), 0, what)
    except UnsupportedItemError as e:
        raise ProofFormatError(f"{what}: {e}") from e
    if subtree is None:
        raise ProofFormatError(f"{what}: a {case} item is not hashed into the block root")
    return subtree.value


def _unknown_kind(data: bytes, what: str) -> int:
    """The field number of an item newer than the protobufs (its one field's tag)."""
    if not data:
        raise ProofFormatError(f"{what}: an empty block item")
    try:
        number, _, _ = read_tag(data, 0, len(data), "block item", what)
    except FormatError as e:
        raise ProofFormatError(f"{what}: {e}") from e
    return number


def check_canonical_signature(signature: bytes, publication: LedgerPublication, what: str) -> None:
    """A Schnorr endorsement's signer flags past the roster's length must be zeros, the one encoding
    (ProofFormatError otherwise). The TSS check refuses them too; checked here first, so a proof
    names it as a format error before any pairing is computed."""
    endorsement = signature[VERIFICATION_KEY_BYTES + SIGNATURE_BYTES :]
    if len(endorsement) != ENDORSEMENT_BYTES:
        return
    unused = endorsement[len(publication.roster) : SIGNER_SLOTS]
    if any(unused):
        raise ProofFormatError(f"{what}: the endorsement flags signers past the roster's {len(publication.roster)}")


class _Sibling(Protocol):
    is_first: bool
    sibling_hash: bytes


def steps(messages: Iterable[_Sibling]) -> list[Step]:
    """A path as protobuf carries it (``MerkleStep`` or the block node's ``MerkleSiblingHash``)."""
    return [Step(bytes(m.sibling_hash), bool(m.is_first)) for m in messages]


def _publication(
    evidence: NativeBlockEvidence, trust: LedgerTrust
) -> tuple[LedgerPublication, NativeBlockEvidence | None]:
    """The roster the block's signature is checked against, and the block 0 evidence that must
    prove it (None: the client holds the publication)."""
    if trust.publication is not None:
        if trust.publication.ledger_id != trust.ledger_id:
            raise ProofLedgerError("the trusted publication is of another ledger than the trusted id")
        return trust.publication, None
    ledger_block = evidence.ledger if evidence.HasField("ledger") else evidence
    publication = _published(ledger_block)
    if publication.ledger_id != trust.ledger_id:
        raise ProofLedgerError(
            f"the proof's block 0 publishes ledger {publication.ledger_id.hex()}, "
            f"not the trusted {trust.ledger_id.hex()}"
        )
    return publication, ledger_block


def _published(evidence: NativeBlockEvidence) -> LedgerPublication:
    for proven in evidence.items:
        item = _block_item(proven.block_item, "ledger publication")
        if item.WhichOneof("item") == "signed_transaction":
            try:
                found = publication_from_signed_transaction(bytes(item.signed_transaction))
            except TssError as e:
                raise ProofLedgerError(f"ledger publication: {e}") from e
            if found is not None:
                return found
    raise ProofLedgerError("no ledger id publication among the proven block 0 items, and none trusted")


def _check_transaction(bundle: ProofBundle, block: ProvenNativeBlock) -> str:
    subject = bundle.subject.transaction
    try:
        query = TransactionQuery.parse(subject.transaction_id, nonce=subject.nonce, scheduled=subject.scheduled)
    except ConfigError as e:
        raise ProofSubjectError(f"the subject's transaction id: {e}") from e
    bodies = [_body(item) for item in block.items if item.WhichOneof("item") == "signed_transaction"]
    times = [
        int(item.transaction_result.consensus_timestamp.seconds) * _NS
        + int(item.transaction_result.consensus_timestamp.nanos)
        for item in block.items
        if item.WhichOneof("item") == "transaction_result"
    ]
    if subject.consensus_ns not in times:
        raise ProofSubjectError(f"no proven transaction result has consensus time {subject.consensus_ns}")
    record = hapi.TransactionRecord()
    if not any(_matches(query, record, body, subject.consensus_ns) for body in bodies):
        raise ProofSubjectError(f"no proven signed transaction is {query}")
    return f"transaction {subject.transaction_id} at {subject.consensus_ns}"


def _matches(query: TransactionQuery, record: hapi.TransactionRecord, body: hapi.TransactionBody, ns: int) -> bool:
    record.transactionID.CopyFrom(body.transactionID)
    return query.matches(record, ns)


def _body(item: BlockItem) -> hapi.TransactionBody:
    try:
        signed = hapi.SignedTransaction.FromString(bytes(item.signed_transaction))
        return hapi.TransactionBody.FromString(signed.bodyBytes)
    except DecodeError as e:
        raise ProofFormatError(f"a proven signed transaction does not parse: {e}") from e


def _block_item(data: bytes, what: str) -> BlockItem:
    try:
        return BlockItem.FromString(data)
    except DecodeError as e:
        raise ProofFormatError(f"{what}: not a block item: {e}") from e
