"""The WRAPS check on the one real vector: the block node's block-signing tool's compressed genesis
WRAPS proof (``blocks/tss/genesis-wraps-proof.bin``), under the WRAPS verification key the real
tss-schnorr block 0 publishes (the ``hedera-cryptography`` library's default key, the one that tool
pairs with the proof). Intact it verifies; each field changed fails with its own reason."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hedera_history.errors import (
    TssFormatError,
    TssWrapsError,
    TssWrapsFoldingError,
    TssWrapsFormatError,
    TssWrapsKeyError,
    TssWrapsLedgerError,
    TssWrapsOpeningError,
    TssWrapsSnarkError,
)
from hedera_history.verify.tss import LedgerPublication
from hedera_history.verify.tss.bn254 import R
from hedera_history.verify.tss.poseidon import hash_bytes
from hedera_history.verify.tss.wraps import (
    PROOF_BYTES,
    VERIFICATION_KEY_BYTES,
    WrapsProof,
    WrapsVerificationKey,
    check_states,
    verify_decider,
    verify_wraps,
)

from tests.conformance.tss_blocks import WRAPS_PROOF

# Offsets in the 704 bytes: i, z_0 (u64 length + 2 scalars), z_i, U_i (u64 + 2 points), u_i, then
# the decider proof: Groth16 A (G1), B (G2), C (G1), 2 x (KZG evaluation, KZG proof), cmT, r, 2 challenges.
# Each *_AT of a vector is its first item's (its length is the 8 bytes before).
I_AT = 0
Z0_AT = 40
ZI_AT = 112
U_RUNNING_AT = 184
U_INCOMING_AT = 256
A_AT, B_AT, C_AT = 320, 352, 416
EVAL_AT, KZG_PROOF_AT = 448, 480
CMT_AT, R_AT, CHALLENGE_AT = 576, 608, 640

LEDGER_ID = bytes.fromhex("d62167f6235e6658dc7edf51634f132fb7b7971af211d835432da8205f898f0e")
"""The proof's z_0[0]: the block-signing tool's deterministic roster's ledger id (the proof
carries it; the tool derives it in Rust from a seeded key, not reproduced here)."""


@pytest.fixture(scope="module")
def proof_bytes(hedera_data: Path) -> bytes:
    data = (hedera_data / WRAPS_PROOF).read_bytes()
    assert len(data) == PROOF_BYTES
    return data


@pytest.fixture(scope="module")
def key_bytes(publication: LedgerPublication) -> bytes:
    assert len(publication.history_proof_verification_key) == VERIFICATION_KEY_BYTES
    return publication.history_proof_verification_key


@pytest.fixture(scope="module")
def key(key_bytes: bytes) -> WrapsVerificationKey:
    return WrapsVerificationKey.parse(key_bytes)


def decide(key: WrapsVerificationKey, data: bytes) -> None:
    verify_decider(key, WrapsProof.parse(data))


def scalar_plus_one(at: int) -> Callable[[bytes], bytes]:
    def change(data: bytes) -> bytes:
        value = (int.from_bytes(data[at : at + 32], "little") + 1) % R
        return data[:at] + value.to_bytes(32, "little") + data[at + 32 :]

    return change


def negated(at: int, size: int = 32) -> Callable[[bytes], bytes]:
    """The point's negation: the same x with the other y (the flag in its last byte)."""

    def change(data: bytes) -> bytes:
        last = at + size - 1
        return data[:last] + bytes([data[last] ^ 0x80]) + data[last + 1 :]

    return change


def moved(source: int, at: int) -> Callable[[bytes], bytes]:
    """The G1 point at ``at`` replaced with the one at ``source``."""

    def change(data: bytes) -> bytes:
        return data[:at] + data[source : source + 32] + data[at + 32 :]

    return change


