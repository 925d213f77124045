"""A block's proof, checked: who signed what, and whether that is enough.

- ``signed_record_file_proof`` (wrapped record blocks, HIP-1427): each ``RecordFileSignature`` is a
  node's RSA signature (SHA384withRSA, PKCS#1 v1.5) over the wrapped record file's hash as its
  version defines it (V2: ``H(header ‖ H(body))``, V5/V6: ``H(file)``), exactly as in a ``.rcd_sig``.
  They are counted with the record stream's own rules (:func:`verify.consensus.count_signatures`):
  the book in force, its stakes, the consensus ratio, a fork refused. Signers are named by node id.
- ``signed_block_proof`` and ``block_state_proof``: TSS. Checked by the :class:`TssProofCheck` the
  caller hands in; without one the proof is :class:`UnverifiedProofError`, never verified. A 48-byte
  ``block_signature`` equal to SHA-384 of the block root is the placeholder of pre-TSS networks
  (HAPI 0.73): recognised as such, and unverified (it proves nothing).
- any other proof kind: unverified.

A block with several proofs verifies when one of them does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from hedera_history.block import NodeSignature
from hedera_history.books.address_book import AddressBook
from hedera_history.errors import (
    BlockNumberMismatchError,
    HashMismatchError,
    UnverifiedProofError,
    VerificationError,
)
from hedera_history.formats.block import BlockFile, BlockProofItem, ProofKind, parse_message
from hedera_history.formats.hashing import HASH_SIZE, sha384
from hedera_history.formats.parsed_files import SignatureFile
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.formats.wrapped_record import WrappedRecordFile
from hedera_history.verify.consensus import DEFAULT_RATIO, ConsensusResult, count_signatures, require_consensus

from hiero_sdk_python.hapi.block.stream import (  # isort: skip
    signed_record_file_proof_pb2,
    tss_signed_block_proof_pb2,
)

RSA = "rsa"
TSS = "tss"
NONE = "none"


@dataclass(frozen=True, slots=True)
class TssSignature:
    """What a verified TSS signature showed: the signers' weight against the total."""

    signers_weight: int
    total_weight: int


class TssProofCheck(Protocol):
    """Verifies a TSS proof (``signed_block_proof``, or ``block_state_proof`` through its Merkle
    paths) of ``block``, whose root hash is ``root_hash``; raises a VerificationError when it does not
    hold. The ledger id it checks against is its own business (it sees every block in order)."""

    def __call__(self, block: BlockFile, root_hash: bytes, proof: BlockProofItem) -> TssSignature: ...


@dataclass(frozen=True, slots=True)
class SignatureCheck:
    """The outcome of a block's proof: its scheme, whether it verified, and who signed."""

    scheme: str
    """``rsa`` or ``tss`` (``none`` for a proof of no known kind)."""
    verified: bool
    proof: str
    """The proof kind checked."""
    node_ids: tuple[int, ...] = ()
    """RSA: the nodes whose signatures verified and agree, by node id."""
    stake: int = 0
    total_stake: int = 0
    """RSA: their stake and the book's total; TSS: the signers' weight and the total weight."""
    outcomes: tuple[tuple[str, str], ...] = ()
    """RSA: every node's outcome (``ok`` or why it was not counted), by account."""
    placeholder: bool = False
    """A pre-TSS placeholder signature (SHA-384 of the root): never verified."""
    signatures: tuple[NodeSignature, ...] = ()
    """RSA: the agreeing nodes' signatures, as a record file's block keeps them."""


ProofOutcome = tuple[SignatureCheck, VerificationError | None]
"""What a proof showed, and why it does not verify the block (None when it does)."""


def check_proofs(
    block: BlockFile,
    root_hash: bytes,
    *,
    wrapped: WrappedRecordFile | None,
    book: AddressBook | None,
    ratio: Fraction = DEFAULT_RATIO,
    tss: TssProofCheck | None = None,
) -> ProofOutcome:
    """The first of the block's proofs that verifies; else the first failure that is not a pre-TSS
    placeholder (a block may be stored as unsigned only when every proof it carries is one), else
    the first outcome."""
    outcomes = [
        check_proof(block, root_hash, proof, wrapped=wrapped, book=book, ratio=ratio, tss=tss) for proof in block.proofs
    ]
    verified = next((outcome for outcome in outcomes if outcome[1] is None), None)
    return verified or next((outcome for outcome in outcomes if not outcome[0].placeholder), outcomes[0])


