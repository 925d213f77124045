"""TSS block proofs verified in Python: hinTS over BLS12-381, the ledger's endorsement of the
hinTS key (an aggregate Schnorr signature or a compressed WRAPS proof over BN254), and block state
proofs. Pure: no I/O."""

from hedera_history.verify.tss.ledger import LedgerPublication, find_publication, publication_from_signed_transaction
from hedera_history.verify.tss.proof import (
    Endorsement,
    ProofForm,
    TssTrust,
    TssVerdict,
    verify_state_proof,
    verify_tss_signature,
)
from hedera_history.verify.tss.state_proof import MerklePath, SignedRoot, merkle_paths, walk_state_proof

__all__ = [
    "Endorsement",
    "LedgerPublication",
    "MerklePath",
    "ProofForm",
    "SignedRoot",
    "TssTrust",
    "TssVerdict",
    "find_publication",
    "merkle_paths",
    "publication_from_signed_transaction",
    "verify_state_proof",
    "verify_tss_signature",
    "walk_state_proof",
]