def test_the_vector_verifies(key: WrapsVerificationKey, proof_bytes: bytes) -> None:
    wraps = WrapsProof.parse(proof_bytes)
    assert wraps.steps == 2  # the genesis proof: the genesis roster's step, then the same roster again
    assert wraps.initial_state == wraps.final_state
    assert wraps.initial_state[0].to_bytes(32, "little") == LEDGER_ID
    check_states(wraps, LEDGER_ID, wraps.final_state[1])
    verify_decider(key, wraps)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (scalar_plus_one(I_AT), TssWrapsSnarkError),
        (scalar_plus_one(Z0_AT), TssWrapsSnarkError),
        (scalar_plus_one(Z0_AT + 32), TssWrapsSnarkError),
        (scalar_plus_one(ZI_AT), TssWrapsSnarkError),
        (scalar_plus_one(ZI_AT + 32), TssWrapsSnarkError),
        (negated(U_RUNNING_AT), TssWrapsSnarkError),
        (moved(A_AT, U_RUNNING_AT + 32), TssWrapsSnarkError),  # the vector's U_i.cmE is the point at infinity
        (negated(U_INCOMING_AT), TssWrapsSnarkError),
        (negated(A_AT), TssWrapsSnarkError),
        (negated(B_AT, 64), TssWrapsSnarkError),
        (negated(C_AT), TssWrapsSnarkError),
        (scalar_plus_one(EVAL_AT), TssWrapsSnarkError),
        (scalar_plus_one(EVAL_AT + 64), TssWrapsSnarkError),
        (negated(CMT_AT), TssWrapsSnarkError),
        (scalar_plus_one(R_AT), TssWrapsSnarkError),
        (scalar_plus_one(CHALLENGE_AT), TssWrapsSnarkError),
        (scalar_plus_one(CHALLENGE_AT + 32), TssWrapsSnarkError),
        # The KZG proofs are no input of the Groth16 proof: only the openings catch them.
        (negated(KZG_PROOF_AT), TssWrapsOpeningError),
        (negated(KZG_PROOF_AT + 64), TssWrapsOpeningError),
    ],
    ids=[
        "i",
        "z_0[0]",
        "z_0[1]",
        "z_i[0]",
        "z_i[1]",
        "U_i.cmW",
        "U_i.cmE",
        "u_i.cmW",
        "groth16.a",
        "groth16.b",
        "groth16.c",
        "kzg.eval[0]",
        "kzg.eval[1]",
        "cmT",
        "r",
        "kzg_challenge[0]",
        "kzg_challenge[1]",
        "kzg.proof[0]",
        "kzg.proof[1]",
    ],
)
def test_each_field_changed_fails(
    key: WrapsVerificationKey, proof_bytes: bytes, change: Callable[[bytes], bytes], reason: type[TssWrapsError]
) -> None:
    changed = change(proof_bytes)
    assert changed != proof_bytes
    with pytest.raises(reason):
        decide(key, changed)


def test_one_folding_step_is_not_enough(key: WrapsVerificationKey, proof_bytes: bytes) -> None:
    one = proof_bytes[:I_AT] + (1).to_bytes(32, "little") + proof_bytes[I_AT + 32 :]
    with pytest.raises(TssWrapsFoldingError, match="more than one folding step"):
        decide(key, one)


def test_an_incoming_instance_with_an_error_commitment_fails(key: WrapsVerificationKey, proof_bytes: bytes) -> None:
    with pytest.raises(TssWrapsFoldingError, match="error commitment"):
        decide(key, moved(A_AT, U_INCOMING_AT + 32)(proof_bytes))


@pytest.mark.parametrize(
    ("at", "size"),
    [(A_AT, 32), (B_AT, 64), (CMT_AT, 32)],
    ids=["g1", "g2", "cmT"],
)
def test_a_changed_key_fails(key_bytes: bytes, proof_bytes: bytes, at: int, size: int) -> None:
    """The same point changed in the key rather than in the proof: the key's α (G1, at 32), β (G2, at 64)
    and KZG g (G1, at 32 + 32 + 3·64 + 8 + 41·32)."""
    offset = {A_AT: 32, B_AT: 64, CMT_AT: 32 + 32 + 3 * 64 + 8 + 41 * 32}[at]
    changed = negated(offset, size)(key_bytes)
    with pytest.raises((TssWrapsSnarkError, TssWrapsOpeningError)):
        decide(WrapsVerificationKey.parse(changed), proof_bytes)


