"""The ledger's Schnorr roster: each node's history-proof key, weight and id.

A node's ``history_proof_key`` is arkworks' ``SchnorrAttestedPubKey``, uncompressed: the public key
(an ed_on_bn254 point, 64 bytes) then a Schnorr proof of knowledge of its discrete log (commitment
point, challenge, response: 128 bytes). The proof keeps a node from choosing its key as a function
of the others' (a rogue key that would let it sign for the aggregate alone). The WRAPS library
checks every proof except for its sentinel placeholder keys, whose proof is all zeros; here a key
whose proof does not verify (a placeholder among them) is kept in the roster, with its weight
counted in the total, but can never sign.
"""

from __future__ import annotations

from dataclasses import dataclass

from hedera_history.verify.tss.babyjubjub import GENERATOR, ORDER, POINT_BYTES, Point, point_uncompressed, scalar_le
from hedera_history.verify.tss.hash_to_field import hash_to_field
from hedera_history.verify.tss.serialization import Reader

HISTORY_PROOF_KEY_BYTES = 192
_PROOF_DST = b""


@dataclass(frozen=True)
class RosterEntry:
    """One node of the roster that endorses hinTS verification keys."""

    node_id: int
    weight: int
    public_key: Point
    can_sign: bool
    """Its proof of knowledge verifies: only such keys may count toward an endorsement."""

    @classmethod
    def parse(cls, node_id: int, weight: int, history_proof_key: bytes) -> RosterEntry:
        what = f"history proof key of node {node_id}"
        reader = Reader(history_proof_key, what)
        public_key = point_uncompressed(reader.take(POINT_BYTES, "public_key"), f"{what}.public_key")
        commitment = point_uncompressed(reader.take(POINT_BYTES, "commitment"), f"{what}.commitment")
        challenge = scalar_le(reader.take(32, "challenge"), f"{what}.challenge")
        response = scalar_le(reader.take(32, "response"), f"{what}.response")
        reader.finish()
        proven = proof_of_knowledge_holds(public_key, commitment, challenge, response)
        return cls(node_id=node_id, weight=weight, public_key=public_key, can_sign=proven)


def proof_of_knowledge_challenge(public_key: Point, commitment: Point) -> int:
    """The Fiat–Shamir challenge of a key's proof: the compressed generator, key and commitment
    hashed to a scalar (SHA-256 XMD, empty tag)."""
    transcript = GENERATOR.compressed() + public_key.compressed() + commitment.compressed()
    return hash_to_field(transcript, _PROOF_DST, ORDER)


def proof_of_knowledge_holds(public_key: Point, commitment: Point, challenge: int, response: int) -> bool:
    """``response·G = commitment + challenge·key`` and the challenge is the transcript's."""
    if GENERATOR * response != commitment + public_key * challenge:
        return False
    return challenge == proof_of_knowledge_challenge(public_key, commitment)
