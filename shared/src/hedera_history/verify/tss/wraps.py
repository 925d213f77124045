"""The compressed WRAPS proof that endorses a hinTS verification key once the network's WRAPS settles.

WRAPS folds, with Nova over the BN254/Grumpkin cycle, one step per roster change: each step checks
the previous roster's aggregate Schnorr signature over the next roster and its hinTS key. The state
is z = (roster hash, Poseidon(hinTS key)); z_0[0] is the genesis roster's hash, the ledger id. The
704-byte proof is sonobe's ``DeciderEth`` over the last folded instance (``hedera-cryptography``
``wraps/src/lib.rs`` ``verify_compressed_wraps_proof``; ``folding-schemes`` ``nova/decider_eth.rs``
``Decider::verify``), checked against the ledger's WRAPS verification key (1768 bytes, block 0's
``history_proof_verification_key``). Checked here, in the reference's terms:

1. the proof's z_0[0] is the ledger id and its z_i[1] is Poseidon(hinTS key) (``hash_hints_vk``);
2. i > 1 (``NotEnoughSteps``) and the incoming instance's error commitment is zero;
3. the running and incoming instances fold natively with the proof's r and cmT:
   cmW = U.cmW + r·u.cmW, cmE = U.cmE + r·cmT;
4. Groth16 over BN254 with the 40 public inputs pp_hash, i, z_0, z_i, the folded cmW and cmE, the
   two KZG challenges, the two KZG evaluations and cmT (each point as its x, y in 55-bit limbs,
   five per coordinate): e(A, B) = e(α, β)·e(Σ x_k·γ_abc_k, γ)·e(C, δ);
5. two KZG openings (``ark-poly-commit`` ``KZG10::check``), of cmW and cmE at the challenges:
   e(cm − v·g, h) = e(π, β·h − z·h).

The Nova folding that led to the last instance is proven inside the Groth16 circuit.

Layout (arkworks ``serialize_compressed``; a vector is a u64 LE length, then its items):
proof = i ‖ z_0[2] ‖ z_i[2] ‖ U_i commitments[2] ‖ u_i commitments[2] ‖ Groth16 A ‖ B ‖ C ‖
2 × (KZG evaluation ‖ KZG proof) ‖ cmT ‖ r ‖ 2 KZG challenges; key = pp_hash ‖ α ‖ β ‖ γ ‖ δ ‖
γ_abc[41] ‖ KZG g ‖ γ·g ‖ h ‖ β·h.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from hedera_history.errors import (
    TssWrapsFoldingError,
    TssWrapsFormatError,
    TssWrapsKeyError,
    TssWrapsLedgerError,
    TssWrapsOpeningError,
    TssWrapsSnarkError,
)
from hedera_history.verify.tss import bn254
from hedera_history.verify.tss.bn254 import G1, G2
from hedera_history.verify.tss.poseidon import hash_bytes
from hedera_history.verify.tss.serialization import Reader

PROOF_BYTES = 704
VERIFICATION_KEY_BYTES = 1768
STATE_LENGTH = 2
"""z = (roster hash, Poseidon(hinTS key))."""
COMMITMENTS = 2
"""A Nova committed instance's commitments: cmW, cmE."""
PUBLIC_INPUTS = 40
_LIMB_BITS = 55
_LIMBS = 5
_LIMB_MASK = (1 << _LIMB_BITS) - 1

T = TypeVar("T")


@dataclass(frozen=True)
class KzgOpening:
    evaluation: int
    proof: G1


