"""TSS block proofs checked against a ledger: the :class:`~hedera_history.verify.block_proofs.TssProofCheck`
that :func:`~hedera_history.verify.blocks.verify_blocks` is handed to verify native blocks.

The ledger's trust root is the ledger id publication of its block 0 (the roster whose Schnorr
signatures endorse hinTS keys); :class:`LedgerTssCheck` reads it from block 0 when the run holds
block 0, else from the block 0 it is given (one stored before), and each later block is checked
against it, keys proven once staying proven (:class:`~hedera_history.verify.tss.TssTrust`). A
configured ledger id pins the ledger: block 0 must publish that id. Without any block 0 no
endorsement can be checked (the roster and the WRAPS verification key are both in block 0's
publication), so a later block is :class:`TssUnverifiableProofError`, never verified. Pure: no I/O.
"""

from __future__ import annotations

from hedera_history.errors import TssLedgerError, TssUnverifiableProofError
from hedera_history.formats.block import BlockFile, BlockProofItem, ItemKind, ProofKind
from hedera_history.verify.block_proofs import TssSignature
from hedera_history.verify.tss import (
    TssTrust,
    TssVerdict,
    find_publication,
    merkle_paths,
    publication_from_signed_transaction,
    verify_state_proof,
    verify_tss_signature,
)


class LedgerTssCheck:
    """Verifies the TSS proofs of one ledger's blocks, in ascending order."""

    def __init__(
        self, ledger_id: bytes | None = None, trust: TssTrust | None = None, block_zero: BlockFile | None = None
    ) -> None:
        self.ledger_id = ledger_id
        """The ledger id configured, if any: block 0 must publish it."""
        self.trust = trust
        self.block_zero = block_zero
        """Block 0 of the ledger when the blocks checked do not hold it (as stored before)."""

    def __call__(self, block: BlockFile, root_hash: bytes, proof: BlockProofItem) -> TssSignature:
        trust = self._trust(block)
        message = proof.message(block.name)
        if proof.field == ProofKind.BLOCK_STATE_PROOF:
            state_proof = message.block_state_proof
            signature = bytes(state_proof.signed_block_proof.block_signature)
            verdict = verify_state_proof(root_hash, merkle_paths(state_proof.paths), signature, trust)
        else:
            verdict = verify_tss_signature(root_hash, bytes(message.signed_block_proof.block_signature), trust)
        return _signature(verdict)

    def _trust(self, block: BlockFile) -> TssTrust:
        if block.number == 0:
            self._adopt(block)
        elif self.trust is None and self.block_zero is not None:
            self._adopt(self.block_zero)
        if self.trust is None:
            raise TssUnverifiableProofError(
                f"block {block.number}: the ledger's roster is published in block 0, which is not in this run "
                "(and so is the WRAPS verification key a WRAPS proof is checked under)"
            )
        return self.trust

    def _adopt(self, block_zero: BlockFile) -> None:
        """Trust the ledger block 0 publishes (when it is the one configured, and the one trusted
        when a publication already is)."""
        publication = find_publication(
            item.payload for item in block_zero.items if item.kind == ItemKind.SIGNED_TRANSACTION
        )
        if publication is None:
            raise TssLedgerError("block 0 publishes no ledger id: no roster to check signatures against")
        if self.ledger_id is not None and publication.ledger_id != self.ledger_id:
            raise TssLedgerError(
                f"block 0 publishes ledger {publication.ledger_id.hex()}, not the ledger configured "
                f"({self.ledger_id.hex()})"
            )
        if self.trust is None:
            self.trust = TssTrust(publication)
        elif self.trust.publication != publication:
            # A block 0 proves itself only under the roster it publishes: it must not replace the
            # roster already trusted (a configured publication, or block 0 read before).
            raise TssLedgerError("block 0 publishes another ledger roster than the one trusted")


def ledger_check(publication: bytes, ledger_id: bytes | None = None) -> LedgerTssCheck:
    """A check trusting the roster that ``publication`` (block 0's ledger id publication, the
    ``SignedTransaction`` bytes) publishes, for blocks checked without block 0 before them;
    TssLedgerError when it is no publication or publishes another ledger than ``ledger_id``."""
    published = publication_from_signed_transaction(publication)
    if published is None:
        raise TssLedgerError("not a ledger id publication")
    if ledger_id is not None and published.ledger_id != ledger_id:
        raise TssLedgerError(f"the publication is of ledger {published.ledger_id.hex()}, not {ledger_id.hex()}")
    return LedgerTssCheck(ledger_id, TssTrust(published))


def _signature(verdict: TssVerdict) -> TssSignature:
    if verdict.reason is not None:
        raise verdict.reason
    return TssSignature(signers_weight=verdict.signed_weight or 0, total_weight=verdict.total_weight or 0)
