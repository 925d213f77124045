"""A block's TSS signature, checked against the ledger's trust root.

``block_signature`` = hinTS verification key (1096 bytes) ‖ hinTS signature (1632) ‖ endorsement of
that key: an aggregate Schnorr signature of the ledger roster (192, the genesis path) or a
compressed WRAPS proof (704, once the network's WRAPS prover has settled). The reference
(``TSS.verifyTSS`` of ``hedera-cryptography``) checks the endorsement first, then the hinTS
signature over the message: the block root.

Trust is remembered in :class:`TssTrust`: a key endorsed once (by a Schnorr signature or a WRAPS
proof checked here) stays proven for the blocks that carry it later. A WRAPS proof is checked
(:mod:`~hedera_history.verify.tss.wraps`, about 1.2 s) when it endorses a key not proven yet, against
the WRAPS verification key of the ledger's publication; a key proven before is trusted whatever
WRAPS proof comes with it, as the hinTS signature must still verify under it. Under a publication
without a WRAPS verification key an unproven key's WRAPS proof cannot be checked: reported as
:class:`TssUnverifiableProofError` and never counted as verified.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache

from hedera_history.errors import TssError, TssFormatError, TssUnverifiableProofError
from hedera_history.verify.tss.hints import (
    SIGNATURE_BYTES,
    VERIFICATION_KEY_BYTES,
    HintsSignature,
    HintsVerificationKey,
    verify_hints,
)
from hedera_history.verify.tss.ledger import LedgerPublication
from hedera_history.verify.tss.schnorr import (
    ENDORSEMENT_BYTES,
    Endorsers,
    SchnorrEndorsement,
    endorsed_message,
    verify_endorsement,
)
from hedera_history.verify.tss.state_proof import MerklePath, walk_state_proof
from hedera_history.verify.tss.wraps import PROOF_BYTES, verify_wraps

WRAPS_PROOF_BYTES = PROOF_BYTES
_WEIGHT_BYTES = 32
_TOTAL_WEIGHT_AT = 8
_AGG_WEIGHT_AT = 96


class ProofForm(StrEnum):
    SCHNORR = "schnorr"
    """Signed block proof whose key is endorsed by an aggregate Schnorr signature."""
    WRAPS = "wraps"
    """Signed block proof whose key is endorsed by a compressed WRAPS proof."""
    STATE_PROOF = "state-proof"
    """Block state proof: the block proven through a later block's signature."""
    UNKNOWN = "unknown"
    """An endorsement of neither length."""


class Endorsement(StrEnum):
    SCHNORR = "schnorr"
    """The key's Schnorr endorsement was checked in this signature."""
    WRAPS = "wraps"
    """The key's WRAPS proof was checked in this signature."""
    TRUSTED = "trusted"
    """The key was proven earlier (the endorsement this signature carries is not what proves it)."""
    NONE = "none"
    """The key is not (or not yet) known to be endorsed."""


@dataclass(frozen=True)
class TssVerdict:
    verified: bool
    form: ProofForm
    signed_weight: int | None
    """The hinTS signers' weight as the signature states it (proven only when ``verified``)."""
    total_weight: int | None
    """The verification key's total weight as it states it."""
    endorser_node_ids: tuple[int, ...]
    """The roster nodes whose Schnorr signatures endorse the key (hinTS itself does not reveal
    which nodes signed the root)."""
    endorsement: Endorsement
    signed_root: bytes | None
    """The root the signature signs: the block's own, or for a state proof the later block's
    (``None`` when the proof's paths lead to none)."""
    reason: TssError | None = None


class TssTrust:
    """The ledger's trust root and the hinTS verification keys proven so far."""

    def __init__(self, publication: LedgerPublication, proven_keys: Iterable[bytes] = ()) -> None:
        self.publication = publication
        self._proven = set(proven_keys)
        self._endorsements: dict[tuple[bytes, bytes], Endorsers] = {}
        """(key, Schnorr endorsement) -> its endorsers, for each endorsement checked already."""

    @property
    def ledger_id(self) -> bytes:
        return self.publication.ledger_id

    @property
    def proven_keys(self) -> frozenset[bytes]:
        return frozenset(self._proven)

    def is_proven(self, verification_key: bytes) -> bool:
        return verification_key in self._proven

    def remember(self, verification_key: bytes) -> None:
        self._proven.add(verification_key)

    def endorsers(self, verification_key: bytes, endorsement: bytes) -> Endorsers:
        """Who endorses the key in ``endorsement`` (checked once per pair: a ledger's blocks repeat
        the same endorsement until its WRAPS proof settles), or the reason it does not endorse it."""
        found = self._endorsements.get((verification_key, endorsement))
        if found is None:
            found = verify_endorsement(
                self.publication.roster,
                endorsed_message(self.ledger_id, verification_key),
                SchnorrEndorsement.parse(endorsement),
            )
            self._endorsements[verification_key, endorsement] = found
            self.remember(verification_key)
        return found

    def prove_by_wraps(self, verification_key: bytes, wraps_proof: bytes) -> None:
        """Check that ``wraps_proof`` endorses the key for this ledger (raises the check that fails);
        the key is proven from then on."""
        wraps_key = self.publication.history_proof_verification_key
        if not wraps_key:
            raise TssUnverifiableProofError(
                "wraps proof not checked: the ledger publication carries no WRAPS verification key, and the key "
                "it endorses was never proven by a Schnorr endorsement"
            )
        verify_wraps(wraps_key, wraps_proof, self.ledger_id, verification_key)
        self.remember(verification_key)