@dataclass(frozen=True)
class WrapsProof:
    steps: int
    """i: the folding steps behind the proof."""
    initial_state: tuple[int, ...]
    final_state: tuple[int, ...]
    running: tuple[G1, ...]
    """U_i's commitments (cmW, cmE)."""
    incoming: tuple[G1, ...]
    """u_i's commitments (cmW, cmE)."""
    snark_a: G1
    snark_b: G2
    snark_c: G1
    openings: tuple[KzgOpening, ...]
    cross_term: G1
    """cmT."""
    folding_challenge: int
    """r."""
    opening_challenges: tuple[int, ...]

    @classmethod
    def parse(cls, data: bytes) -> WrapsProof:
        if len(data) != PROOF_BYTES:
            raise TssWrapsFormatError(f"a WRAPS proof has {PROOF_BYTES} bytes, not {len(data)}")
        fields = _Fields(data, "wraps proof")
        proof = cls(
            steps=fields.scalar("i"),
            initial_state=fields.vector("z_0", STATE_LENGTH, fields.scalar),
            final_state=fields.vector("z_i", STATE_LENGTH, fields.scalar),
            running=fields.vector("U_i", COMMITMENTS, fields.g1),
            incoming=fields.vector("u_i", COMMITMENTS, fields.g1),
            snark_a=fields.g1("groth16.a"),
            snark_b=fields.g2("groth16.b"),
            snark_c=fields.g1("groth16.c"),
            openings=tuple(KzgOpening(fields.scalar("kzg.eval"), fields.g1("kzg.proof")) for _ in range(2)),
            cross_term=fields.g1("cmT"),
            folding_challenge=fields.scalar("r"),
            opening_challenges=tuple(fields.scalar("kzg_challenge") for _ in range(2)),
        )
        fields.finish()
        return proof


@dataclass(frozen=True)
class WrapsVerificationKey:
    pp_hash: int
    alpha: G1
    beta: G2
    gamma: G2
    delta: G2
    gamma_abc: tuple[G1, ...]
    kzg_g: G1
    kzg_h: G2
    kzg_beta_h: G2

    @classmethod
    def parse(cls, data: bytes) -> WrapsVerificationKey:
        if len(data) != VERIFICATION_KEY_BYTES:
            raise TssWrapsFormatError(f"a WRAPS verification key has {VERIFICATION_KEY_BYTES} bytes, not {len(data)}")
        fields = _Fields(data, "wraps verification key")
        pp_hash = fields.scalar("pp_hash")
        alpha, beta, gamma, delta = fields.g1("alpha"), fields.g2("beta"), fields.g2("gamma"), fields.g2("delta")
        gamma_abc = fields.vector("gamma_abc", PUBLIC_INPUTS + 1, fields.g1)
        kzg_g = fields.g1("kzg.g")
        fields.g1("kzg.gamma_g")  # only for hiding commitments, which WRAPS does not use
        key = cls(pp_hash, alpha, beta, gamma, delta, gamma_abc, kzg_g, fields.g2("kzg.h"), fields.g2("kzg.beta_h"))
        fields.finish()
        return key


def verify_wraps(verification_key: bytes, proof: bytes, ledger_id: bytes, hints_key: bytes) -> None:
    """Whether ``proof`` proves, under the ledger's WRAPS ``verification_key``, that the roster chain
    from the ledger ``ledger_id`` endorses the hinTS key ``hints_key``; raises the first check that fails."""
    key = _verification_key(verification_key)
    wraps = WrapsProof.parse(proof)
    check_states(wraps, ledger_id, hash_bytes(hints_key))
    verify_decider(key, wraps)


def check_states(wraps: WrapsProof, ledger_id: bytes, hints_key_hash: int) -> None:
    """The proof starts from the ledger (z_0[0] = the ledger id, an Fr little-endian) and ends at the
    hinTS key (z_i[1] = its Poseidon hash)."""
    ledger = int.from_bytes(ledger_id, "little")
    if len(ledger_id) != bn254.SCALAR_BYTES or ledger >= bn254.R or wraps.initial_state[0] != ledger:
        raise TssWrapsLedgerError(
            f"the WRAPS proof starts from ledger {wraps.initial_state[0].to_bytes(32, 'little').hex()}, "
            f"not from ledger {ledger_id.hex()}"
        )
    if wraps.final_state[1] != hints_key_hash:
        raise TssWrapsKeyError("the WRAPS proof endorses another hinTS verification key than the one signing")


def verify_decider(key: WrapsVerificationKey, wraps: WrapsProof) -> None:
    """``DeciderEth::verify``: the folding, the Groth16 proof and the two KZG openings."""
    if wraps.steps <= 1:
        raise TssWrapsFoldingError(f"a WRAPS proof needs more than one folding step, not {wraps.steps}")
    if not bn254.is_inf(wraps.incoming[1]):
        raise TssWrapsFoldingError("the incoming instance's error commitment is not zero")
    folded = _fold(wraps)
    if not bn254.pairings_are_one(_groth16_pairs(key, _public_inputs(key, wraps, folded), wraps)):
        raise TssWrapsSnarkError("the WRAPS proof's Groth16 proof does not verify")
    for commitment, challenge, opening in zip(folded, wraps.opening_challenges, wraps.openings, strict=True):
        if not bn254.pairings_are_one(_opening_pairs(key, commitment, challenge, opening)):
            raise TssWrapsOpeningError(f"a KZG opening of the folded instance at {challenge:#x} does not verify")


