"""The aggregate Schnorr endorsement of a hinTS verification key (the genesis path).

Until the WRAPS proof of a roster is ready, a TSS signature ends with an aggregate Schnorr
signature (``WRAPS::verify_signature`` of ``hedera-cryptography``): the ledger roster's nodes sign
``ledger id ‖ Poseidon(verification key)`` together, which is how the ledger vouches for the key.
Layout (arkworks, uncompressed): 128 one-byte booleans naming the signers by their place in the
roster, then the response ``s`` and the challenge ``e`` (ed_on_bn254 scalars, little-endian).

Check: the signers' weight is at least half the roster's (``2·signed ≥ total``), and with the
signers' keys summed to ``A``, ``e = Blake2s-256(A ‖ (s·G + e·A) ‖ message)[0..31]`` read
little-endian modulo the subgroup order (points uncompressed).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from hedera_history.errors import TssEndorsementError, TssEndorsementWeightError, TssFormatError, TssRosterError
from hedera_history.verify.tss.babyjubjub import GENERATOR, IDENTITY, ORDER, Point, scalar_le
from hedera_history.verify.tss.poseidon import hash_bytes
from hedera_history.verify.tss.roster import RosterEntry
from hedera_history.verify.tss.serialization import Reader

SIGNER_SLOTS = 128
"""The WRAPS circuit's largest roster: the bitmap always has this many entries."""
ENDORSEMENT_BYTES = SIGNER_SLOTS + 2 * 32
_CHALLENGE_DIGEST_BYTES = 31


@dataclass(frozen=True)
class SchnorrEndorsement:
    signers: tuple[bool, ...]
    response: int
    challenge: int

    @classmethod
    def parse(cls, data: bytes) -> SchnorrEndorsement:
        reader = Reader(data, "Schnorr endorsement")
        flags = reader.take(SIGNER_SLOTS, "signers")
        if any(flag > 1 for flag in flags):
            raise TssFormatError("Schnorr endorsement.signers: expected booleans (0 or 1)")
        response = scalar_le(reader.take(32, "response"), "Schnorr endorsement.response")
        challenge = scalar_le(reader.take(32, "challenge"), "Schnorr endorsement.challenge")
        reader.finish()
        return cls(signers=tuple(flag == 1 for flag in flags), response=response, challenge=challenge)


@dataclass(frozen=True)
class Endorsers:
    """Who endorsed a key, and with how much of the roster's weight."""

    node_ids: tuple[int, ...]
    weight: int
    total_weight: int


def endorsed_message(ledger_id: bytes, verification_key: bytes) -> bytes:
    """What the roster signs to endorse a hinTS verification key (the rotation message)."""
    return ledger_id + hash_bytes(verification_key).to_bytes(32, "little")


def challenge_for(aggregate_key: Point, commitment: Point, message: bytes) -> int:
    digest = hashlib.blake2s(aggregate_key.uncompressed() + commitment.uncompressed() + message).digest()
    return int.from_bytes(digest[:_CHALLENGE_DIGEST_BYTES], "little") % ORDER


def verify_endorsement(roster: Sequence[RosterEntry], message: bytes, endorsement: SchnorrEndorsement) -> Endorsers:
    """The endorsers, or the reason the endorsement does not sign ``message`` for ``roster``."""
    past_roster = [index for index in range(len(roster), len(endorsement.signers)) if endorsement.signers[index]]
    if past_roster:
        # The aggregate key is the same with or without them: refusing keeps one encoding per endorsement.
        raise TssFormatError(f"the endorsement flags places {past_roster} past the roster's {len(roster)} nodes")
    signers = [entry for entry, signed in zip(roster, endorsement.signers, strict=False) if signed]
    unproven = [entry.node_id for entry in signers if not entry.can_sign]
    if unproven:
        raise TssRosterError(f"the endorsement counts nodes {unproven}, whose keys have no valid proof of knowledge")
    weight = sum(entry.weight for entry in signers)
    total = sum(entry.weight for entry in roster)
    endorsers = Endorsers(tuple(entry.node_id for entry in signers), weight, total)
    if 2 * weight < total:
        raise TssEndorsementWeightError(f"the endorsers hold weight {weight} of {total}: expected at least half")
    aggregate_key = IDENTITY
    for entry in signers:
        aggregate_key = aggregate_key + entry.public_key
    commitment = GENERATOR * endorsement.response + aggregate_key * endorsement.challenge
    if challenge_for(aggregate_key, commitment, message) != endorsement.challenge:
        raise TssEndorsementError(
            f"the aggregate Schnorr signature of nodes {list(endorsers.node_ids)} does not sign "
            "ledger id ‖ Poseidon(verification key)"
        )
    return endorsers
