"""Baby-JubJub in arkworks' ``ed_on_bn254`` form, on Python integers.

The twisted Edwards curve a·x² + y² = 1 + d·x²·y² over the BN254 scalar field with a = 1 and
d = 168696/168700 (the classic Baby-JubJub, a = 168700 and d = 168696, scaled), cofactor 8 and the
generator of its prime-order subgroup that arkworks fixes. d is not a square, so the unified
addition law is complete: one formula adds any two points, doubling and the identity included.
Points are encoded as arkworks writes them: uncompressed x ‖ y, each 32 bytes little-endian;
compressed y with the top bit of its last byte set when x is "negative" (x > −x).
"""

from __future__ import annotations

from dataclasses import dataclass

from hedera_history.errors import TssFormatError
from hedera_history.speedups import babyjubjub_multiply as compiled_multiply
from hedera_history.verify.tss.poseidon import BN254_R

Q = BN254_R
"""The base field's modulus."""
ORDER = 2736030358979909402780800718157159386076813972158567259200215660948447373041
"""Order of the prime subgroup: the modulus of the Schnorr scalars."""
COFACTOR = 8
A = 1
D = 168696 * pow(168700, -1, Q) % Q
COORDINATE_BYTES = 32
POINT_BYTES = 2 * COORDINATE_BYTES
_X_IS_NEGATIVE = 0x80
_COMPILED_SCALARS = 1 << (8 * COORDINATE_BYTES)
"""The compiled core multiplies by scalars below this (every scalar here is below the field's modulus)."""


@dataclass(frozen=True)
class Point:
    """An affine point of the curve."""

    x: int
    y: int

    def __add__(self, other: Point) -> Point:
        return _affine(_add(_extended(self), _extended(other)))

    def __neg__(self) -> Point:
        return Point((-self.x) % Q, self.y)

    def __mul__(self, scalar: int) -> Point:
        if compiled_multiply is not None and 0 <= scalar < _COMPILED_SCALARS and 0 <= self.x < Q and 0 <= self.y < Q:
            product = compiled_multiply(self.uncompressed(), scalar.to_bytes(COORDINATE_BYTES, "little"))
            if product is not None:
                return Point(
                    int.from_bytes(product[:COORDINATE_BYTES], "little"),
                    int.from_bytes(product[COORDINATE_BYTES:], "little"),
                )
        return _affine(_multiply(_extended(self), scalar))

    def is_on_curve(self) -> bool:
        xx, yy = self.x * self.x % Q, self.y * self.y % Q
        return (A * xx + yy) % Q == (1 + D * xx % Q * yy) % Q

    def is_in_subgroup(self) -> bool:
        return self * ORDER == IDENTITY

    def uncompressed(self) -> bytes:
        return self.x.to_bytes(COORDINATE_BYTES, "little") + self.y.to_bytes(COORDINATE_BYTES, "little")

    def compressed(self) -> bytes:
        encoded = bytearray(self.y.to_bytes(COORDINATE_BYTES, "little"))
        if self.x > (Q - self.x) % Q:
            encoded[-1] |= _X_IS_NEGATIVE
        return bytes(encoded)


IDENTITY = Point(0, 1)
GENERATOR = Point(
    19698561148652590122159747500897617769866003486955115824547446575314762165298,
    19298250018296453272277890825869354524455968081175474282777126169995084727839,
)


def point_uncompressed(data: bytes, what: str) -> Point:
    """A point from its 64-byte uncompressed encoding, validated as arkworks does: coordinates
    below the modulus, on the curve, in the prime-order subgroup."""
    if len(data) != POINT_BYTES:
        raise TssFormatError(f"{what}: expected {POINT_BYTES} bytes but got {len(data)}")
    x = int.from_bytes(data[:COORDINATE_BYTES], "little")
    y = int.from_bytes(data[COORDINATE_BYTES:], "little")
    if x >= Q or y >= Q:
        raise TssFormatError(f"{what}: a coordinate is not below the field modulus")
    point = Point(x, y)
    if not point.is_on_curve():
        raise TssFormatError(f"{what}: the point is not on ed_on_bn254")
    if not point.is_in_subgroup():
        raise TssFormatError(f"{what}: the point is not in the prime-order subgroup")
    return point


def scalar_le(data: bytes, what: str) -> int:
    """A Schnorr scalar from 32 little-endian bytes, below the subgroup order."""
    value = int.from_bytes(data, "little")
    if value >= ORDER:
        raise TssFormatError(f"{what}: expected a scalar below the ed_on_bn254 subgroup order")
    return value


# Extended coordinates (X : Y : T : Z) with x = X/Z, y = Y/Z, x·y = T/Z.
_Extended = tuple[int, int, int, int]


def _extended(point: Point) -> _Extended:
    return (point.x, point.y, point.x * point.y % Q, 1)


def _affine(point: _Extended) -> Point:
    x, y, _, z = point
    inverse = pow(z, -1, Q)
    return Point(x * inverse % Q, y * inverse % Q)


def _add(p: _Extended, q: _Extended) -> _Extended:
    """Unified addition (Hisil–Wong–Carter–Dawson 2008), complete on this curve."""
    x1, y1, t1, z1 = p
    x2, y2, t2, z2 = q
    a = x1 * x2 % Q
    b = y1 * y2 % Q
    c = D * t1 % Q * t2 % Q
    d = z1 * z2 % Q
    e = ((x1 + y1) * (x2 + y2) - a - b) % Q
    f = (d - c) % Q
    g = (d + c) % Q
    h = (b - A * a) % Q
    return (e * f % Q, g * h % Q, e * h % Q, f * g % Q)


def _multiply(point: _Extended, scalar: int) -> _Extended:
    if scalar < 0:
        raise ValueError("expected a non-negative scalar")
    result: _Extended = (0, 1, 0, 1)
    for bit in bin(scalar)[2:]:
        result = _add(result, result)
        if bit == "1":
            result = _add(result, point)
    return result
