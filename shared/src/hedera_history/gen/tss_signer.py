"""A test TSS network: hinTS and the Schnorr endorsement with keys derived from a seed (small n).

:class:`TssSigner` writes what a network's block 0 publishes (the ledger id publication) and the
``block_signature`` of a TSS-signed block proof in the genesis form (hinTS key ‖ hinTS signature ‖
aggregate Schnorr endorsement), which ``verify.tss`` accepts. Its KZG setup's secret τ is *known*:
every commitment and opening is computed from polynomial values at τ instead of from the powers of
τ a ceremony would publish. That keeps the signer short and fast, and makes its signatures worthless
outside tests: whoever knows τ can forge any of them.

The hinTS signature is built as ``HinTS::aggregate`` of ``hints.rs`` builds it: the domain holds
the parties and one reserved slot (n − 1) that always "signs" with weight −(signed weight) and
secret 0; the aggregate key and signature are the signers' sums divided by n. The ledger id here is
Poseidon over the roster's key coordinates, weights and node ids, unpadded (the network's pads the
roster to 128 entries with a key this module cannot derive): a test value.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import accumulate

from py_arkworks_bls12381 import G1Point, G2Point, Scalar

from hedera_history import hapi
from hedera_history.errors import GeneratorError
from hedera_history.verify.tss import babyjubjub, hints, poseidon
from hedera_history.verify.tss.babyjubjub import GENERATOR, ORDER, Point
from hedera_history.verify.tss.hints import MESSAGE_DST, HintsSignature, HintsVerificationKey, root_of_unity
from hedera_history.verify.tss.roster import proof_of_knowledge_challenge
from hedera_history.verify.tss.schnorr import SIGNER_SLOTS, challenge_for, endorsed_message
from hedera_history.verify.tss.serialization import (
    BLS12_381_R,
    g1_uncompressed_bytes,
    g2_uncompressed_bytes,
    scalar_bytes,
)

R = BLS12_381_R
_DERIVATION = b"hedera-history/tss/v1"


def _derive(seed: bytes, label: str, index: int, modulus: int) -> int:
    """A non-zero scalar below ``modulus`` from the seed (64 bytes of SHA-512, reduced)."""
    digest = hashlib.sha512(_DERIVATION + seed + label.encode() + index.to_bytes(4, "big")).digest()
    return int.from_bytes(digest, "big") % (modulus - 1) + 1


def _inverse(value: int) -> int:
    return pow(value, -1, R)


@dataclass(frozen=True)
class TssSigner:
    """A roster of test nodes (ids and weights) whose hinTS and Schnorr keys derive from ``seed``."""

    node_ids: tuple[int, ...]
    weights: tuple[int, ...]
    seed: bytes

    @classmethod
    def create(
        cls, weights: Sequence[int], *, node_ids: Sequence[int] | None = None, seed: bytes = b"tss"
    ) -> TssSigner:
        ids = tuple(range(len(weights))) if node_ids is None else tuple(node_ids)
        if not weights or len(ids) != len(weights) or len(weights) > SIGNER_SLOTS:
            raise GeneratorError(f"a TSS roster has 1 to {SIGNER_SLOTS} nodes, each with a weight")
        if any(weight <= 0 for weight in weights):
            raise GeneratorError("every TSS node needs a positive weight")
        return cls(ids, tuple(weights), seed)

    # ---- keys ------------------------------------------------------------------------------------

    @cached_property
    def n(self) -> int:
        """The hinTS domain: the smallest power of two above the parties (one slot is reserved)."""
        size = 2
        while size < len(self.weights) + 1:
            size *= 2
        return size

    @cached_property
    def _tau(self) -> int:
        return _derive(self.seed, "kzg-tau", 0, R)

    @cached_property
    def _bls_secrets(self) -> tuple[int, ...]:
        return tuple(_derive(self.seed, "hints-key", index, R) for index in range(len(self.weights)))

    @cached_property
    def _schnorr_secrets(self) -> tuple[int, ...]:
        return tuple(_derive(self.seed, "schnorr-key", index, ORDER) for index in range(len(self.weights)))

    @cached_property
    def _schnorr_keys(self) -> tuple[Point, ...]:
        return tuple(GENERATOR * secret for secret in self._schnorr_secrets)

    @cached_property
    def ledger_id(self) -> bytes:
        keys = self._schnorr_keys
        elements = [key.x for key in keys] + [key.y for key in keys] + list(self.weights) + list(self.node_ids)
        return poseidon.hash_elements(elements).to_bytes(32, "little")

    def history_proof_key(self, index: int) -> bytes:
        """Node ``index``'s Schnorr key and its proof of knowledge, as arkworks writes them."""
        secret, key = self._schnorr_secrets[index], self._schnorr_keys[index]
        nonce = _derive(self.seed, "schnorr-pok", index, ORDER)
        commitment = GENERATOR * nonce
        challenge = proof_of_knowledge_challenge(key, commitment)
        response = (nonce + challenge * secret) % ORDER
        scalars = challenge.to_bytes(32, "little") + response.to_bytes(32, "little")
        return key.uncompressed() + commitment.uncompressed() + scalars

    def ledger_publication(self) -> bytes:
        """A ``SignedTransaction`` whose body is the ``LedgerIdPublicationTransactionBody``."""
        body = hapi.TransactionBody()
        publication = body.ledger_id_publication
        publication.ledger_id = self.ledger_id
        for index, (node_id, weight) in enumerate(zip(self.node_ids, self.weights, strict=True)):
            publication.node_contributions.add(
                node_id=node_id, weight=weight, history_proof_key=self.history_proof_key(index)
            )
        return bytes(hapi.SignedTransaction(bodyBytes=body.SerializeToString()).SerializeToString())

    # ---- hinTS -----------------------------------------------------------------------------------

    @cached_property
    def _domain(self) -> _Domain:
        return _Domain(self.n)

    @cached_property
    def _secret_values(self) -> list[int]:
        """The SK polynomial's values on the domain: each party's BLS secret, 0 in the free slots."""
        return [*self._bls_secrets, *([0] * (self.n - len(self.weights)))]

    @cached_property
    def _key_weights(self) -> list[int]:
        return [*self.weights, *([0] * (self.n - len(self.weights)))]

    @cached_property
    def verification_key(self) -> bytes:
        tau, n, domain = self._tau, self.n, self._domain
        g, h = G1Point(), G2Point()
        fields = (
            n.to_bytes(8, "little"),
            sum(self.weights).to_bytes(32, "little"),
            g1_uncompressed_bytes(g),
            g2_uncompressed_bytes(h),
            g2_uncompressed_bytes(h * Scalar(tau)),
            g1_uncompressed_bytes(g * Scalar(domain.lagrange(tau)[n - 1])),
            g1_uncompressed_bytes(g * Scalar(domain.evaluate(self._key_weights, tau))),
            g2_uncompressed_bytes(h * Scalar(domain.evaluate(self._secret_values, tau))),
            g2_uncompressed_bytes(h * Scalar(domain.vanishing(tau))),
        )
        return b"".join(fields)

    def hints_signature(self, message: bytes, signers: Sequence[int]) -> bytes:
        """The aggregate signature of parties ``signers`` (places in the roster) over ``message``."""
        tau, g = self._tau, G1Point()
        proof = _Aggregate(self._domain, self._key_weights, self._secret_values, set(signers))
        at_tau = proof.at(tau)
        signed_secret = proof.signed_secret
        draft = HintsSignature(
            agg_pk=g * Scalar(signed_secret),
            agg_weight=Scalar(proof.signed_weight),
            agg_sig=G2Point.hash_to_curve(message, MESSAGE_DST) * Scalar(signed_secret),
            b=g * Scalar(at_tau["b"]),
            qx=g * Scalar(proof.qx(tau)),
            qx_tau=g * Scalar(proof.qx(tau) * tau % R),
            qz=g * Scalar(proof.qz(tau)),
            parsum=g * Scalar(at_tau["parsum"]),
            q1=g * Scalar(at_tau["q1"]),
            q3=g * Scalar(at_tau["q3"]),
            q2=g * Scalar(at_tau["q2"]),
            q4=g * Scalar(at_tau["q4"]),
            opening_r=G1Point.identity(),
            opening_r_div_omega=G1Point.identity(),
            **dict.fromkeys(_EVALUATIONS, Scalar(0)),
        )
        r = int(hints.challenge(HintsVerificationKey.parse(self.verification_key), draft))
        at_r = proof.at(r)
        r_div_omega = r * _inverse(self._domain.omega) % R
        parsum_r_div_omega = self._domain.evaluate(proof.parsum, r_div_omega)

        def opening(value_at_tau: int, value_at_point: int, point: int) -> int:
            """The KZG opening (f(τ) − f(point)) / (τ − point), as a scalar."""
            return (value_at_tau - value_at_point) * _inverse((tau - point) % R) % R

        merged = sum(pow(r, k, R) * opening(at_tau[name], at_r[name], r) for k, name in enumerate(_OPENED)) % R
        signature = replace(
            draft,
            opening_r=g * Scalar(merged),
            opening_r_div_omega=g * Scalar(opening(at_tau["parsum"], parsum_r_div_omega, r_div_omega)),
        )
        evaluations = (at_r["parsum"], parsum_r_div_omega, at_r["w"], at_r["b"], *(at_r[q] for q in _QUOTIENTS))
        return _hints_signature_bytes(signature, evaluations)

    # ---- the endorsement and the whole signature --------------------------------------------------

    def endorsement(self, endorsers: Sequence[int]) -> bytes:
        """The roster's aggregate Schnorr signature over ledger id ‖ Poseidon(verification key)."""
        message = endorsed_message(self.ledger_id, self.verification_key)
        secret = sum(self._schnorr_secrets[index] for index in endorsers) % ORDER
        aggregate_key = babyjubjub.IDENTITY
        for index in endorsers:
            aggregate_key = aggregate_key + self._schnorr_keys[index]
        nonce = _derive(self.seed + message, "schnorr-nonce", len(endorsers), ORDER)
        challenge = challenge_for(aggregate_key, GENERATOR * nonce, message)
        response = (nonce - challenge * secret) % ORDER
        flags = bytes(1 if index in endorsers else 0 for index in range(SIGNER_SLOTS))
        return flags + response.to_bytes(32, "little") + challenge.to_bytes(32, "little")

    def sign(
        self, message: bytes, signers: Sequence[int] | None = None, endorsers: Sequence[int] | None = None
    ) -> bytes:
        """A genesis-form ``block_signature`` over ``message`` (a block root); all nodes sign and
        endorse unless told otherwise."""
        everyone = range(len(self.weights))
        chosen = list(everyone if signers is None else signers)
        endorsing = list(everyone if endorsers is None else endorsers)
        return self.verification_key + self.hints_signature(message, chosen) + self.endorsement(endorsing)