def test_the_states_bind_the_ledger_and_the_hints_key(proof_bytes: bytes) -> None:
    wraps = WrapsProof.parse(proof_bytes)
    other_ledger = bytes([LEDGER_ID[0] ^ 1]) + LEDGER_ID[1:]
    with pytest.raises(TssWrapsLedgerError):
        check_states(wraps, other_ledger, wraps.final_state[1])
    with pytest.raises(TssWrapsLedgerError):
        check_states(wraps, LEDGER_ID[:31], wraps.final_state[1])
    with pytest.raises(TssWrapsKeyError):
        check_states(wraps, LEDGER_ID, wraps.final_state[1] ^ 1)


def test_verify_wraps_checks_the_hints_key_by_its_poseidon_hash(key_bytes: bytes, proof_bytes: bytes) -> None:
    """The vector's hinTS key is not at hand (the tool derives it in Rust): a key whose hash is not
    z_i[1] is refused before any pairing."""
    assert hash_bytes(b"another key") != WrapsProof.parse(proof_bytes).final_state[1]
    with pytest.raises(TssWrapsKeyError):
        verify_wraps(key_bytes, proof_bytes, LEDGER_ID, b"another key")


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda data: data[:-1], "704 bytes"),
        (lambda data: data[: Z0_AT - 8] + (3).to_bytes(8, "little") + data[Z0_AT:], "expected 2 items"),
        (lambda data: data[:R_AT] + R.to_bytes(32, "little") + data[R_AT + 32 :], "below the BN254 group order"),
        (lambda data: data[:A_AT] + b"\xff" * 31 + b"\x3f" + data[A_AT + 32 :], "below the BN254 base field"),
        (lambda data: data[: A_AT + 31] + bytes([data[A_AT + 31] | 0xC0]) + data[A_AT + 32 :], "both at infinity"),
    ],
    ids=["length", "vector length", "scalar", "coordinate", "flags"],
)
def test_a_proof_that_does_not_decode_is_a_format_error(
    proof_bytes: bytes, change: Callable[[bytes], bytes], match: str
) -> None:
    with pytest.raises(TssWrapsFormatError, match=match) as raised:
        WrapsProof.parse(change(proof_bytes))
    assert isinstance(raised.value, TssFormatError)


def test_a_g2_point_outside_the_subgroup_is_a_format_error(proof_bytes: bytes) -> None:
    """x = 1 (c0 = 1, c1 = 0) lies on the twist, whose cofactor is not 1: not in G2's subgroup."""
    outside = (1).to_bytes(32, "little") + bytes(32)
    with pytest.raises(TssWrapsFormatError, match="subgroup"):
        WrapsProof.parse(proof_bytes[:B_AT] + outside + proof_bytes[B_AT + 64 :])


def test_a_key_of_another_length_is_a_format_error(key_bytes: bytes) -> None:
    with pytest.raises(TssWrapsFormatError, match="1768 bytes"):
        WrapsVerificationKey.parse(key_bytes + b"\x00")


def test_importing_the_pairing_library_leaves_the_recursion_limit() -> None:
    """py_ecc raises the process's limit to 100,000 on import; with it, deeply nested input
    overflows the C stack and kills the process instead of raising RecursionError."""
    script = (
        "import sys; before = sys.getrecursionlimit(); "
        "import hedera_history.verify.tss.bn254; "
        "assert sys.getrecursionlimit() == before, sys.getrecursionlimit()"
    )
    subprocess.run([sys.executable, "-c", script], check=True)