def _fold(wraps: WrapsProof) -> tuple[G1, G1]:
    """The running instance folded with the incoming one (``fold_group_elements_native``)."""
    r = wraps.folding_challenge
    witness = bn254.add(wraps.running[0], bn254.multiply(wraps.incoming[0], r))
    error = bn254.add(wraps.running[1], bn254.multiply(wraps.cross_term, r))
    return witness, error


def _public_inputs(key: WrapsVerificationKey, wraps: WrapsProof, folded: Sequence[G1]) -> list[int]:
    return [
        key.pp_hash,
        wraps.steps,
        *wraps.initial_state,
        *wraps.final_state,
        *(limb for point in folded for limb in _limbs(point)),
        *wraps.opening_challenges,
        *(opening.evaluation for opening in wraps.openings),
        *_limbs(wraps.cross_term),
    ]


def _limbs(point: G1) -> list[int]:
    """A point as the Groth16 circuit takes it (``inputize_nonnative``): x then y, each in 55-bit limbs."""
    return [(coordinate >> (_LIMB_BITS * k)) & _LIMB_MASK for coordinate in bn254.x_y(point) for k in range(_LIMBS)]


def _groth16_pairs(key: WrapsVerificationKey, inputs: Sequence[int], wraps: WrapsProof) -> list[tuple[G1, G2]]:
    """e(A, B)·e(Σ, −γ)·e(C, −δ)·e(−α, β) = 1."""
    prepared = key.gamma_abc[0]
    for value, base in zip(inputs, key.gamma_abc[1:], strict=True):
        prepared = bn254.add(prepared, bn254.multiply(base, value))
    return [
        (wraps.snark_a, wraps.snark_b),
        (prepared, bn254.neg(key.gamma)),
        (wraps.snark_c, bn254.neg(key.delta)),
        (bn254.neg(key.alpha), key.beta),
    ]


def _opening_pairs(
    key: WrapsVerificationKey, commitment: G1, challenge: int, opening: KzgOpening
) -> list[tuple[G1, G2]]:
    """e(cm − v·g, h)·e(−π, β·h − z·h) = 1."""
    opened = bn254.add(commitment, bn254.neg(bn254.multiply(key.kzg_g, opening.evaluation)))
    shifted = bn254.add(key.kzg_beta_h, bn254.neg(bn254.multiply(key.kzg_h, challenge)))
    return [(opened, key.kzg_h), (bn254.neg(opening.proof), shifted)]


@lru_cache(maxsize=4)
def _verification_key(data: bytes) -> WrapsVerificationKey:
    """A ledger keeps one WRAPS key: parsed (its G2 points checked for the subgroup) once."""
    return WrapsVerificationKey.parse(data)


class _Fields:
    """Reads a compressed arkworks structure field by field."""

    def __init__(self, data: bytes, what: str) -> None:
        self._reader = Reader(data, what)
        self._what = what

    def scalar(self, field: str) -> int:
        return bn254.scalar(self._reader.take(bn254.SCALAR_BYTES, field), f"{self._what}.{field}")

    def g1(self, field: str) -> G1:
        return bn254.g1(self._reader.take(bn254.G1_BYTES, field), f"{self._what}.{field}")

    def g2(self, field: str) -> G2:
        return bn254.g2(self._reader.take(bn254.G2_BYTES, field), f"{self._what}.{field}")

    def vector(self, field: str, length: int, item: Callable[[str], T]) -> tuple[T, ...]:
        stated = self._reader.u64(field)
        if stated != length:
            raise TssWrapsFormatError(f"{self._what}.{field}: expected {length} items but the length says {stated}")
        return tuple(item(f"{field}[{index}]") for index in range(length))

    def finish(self) -> None:
        self._reader.finish()