_QUOTIENTS = ("q1", "q3", "q2", "q4")
"""In the signature's order: ParSum well-formed, ParSum zero at ω^{n−1}, bitmap bits, bitmap 1 at ω^{n−1}."""
_OPENED = ("parsum", "w", "b", *_QUOTIENTS)
"""The polynomials the merged opening at r covers, in the order of their powers of r."""
_EVALUATIONS = ("parsum_r", "parsum_r_div_omega", "w_r", "b_r", "q1_r", "q3_r", "q2_r", "q4_r")


@dataclass(frozen=True)
class _Domain:
    """The size-n subgroup of roots of unity, polynomials given by their values on it."""

    n: int

    @cached_property
    def omega(self) -> int:
        return int(root_of_unity(self.n))

    def vanishing(self, x: int) -> int:
        return (pow(x, self.n, R) - 1) % R

    def lagrange(self, x: int) -> list[int]:
        """Every L_i(x) = ω^i/n · (x^n − 1)/(x − ω^i), for x off the domain."""
        scale = _inverse(self.n) * self.vanishing(x) % R
        values, point = [], 1
        for _ in range(self.n):
            values.append(point * scale % R * _inverse((x - point) % R) % R)
            point = point * self.omega % R
        return values

    def evaluate(self, values: Sequence[int], x: int) -> int:
        return _dot(values, self.lagrange(x))


