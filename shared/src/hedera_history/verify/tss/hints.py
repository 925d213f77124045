"""The hinTS aggregate signature over BLS12-381: the part of a TSS signature that signs the block.

A hinTS signature is a BLS signature under an *aggregate* public key, plus a succinct proof (KZG
commitments and openings) that the aggregate key and the weight it claims are the sum over a subset
of the signers the verification key commits to. :func:`verify_hints` runs every check of the
reference ``HinTS::verify`` (``hedera-cryptography``, ``hints.rs``), in its order, and raises the
first failure as its own :class:`TssError` leaf:

1. threshold: ``2 · aggregate weight > total weight`` in the scalar field;
2. the BLS equation ``e(aggregate key, H(message)) = e(g_0, aggregate signature)``, with RFC 9380
   hash-to-G2 under the ``POP`` ciphersuite tag;
3. the Fiat–Shamir challenge ``r`` over the compressed commitments;
4. the merged KZG opening of seven polynomials at ``r`` and the ParSum opening at ``r/ω``;
5. the pairing identity ``B·SK = aggregate key + Q_z·Z + Q_x·τ``;
6. four identities over the evaluations at ``r``;
7. the degree check ``e(Q_x, τ) = e(Q_x·τ, 1)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from py_arkworks_bls12381 import GT, G1Point, G2Point, Scalar

from hedera_history.errors import (
    TssAggregateSignatureError,
    TssDegreeCheckError,
    TssFormatError,
    TssOpeningError,
    TssPolynomialIdentityError,
    TssScalarIdentityError,
    TssThresholdError,
)
from hedera_history.verify.tss.hash_to_field import hash_to_field
from hedera_history.verify.tss.serialization import BLS12_381_R, Reader, compressed, scalar_bytes

VERIFICATION_KEY_BYTES = 1096
SIGNATURE_BYTES = 1632

MESSAGE_DST = b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"
FIAT_SHAMIR_DST = b"HINTS_SIG_BLS12381:FIAT_SHAMIR"
THRESHOLD = (1, 2)
"""The signers must hold strictly more than this share of the weight (the reference's default)."""

_FIELD_GENERATOR = 7
"""The multiplicative generator arkworks fixes for the BLS12-381 scalar field (its roots of unity
are powers of it)."""
_TWO_ADICITY = 32


@dataclass(frozen=True)
class HintsVerificationKey:
    """``VerificationKey`` of ``hints.rs``: the committee's KZG commitments, fixed per roster."""

    n: int
    """Domain size, a power of two: the committee has ``n - 1`` parties."""
    total_weight: Scalar
    g_0: G1Point
    h_0: G2Point
    h_1: G2Point
    l_n_minus_1: G1Point
    w: G1Point
    sk: G2Point
    z: G2Point

    @classmethod
    def parse(cls, data: bytes) -> HintsVerificationKey:
        reader = Reader(data, "hinTS verification key")
        n = reader.u64("n")
        if n < 2 or n & (n - 1) or n > 1 << _TWO_ADICITY:
            raise TssFormatError(f"hinTS verification key.n: expected a power of two from 2 to 2^32 but got {n}")
        key = cls(
            n=n,
            total_weight=reader.scalar("total_weight"),
            g_0=reader.g1("g_0"),
            h_0=reader.g2("h_0"),
            h_1=reader.g2("h_1"),
            l_n_minus_1=reader.g1("l_n_minus_1_of_tau_com"),
            w=reader.g1("w_of_tau_com"),
            sk=reader.g2("sk_of_tau_com"),
            z=reader.g2("z_of_tau_com"),
        )
        reader.finish()
        return key


@dataclass(frozen=True)
class HintsSignature:
    """``ThresholdSignature`` of ``hints.rs``: the aggregate BLS signature and its proof."""

    agg_pk: G1Point
    agg_weight: Scalar
    agg_sig: G2Point
    b: G1Point
    qx: G1Point
    qx_tau: G1Point
    qz: G1Point
    parsum: G1Point
    q1: G1Point
    q3: G1Point
    q2: G1Point
    q4: G1Point
    opening_r: G1Point
    opening_r_div_omega: G1Point
    parsum_r: Scalar
    parsum_r_div_omega: Scalar
    w_r: Scalar
    b_r: Scalar
    q1_r: Scalar
    q3_r: Scalar
    q2_r: Scalar
    q4_r: Scalar

    @classmethod
    def parse(cls, data: bytes) -> HintsSignature:
        reader = Reader(data, "hinTS signature")
        signature = cls(
            agg_pk=reader.g1("agg_pk"),
            agg_weight=reader.scalar("agg_weight"),
            agg_sig=reader.g2("agg_sig"),
            b=reader.g1("b_of_tau_com"),
            qx=reader.g1("qx_of_tau_com"),
            qx_tau=reader.g1("qx_of_tau_mul_tau_com"),
            qz=reader.g1("qz_of_tau_com"),
            parsum=reader.g1("parsum_of_tau_com"),
            q1=reader.g1("q1_of_tau_com"),
            q3=reader.g1("q3_of_tau_com"),
            q2=reader.g1("q2_of_tau_com"),
            q4=reader.g1("q4_of_tau_com"),
            opening_r=reader.g1("opening_proof_r"),
            opening_r_div_omega=reader.g1("opening_proof_r_div_omega"),
            parsum_r=reader.scalar("parsum_of_r"),
            parsum_r_div_omega=reader.scalar("parsum_of_r_div_omega"),
            w_r=reader.scalar("w_of_r"),
            b_r=reader.scalar("b_of_r"),
            q1_r=reader.scalar("q1_of_r"),
            q3_r=reader.scalar("q3_of_r"),
            q2_r=reader.scalar("q2_of_r"),
            q4_r=reader.scalar("q4_of_r"),
        )
        reader.finish()
        return signature


def root_of_unity(n: int) -> Scalar:
    """The generator of the size-``n`` subgroup arkworks' ``Radix2EvaluationDomain`` uses."""
    return Scalar(pow(_FIELD_GENERATOR, (BLS12_381_R - 1) // n, BLS12_381_R))


def challenge(key: HintsVerificationKey, signature: HintsSignature) -> Scalar:
    """The Fiat–Shamir challenge ``r``: the reference's ``random_oracle`` transcript."""
    transcript = b"".join(
        (
            compressed(key.sk),
            compressed(key.h_1),
            compressed(signature.agg_pk),
            scalar_bytes(signature.agg_weight),
            compressed(key.w),
            compressed(signature.b),
            compressed(signature.parsum),
            compressed(signature.qx),
            compressed(signature.qz),
            compressed(signature.qx_tau),
            compressed(signature.q1),
            compressed(signature.q2),
            compressed(signature.q3),
            compressed(signature.q4),
        )
    )
    return Scalar(hash_to_field(transcript, FIAT_SHAMIR_DST, BLS12_381_R))


def verify_hints(message: bytes, key: HintsVerificationKey, signature: HintsSignature) -> None:
    """Raise the first check ``signature`` fails as a signature of ``message`` under ``key``."""
    numerator, denominator = THRESHOLD
    if (denominator * int(signature.agg_weight)) % BLS12_381_R <= (numerator * int(key.total_weight)) % BLS12_381_R:
        raise TssThresholdError(
            f"hinTS signers hold weight {int(signature.agg_weight)} of {int(key.total_weight)}: "
            f"expected more than {numerator}/{denominator}"
        )
    if not _equal_pairings(
        (signature.agg_pk, G2Point.hash_to_curve(message, MESSAGE_DST)), (key.g_0, signature.agg_sig)
    ):
        raise TssAggregateSignatureError("the aggregate BLS signature does not sign this message")
    r = challenge(key, signature)
    _check_openings(key, signature, r)
    if not _pairing_product_is_one(
        (signature.b, key.sk),
        (-signature.qz, key.z),
        (-signature.qx, key.h_1),
        (-signature.agg_pk, key.h_0),
    ):
        raise TssPolynomialIdentityError("B(τ)·SK(τ) differs from aggregate key + Q_z(τ)·Z(τ) + Q_x(τ)·τ")
    _check_evaluations(key, signature, r)
    if not _equal_pairings((signature.qx, key.h_1), (signature.qx_tau, key.h_0)):
        raise TssDegreeCheckError("e(Q_x, τ) differs from e(Q_x·τ, 1)")


def _check_openings(key: HintsVerificationKey, signature: HintsSignature, r: Scalar) -> None:
    # Each KZG check e(C − v·g_0, h_0) = e(π, h_1 − z·h_0) is run as e(C − v·g_0 + z·π, h_0) =
    # e(π, h_1): the same product of pairings by bilinearity, with the multiples taken in G1 (one
    # multi-scalar multiplication) instead of G2.
    s = signature
    powers = [Scalar(1)]
    for _ in range(6):
        powers.append(powers[-1] * r)
    # W(x) opens to its value with the signers' weight taken off at ω^{n-1}: W − weight·L_{n−1}.
    values = (s.parsum_r, s.w_r, s.b_r, s.q1_r, s.q3_r, s.q2_r, s.q4_r)
    opened_value = Scalar(0)
    for power, value in zip(powers, values, strict=True):
        opened_value = opened_value + power * value
    merged_plus_r_opening = G1Point.multiexp_unchecked(
        [s.parsum, key.w, key.l_n_minus_1, s.b, s.q1, s.q3, s.q2, s.q4, key.g_0, s.opening_r],
        [*powers[:2], -(powers[1] * s.agg_weight), *powers[2:], -opened_value, r],
    )
    if not _equal_pairings((merged_plus_r_opening, key.h_0), (s.opening_r, key.h_1)):
        raise TssOpeningError("the merged KZG opening at r does not verify")
    r_div_omega = r / root_of_unity(key.n)
    parsum_plus_opening = G1Point.multiexp_unchecked(
        [s.parsum, key.g_0, s.opening_r_div_omega], [Scalar(1), -s.parsum_r_div_omega, r_div_omega]
    )
    if not _equal_pairings((parsum_plus_opening, key.h_0), (s.opening_r_div_omega, key.h_1)):
        raise TssOpeningError("the ParSum opening at r/ω does not verify")


def _check_evaluations(key: HintsVerificationKey, signature: HintsSignature, r: Scalar) -> None:
    one = Scalar(1)
    vanishing = r.pow(Scalar(key.n)) - one
    omega_n_minus_1 = root_of_unity(key.n).pow(Scalar(key.n - 1))
    if r == omega_n_minus_1:
        raise TssScalarIdentityError("the challenge r falls on the evaluation domain")
    l_n_minus_1 = (omega_n_minus_1 / Scalar(key.n)) * (vanishing / (r - omega_n_minus_1))
    s = signature
    identities = (
        ("ParSum(r) − ParSum(r/ω) − W(r)·B(r) = Q1(r)·Z(r)", s.parsum_r - s.parsum_r_div_omega - s.w_r * s.b_r, s.q1_r),
        ("L_{n−1}(r)·ParSum(r) = Q3(r)·Z(r)", l_n_minus_1 * s.parsum_r, s.q3_r),
        ("B(r)² − B(r) = Q2(r)·Z(r)", s.b_r * s.b_r - s.b_r, s.q2_r),
        ("L_{n−1}(r)·(B(r) − 1) = Q4(r)·Z(r)", l_n_minus_1 * (s.b_r - one), s.q4_r),
    )
    for label, left, quotient in identities:
        if left != quotient * vanishing:
            raise TssScalarIdentityError(f"{label} does not hold")


def _equal_pairings(left: tuple[G1Point, G2Point], right: tuple[G1Point, G2Point]) -> bool:
    """``e(left) = e(right)``, as one product of pairings with one final exponentiation."""
    return _pairing_product_is_one(left, (-right[0], right[1]))


def _pairing_product_is_one(*pairs: tuple[G1Point, G2Point]) -> bool:
    return GT.pairing_check([p for p, _ in pairs], [q for _, q in pairs])
