"""hinTS on the real signatures of blocks 0 and 5: each check, and each failure with its own reason.

The checks run in the reference's order, so a change that breaks an early check hides the later
ones; the tests of the later checks hold the earlier ones fixed (the challenge r, or the openings)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hedera_history.errors import (
    TssAggregateSignatureError,
    TssDegreeCheckError,
    TssFormatError,
    TssOpeningError,
    TssPolynomialIdentityError,
    TssScalarIdentityError,
    TssThresholdError,
)
from hedera_history.verify.tss import hints
from hedera_history.verify.tss.hints import (
    SIGNATURE_BYTES,
    VERIFICATION_KEY_BYTES,
    HintsSignature,
    HintsVerificationKey,
    challenge,
    root_of_unity,
    verify_hints,
)
from hedera_history.verify.tss.serialization import BLS12_381_R
from py_arkworks_bls12381 import GT, G1Point, Scalar

from tests.conformance.tss_blocks import HINTS_SIGNED_WEIGHT, HINTS_TOTAL_WEIGHT, TssBlock


def parts(block: TssBlock) -> tuple[HintsVerificationKey, HintsSignature]:
    key = HintsVerificationKey.parse(block.signature[:VERIFICATION_KEY_BYTES])
    signature = HintsSignature.parse(block.signature[VERIFICATION_KEY_BYTES : VERIFICATION_KEY_BYTES + SIGNATURE_BYTES])
    return key, signature


@pytest.fixture(scope="module")
def signed(tss_blocks: tuple[TssBlock, ...]) -> tuple[bytes, HintsVerificationKey, HintsSignature]:
    key, signature = parts(tss_blocks[0])
    return tss_blocks[0].root, key, signature


@pytest.mark.parametrize("number", [0, 5])
def test_the_real_signatures_verify(tss_blocks: tuple[TssBlock, ...], number: int) -> None:
    key, signature = parts(tss_blocks[number])
    assert (key.n, int(key.total_weight), int(signature.agg_weight)) == (8, HINTS_TOTAL_WEIGHT, HINTS_SIGNED_WEIGHT)
    verify_hints(tss_blocks[number].root, key, signature)


def test_the_roots_of_unity_are_arkworks_radix_2_domain_generators() -> None:
    omega = root_of_unity(8)
    assert omega.pow(Scalar(8)).is_one()
    assert not omega.pow(Scalar(4)).is_one()


def test_weight_not_above_half_fails_the_threshold(signed: tuple[bytes, HintsVerificationKey, HintsSignature]) -> None:
    root, key, signature = signed
    with pytest.raises(TssThresholdError):
        verify_hints(root, key, replace(signature, agg_weight=Scalar(HINTS_TOTAL_WEIGHT // 2)))


def test_another_message_fails_the_bls_check(signed: tuple[bytes, HintsVerificationKey, HintsSignature]) -> None:
    root, key, signature = signed
    with pytest.raises(TssAggregateSignatureError):
        verify_hints(bytes([root[0] ^ 1]) + root[1:], key, signature)


def test_a_changed_evaluation_fails_the_merged_opening(
    signed: tuple[bytes, HintsVerificationKey, HintsSignature],
) -> None:
    root, key, signature = signed
    with pytest.raises(TssOpeningError, match="at r "):
        verify_hints(root, key, replace(signature, b_r=signature.b_r + Scalar(1)))


def test_a_changed_parsum_at_r_over_omega_fails_its_opening(
    signed: tuple[bytes, HintsVerificationKey, HintsSignature],
) -> None:
    root, key, signature = signed
    changed = replace(signature, parsum_r_div_omega=signature.parsum_r_div_omega + Scalar(1))
    with pytest.raises(TssOpeningError, match="r/ω"):
        verify_hints(root, key, changed)


def test_the_challenge_covers_the_commitments(signed: tuple[bytes, HintsVerificationKey, HintsSignature]) -> None:
    _, key, signature = signed
    assert 0 < int(challenge(key, signature)) < BLS12_381_R
    changed = replace(signature, q4=signature.q4 + G1Point())
    assert challenge(key, changed) != challenge(key, signature)


@pytest.mark.parametrize(("field", "reason"), [("qz", TssPolynomialIdentityError), ("qx_tau", TssDegreeCheckError)])
def test_a_changed_commitment_outside_the_openings_fails_its_pairing_check(
    signed: tuple[bytes, HintsVerificationKey, HintsSignature],
    monkeypatch: pytest.MonkeyPatch,
    field: str,
    reason: type[Exception],
) -> None:
    root, key, signature = signed
    r = challenge(key, signature)
    monkeypatch.setattr(hints, "challenge", lambda *_: r)
    with pytest.raises(reason):
        verify_hints(root, key, replace(signature, **{field: getattr(signature, field) + G1Point()}))


def test_a_changed_quotient_evaluation_fails_a_scalar_identity(
    signed: tuple[bytes, HintsVerificationKey, HintsSignature], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, key, signature = signed
    monkeypatch.setattr(hints, "_check_openings", lambda *_: None)
    for field in ("q1_r", "q3_r", "q2_r", "q4_r"):
        changed = replace(signature, **{field: getattr(signature, field) + Scalar(1)})
        with pytest.raises(TssScalarIdentityError):
            verify_hints(root, key, changed)


def test_a_key_of_another_length_does_not_parse(tss_blocks: tuple[TssBlock, ...]) -> None:
    with pytest.raises(TssFormatError, match="left over"):
        HintsVerificationKey.parse(tss_blocks[0].signature[: VERIFICATION_KEY_BYTES + 1])
    with pytest.raises(TssFormatError, match="remain"):
        HintsVerificationKey.parse(tss_blocks[0].signature[: VERIFICATION_KEY_BYTES - 1])


def test_a_domain_size_not_a_power_of_two_does_not_parse(tss_blocks: tuple[TssBlock, ...]) -> None:
    key_bytes = (6).to_bytes(8, "little") + tss_blocks[0].signature[8:VERIFICATION_KEY_BYTES]
    with pytest.raises(TssFormatError, match="power of two"):
        HintsVerificationKey.parse(key_bytes)


def test_a_point_off_its_curve_does_not_parse(tss_blocks: tuple[TssBlock, ...]) -> None:
    raw = bytearray(tss_blocks[0].signature[VERIFICATION_KEY_BYTES : VERIFICATION_KEY_BYTES + SIGNATURE_BYTES])
    raw[95] ^= 1  # last byte of agg_pk's y
    with pytest.raises(TssFormatError, match="agg_pk"):
        HintsSignature.parse(bytes(raw))


def test_a_compressed_flag_is_refused(tss_blocks: tuple[TssBlock, ...]) -> None:
    raw = bytearray(tss_blocks[0].signature[VERIFICATION_KEY_BYTES : VERIFICATION_KEY_BYTES + SIGNATURE_BYTES])
    raw[0] |= 0x80
    with pytest.raises(TssFormatError, match="uncompressed"):
        HintsSignature.parse(bytes(raw))


def test_a_scalar_at_the_group_order_is_refused(tss_blocks: tuple[TssBlock, ...]) -> None:
    raw = bytearray(tss_blocks[0].signature[VERIFICATION_KEY_BYTES : VERIFICATION_KEY_BYTES + SIGNATURE_BYTES])
    raw[96:128] = BLS12_381_R.to_bytes(32, "little")
    with pytest.raises(TssFormatError, match="agg_weight"):
        HintsSignature.parse(bytes(raw))


def _textbook_openings_hold(key: HintsVerificationKey, signature: HintsSignature, r: Scalar) -> tuple[bool, bool]:
    """The two KZG checks as ``hints.rs`` states them, e(C − v·g_0, h_0) = e(π, h_1 − z·h_0)."""
    s = signature
    w_adjusted = key.w + key.l_n_minus_1 * (-s.agg_weight)
    opened = [(s.parsum, s.parsum_r), (w_adjusted, s.w_r), (s.b, s.b_r), (s.q1, s.q1_r), (s.q3, s.q3_r)]
    opened += [(s.q2, s.q2_r), (s.q4, s.q4_r)]
    merged, power = G1Point.identity(), Scalar(1)
    for commitment, value in opened:
        merged, power = merged + (commitment - key.g_0 * value) * power, power * r
    at_r = GT.pairing(merged, key.h_0) == GT.pairing(s.opening_r, key.h_1 - key.h_0 * r)
    z = r / root_of_unity(key.n)
    left = GT.pairing(s.parsum - key.g_0 * s.parsum_r_div_omega, key.h_0)
    return at_r, left == GT.pairing(s.opening_r_div_omega, key.h_1 - key.h_0 * z)


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"opening_r": "g"},
        {"opening_r_div_omega": "g"},
        {"w_r": 1},
        {"q4_r": 1},
        {"parsum_r": 1},
        {"parsum_r_div_omega": 1},
        {"agg_weight": 1},
        {"q2": "g"},
        {"opening_r": "g", "opening_r_div_omega": "g"},
    ],
)
@pytest.mark.parametrize("number", [0, 5])
def test_the_openings_checked_in_g1_are_the_textbook_checks(
    tss_blocks: tuple[TssBlock, ...], number: int, change: dict[str, object]
) -> None:
    key, signature = parts(tss_blocks[number])
    changed = {name: getattr(signature, name) + (key.g_0 if how == "g" else Scalar(1)) for name, how in change.items()}
    signature = replace(signature, **changed)
    r = challenge(key, signature)
    expected = _textbook_openings_hold(key, signature, r)
    assert all(expected) == (not change)
    if all(expected):
        hints._check_openings(key, signature, r)
    else:
        with pytest.raises(TssOpeningError, match="at r " if not expected[0] else "r/ω"):
            hints._check_openings(key, signature, r)