class _Aggregate:
    """The polynomials of one hinTS aggregation (``hints.rs`` ``aggregate``), by their values."""

    def __init__(self, domain: _Domain, weights: Sequence[int], secrets: Sequence[int], signers: set[int]) -> None:
        n = domain.n
        self.domain = domain
        self.secrets = list(secrets)
        self.bitmap = [1 if index in signers or index == n - 1 else 0 for index in range(n)]
        self.signed_weight = _dot(weights[: n - 1], self.bitmap[: n - 1])
        # The reserved slot's weight cancels the signers': ParSum ends at 0.
        self.weights = [*weights[: n - 1], (-self.signed_weight) % R]
        self.parsum = list(accumulate((w * b % R for w, b in zip(self.weights, self.bitmap, strict=True)), _add))
        self.signed_secret = _dot(self.secrets, self.bitmap) * _inverse(n) % R
        """Aggregate key and signature: the signers' sums divided by n."""

    def at(self, x: int) -> dict[str, int]:
        lagrange = self.domain.lagrange(x)
        b, w, parsum = (_dot(values, lagrange) for values in (self.bitmap, self.weights, self.parsum))
        parsum_before = self.domain.evaluate(self.parsum, x * _inverse(self.domain.omega) % R)
        over_z = _inverse(self.domain.vanishing(x))
        last = lagrange[self.domain.n - 1]
        return {
            "parsum": parsum,
            "w": w,
            "b": b,
            "q1": (parsum - parsum_before - w * b) * over_z % R,
            "q3": last * parsum * over_z % R,
            "q2": (b * b - b) * over_z % R,
            "q4": last * (b - 1) * over_z % R,
        }

    def qx(self, x: int) -> int:
        """Q_x(x) = Σ b_i·sk_i·(L_i(x) − L_i(0)) / x, with L_i(0) = 1/n."""
        at_zero = _inverse(self.domain.n)
        lagrange = self.domain.lagrange(x)
        terms = (s * b * (l_i - at_zero) for s, b, l_i in zip(self.secrets, self.bitmap, lagrange, strict=True))
        return sum(terms) * _inverse(x) % R

    def qz(self, x: int) -> int:
        """Q_z(x) = (B(x)·SK(x) − Σ b_i·sk_i·L_i(x)) / Z(x)."""
        lagrange = self.domain.lagrange(x)
        signed = [s * b for s, b in zip(self.secrets, self.bitmap, strict=True)]
        product = _dot(self.bitmap, lagrange) * _dot(self.secrets, lagrange)
        return (product - _dot(signed, lagrange)) * _inverse(self.domain.vanishing(x)) % R


def _dot(left: Sequence[int], right: Sequence[int]) -> int:
    return sum(a * b for a, b in zip(left, right, strict=True)) % R


def _add(a: int, b: int) -> int:
    return (a + b) % R


def _hints_signature_bytes(signature: HintsSignature, evaluations: Sequence[int]) -> bytes:
    points = (
        signature.b,
        signature.qx,
        signature.qx_tau,
        signature.qz,
        signature.parsum,
        signature.q1,
        signature.q3,
        signature.q2,
        signature.q4,
        signature.opening_r,
        signature.opening_r_div_omega,
    )
    return b"".join(
        (
            g1_uncompressed_bytes(signature.agg_pk),
            scalar_bytes(signature.agg_weight),
            g2_uncompressed_bytes(signature.agg_sig),
            *(g1_uncompressed_bytes(point) for point in points),
            *(value.to_bytes(32, "little") for value in evaluations),
        )
    )