def verify_tss_signature(block_root: bytes, block_signature: bytes, trust: TssTrust) -> TssVerdict:
    """Whether ``block_signature`` signs ``block_root`` for the ledger ``trust`` holds."""
    key_bytes = block_signature[:VERIFICATION_KEY_BYTES]
    hints_bytes = block_signature[VERIFICATION_KEY_BYTES : VERIFICATION_KEY_BYTES + SIGNATURE_BYTES]
    endorsement_bytes = block_signature[VERIFICATION_KEY_BYTES + SIGNATURE_BYTES :]
    form = _form(endorsement_bytes)
    verdict = replace(
        _unverified(form, block_root),
        signed_weight=_stated_weight(hints_bytes, _AGG_WEIGHT_AT),
        total_weight=_stated_weight(key_bytes, _TOTAL_WEIGHT_AT),
    )
    try:
        if len(hints_bytes) != SIGNATURE_BYTES or form is ProofForm.UNKNOWN:
            raise TssFormatError(
                f"a TSS signature has {VERIFICATION_KEY_BYTES} + {SIGNATURE_BYTES} + {ENDORSEMENT_BYTES} or "
                f"{WRAPS_PROOF_BYTES} bytes, not {len(block_signature)}"
            )
        if form is ProofForm.SCHNORR:
            endorsers = trust.endorsers(key_bytes, endorsement_bytes)
            verdict = replace(verdict, endorser_node_ids=endorsers.node_ids, endorsement=Endorsement.SCHNORR)
        elif trust.is_proven(key_bytes):
            verdict = replace(verdict, endorsement=Endorsement.TRUSTED)
        else:
            trust.prove_by_wraps(key_bytes, endorsement_bytes)
            verdict = replace(verdict, endorsement=Endorsement.WRAPS)
        if not block_root:
            raise TssFormatError("the signed message (the block root) is empty")
        verify_hints(block_root, _verification_key(key_bytes), HintsSignature.parse(hints_bytes))
    except TssError as reason:
        return replace(verdict, reason=reason)
    return replace(verdict, verified=True)


def verify_state_proof(
    block_root: bytes, paths: Sequence[MerklePath], block_signature: bytes, trust: TssTrust
) -> TssVerdict:
    """Whether a block state proof leads from ``block_root`` to a root ``block_signature`` signs."""
    try:
        signed = walk_state_proof(paths, block_root)
    except TssError as reason:
        return replace(_unverified(ProofForm.STATE_PROOF, None), reason=reason)
    return replace(verify_tss_signature(signed.root, block_signature, trust), form=ProofForm.STATE_PROOF)


@lru_cache(maxsize=8)
def _verification_key(key_bytes: bytes) -> HintsVerificationKey:
    """A ledger's blocks carry the same key until its roster changes: parsed (and its points
    validated) once. A key that does not parse raises each time (an exception is not cached)."""
    return HintsVerificationKey.parse(key_bytes)


def _unverified(form: ProofForm, signed_root: bytes | None) -> TssVerdict:
    return TssVerdict(
        verified=False,
        form=form,
        signed_weight=None,
        total_weight=None,
        endorser_node_ids=(),
        endorsement=Endorsement.NONE,
        signed_root=signed_root,
    )


def _form(endorsement_bytes: bytes) -> ProofForm:
    if len(endorsement_bytes) == ENDORSEMENT_BYTES:
        return ProofForm.SCHNORR
    if len(endorsement_bytes) == WRAPS_PROOF_BYTES:
        return ProofForm.WRAPS
    return ProofForm.UNKNOWN


def _stated_weight(part: bytes, offset: int) -> int | None:
    field = part[offset : offset + _WEIGHT_BYTES]
    return int.from_bytes(field, "little") if len(field) == _WEIGHT_BYTES else None