def check_proof(
    block: BlockFile,
    root_hash: bytes,
    proof: BlockProofItem,
    *,
    wrapped: WrappedRecordFile | None,
    book: AddressBook | None,
    ratio: Fraction = DEFAULT_RATIO,
    tss: TssProofCheck | None = None,
) -> ProofOutcome:
    """One proof's outcome."""
    if proof.block != block.number:
        mismatch = BlockNumberMismatchError(
            f"the block proof names block {proof.block}, the header {block.number}", file=block.name
        )
        return SignatureCheck(_scheme(proof), False, proof.kind), mismatch
    if proof.field == ProofKind.SIGNED_RECORD_FILE_PROOF:
        return _check_rsa(block, proof, wrapped, book, ratio)
    if proof.field in (ProofKind.SIGNED_BLOCK_PROOF, ProofKind.BLOCK_STATE_PROOF):
        return _check_tss(block, root_hash, proof, tss)
    return SignatureCheck(NONE, False, proof.kind), UnverifiedProofError(
        f"block proof of kind {proof.kind}: not a form this project checks", file=block.name
    )


def _check_tss(block: BlockFile, root_hash: bytes, proof: BlockProofItem, tss: TssProofCheck | None) -> ProofOutcome:
    if proof.field == ProofKind.SIGNED_BLOCK_PROOF:
        signature = parse_message(
            tss_signed_block_proof_pb2.TssSignedBlockProof, proof.body, "signed_block_proof", block.name
        ).block_signature
        if len(signature) == HASH_SIZE:
            return _placeholder(block, root_hash, signature, proof)
    unchecked = SignatureCheck(TSS, False, proof.kind)
    if tss is None:
        return unchecked, UnverifiedProofError(f"{proof.kind}: TSS signatures are not checked here", file=block.name)
    try:
        signed = tss(block, root_hash, proof)
    except VerificationError as e:
        return unchecked, e
    return SignatureCheck(TSS, True, proof.kind, stake=signed.signers_weight, total_stake=signed.total_weight), None


def _scheme(proof: BlockProofItem) -> str:
    if proof.field == ProofKind.SIGNED_RECORD_FILE_PROOF:
        return RSA
    return TSS if proof.field in (ProofKind.SIGNED_BLOCK_PROOF, ProofKind.BLOCK_STATE_PROOF) else NONE


def _placeholder(block: BlockFile, root_hash: bytes, signature: bytes, proof: BlockProofItem) -> ProofOutcome:
    check = SignatureCheck(TSS, False, proof.kind, placeholder=True)
    if signature == sha384(root_hash):
        return check, UnverifiedProofError(
            "signed_block_proof: a pre-TSS placeholder (SHA-384 of the block root), not a signature", file=block.name
        )
    return check, HashMismatchError(
        f"signed_block_proof: a 48-byte placeholder {signature.hex()[:16]}… that is not SHA-384 of the "
        f"block root {root_hash.hex()[:16]}…",
        file=block.name,
    )


def _check_rsa(
    block: BlockFile,
    proof: BlockProofItem,
    wrapped: WrappedRecordFile | None,
    book: AddressBook | None,
    ratio: Fraction,
) -> ProofOutcome:
    message = parse_message(
        signed_record_file_proof_pb2.SignedRecordFileProof, proof.body, "signed_record_file_proof", block.name
    )
    unchecked = SignatureCheck(RSA, False, proof.kind)
    if wrapped is None:
        return unchecked, UnverifiedProofError(
            "signed_record_file_proof in a block without a record file", file=block.name
        )
    if book is None:
        return unchecked, UnverifiedProofError(
            "signed_record_file_proof: no address book to check its signatures", file=block.name
        )
    signatures = node_signatures(message.record_file_signatures, wrapped.record.file_hash, block.name)
    result = count_signatures(signatures, book, ratio=ratio)
    try:
        require_consensus(result, block.name)
    except VerificationError as e:
        return _rsa_check(result, proof), e
    return _rsa_check(result, proof), None


def node_signatures(
    signatures: Sequence[signed_record_file_proof_pb2.RecordFileSignature], file_hash: bytes, name: str
) -> dict[NodeIdentity, SignatureFile]:
    """Each node's signature as a signature file over ``file_hash`` (the first, when a node signs twice)."""
    found: dict[NodeIdentity, SignatureFile] = {}
    for signature in signatures:
        found.setdefault(
            NodeIdentity(node_id=signature.node_id),
            SignatureFile(name=name, version=6, file_hash=file_hash, file_signature=signature.signatures_bytes),
        )
    return found


def _rsa_check(result: ConsensusResult, proof: BlockProofItem) -> SignatureCheck:
    return SignatureCheck(
        RSA,
        result.reached,
        proof.kind,
        node_ids=tuple(node.node_id for node, _ in result.agreeing),
        stake=result.stake,
        total_stake=result.total_stake,
        outcomes=tuple(result.outcomes.items()),
        signatures=result.node_signatures(),
    )
