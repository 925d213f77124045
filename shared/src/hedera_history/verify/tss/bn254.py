"""BN254 points and scalars as arkworks writes them *compressed*, and pairing products (py_ecc).

The WRAPS proof and its verification key are ``serialize_compressed`` output of ``ark-bn254``: a
scalar is 32 bytes little-endian; a G1 point is its x (32 bytes LE), a G2 point its x = c0 ‖ c1
(each 32 bytes LE), with two flags in the top bits of the last byte: 0x40 the point at infinity,
0x80 "y is the larger of ±y" (arkworks ``SWFlags``; an Fq2 y compares c1 first, then c0).
Decoding validates as arkworks' ``Validate::Yes``: coordinates below the modulus, the point on its
curve and, for G2 (whose cofactor is not 1), in the prime-order subgroup. Each failure is a
:class:`TssWrapsFormatError`.
"""

# ruff: noqa: E402  (the interpreter's recursion limit is read before py_ecc is imported, see below)
from __future__ import annotations

import sys
from collections.abc import Iterable

_RECURSION_LIMIT = sys.getrecursionlimit()

from py_ecc.fields import optimized_bn128_FQ as FQ
from py_ecc.fields import optimized_bn128_FQ2 as FQ2
from py_ecc.fields import optimized_bn128_FQ12 as FQ12
from py_ecc.optimized_bn128.optimized_curve import (
    Z1,
    Z2,
    add,
    b,
    b2,
    curve_order,
    field_modulus,
    is_inf,
    is_on_curve,
    multiply,
    neg,
    normalize,
)
from py_ecc.optimized_bn128.optimized_pairing import final_exponentiate, pairing
from py_ecc.typing import Optimized_Point3D

# Importing py_ecc raises the whole process's recursion limit to 100,000 (py_ecc/__init__.py). Its
# code used here recurses a few hundred deep at most, and with that limit deeply nested input (a
# JSON-RPC body of nested arrays) overflows the C stack and kills the function instance instead of
# raising RecursionError, so the interpreter's limit is put back.
sys.setrecursionlimit(_RECURSION_LIMIT)

from hedera_history.errors import TssWrapsFormatError

G1 = Optimized_Point3D[FQ]
G2 = Optimized_Point3D[FQ2]

P = field_modulus
"""The base field's modulus (Fq)."""
R = curve_order
"""The groups' order: the scalar field's modulus (Fr)."""

SCALAR_BYTES = 32
G1_BYTES = 32
G2_BYTES = 64

_INFINITY_FLAG = 0x40
_LARGER_Y_FLAG = 0x80
_FLAGS = _INFINITY_FLAG | _LARGER_Y_FLAG
_HALF = (P - 1) // 2

__all__ = [
    "G1",
    "G1_BYTES",
    "G2",
    "G2_BYTES",
    "SCALAR_BYTES",
    "Z1",
    "P",
    "R",
    "add",
    "g1",
    "g2",
    "is_inf",
    "multiply",
    "neg",
    "pairings_are_one",
    "scalar",
    "x_y",
]


def scalar(data: bytes, what: str) -> int:
    """An Fr element from 32 bytes little-endian, below the group order."""
    value = int.from_bytes(data, "little")
    if value >= R:
        raise TssWrapsFormatError(f"{what}: expected a scalar below the BN254 group order")
    return value


def g1(data: bytes, what: str) -> G1:
    """A G1 point from its 32-byte compressed encoding."""
    x, flags = _coordinate(data, what)
    if flags & _INFINITY_FLAG:
        return Z1
    y = _sqrt_fq((x * x * x + b.n) % P)
    if y is None:
        raise TssWrapsFormatError(f"{what}: x is not on the curve")
    if (y > _HALF) != bool(flags & _LARGER_Y_FLAG):
        y = P - y
    return (FQ(x), FQ(y), FQ.one())


def g2(data: bytes, what: str) -> G2:
    """A G2 point from its 64-byte compressed encoding, checked to lie in the prime-order subgroup."""
    if len(data) != G2_BYTES:
        raise TssWrapsFormatError(f"{what}: expected {G2_BYTES} bytes but got {len(data)}")
    c0 = _below_modulus(int.from_bytes(data[:32], "little"), what)
    c1, flags = _coordinate(data[32:], what)
    if flags & _INFINITY_FLAG:
        return Z2
    x = FQ2([c0, c1])
    right = x * x * x + b2
    root = _sqrt_fq2(int(right.coeffs[0]), int(right.coeffs[1]))
    if root is None:
        raise TssWrapsFormatError(f"{what}: x is not on the curve")
    y0, y1 = root
    minus = ((P - y0) % P, (P - y1) % P)
    if ((y1, y0) > (minus[1], minus[0])) != bool(flags & _LARGER_Y_FLAG):
        y0, y1 = minus
    point = (x, FQ2([y0, y1]), FQ2.one())
    if not is_on_curve(point, b2) or not is_inf(multiply(point, R)):
        raise TssWrapsFormatError(f"{what}: not in the prime-order subgroup of G2")
    return point


def x_y(point: G1) -> tuple[int, int]:
    """The affine coordinates, (0, 0) for the point at infinity (arkworks ``xy().unwrap_or_default()``)."""
    if is_inf(point):
        return 0, 0
    x, y = normalize(point)
    return x.n, y.n


def pairings_are_one(pairs: Iterable[tuple[G1, G2]]) -> bool:
    """Whether the product of e(p, q) over ``pairs`` is the identity of G_T (one final exponentiation)."""
    product = FQ12.one()
    for p, q in pairs:
        product = product * pairing(q, p, final_exponentiate=False)
    return bool(final_exponentiate(product) == FQ12.one())


def _coordinate(data: bytes, what: str) -> tuple[int, int]:
    """A 32-byte little-endian coordinate with its flags (the top two bits of the last byte)."""
    if len(data) != G1_BYTES:
        raise TssWrapsFormatError(f"{what}: expected {G1_BYTES} bytes but got {len(data)}")
    flags = data[-1] & _FLAGS
    if flags == _FLAGS:
        raise TssWrapsFormatError(f"{what}: a point cannot be both at infinity and have a y")
    value = int.from_bytes(data[:-1] + bytes([data[-1] & ~_FLAGS & 0xFF]), "little")
    return _below_modulus(value, what), flags


def _below_modulus(value: int, what: str) -> int:
    if value >= P:
        raise TssWrapsFormatError(f"{what}: a coordinate is not below the BN254 base field modulus")
    return value


def _sqrt_fq(a: int) -> int | None:
    """A square root in Fq (p ≡ 3 mod 4), or ``None``."""
    root = pow(a, (P + 1) // 4, P)
    return root if root * root % P == a % P else None


def _sqrt_fq2(a0: int, a1: int) -> tuple[int, int] | None:
    """A square root of a0 + a1·u in Fq2 = Fq[u]/(u² + 1), or ``None``: through the norm a0² + a1²."""
    if a1 == 0:
        real = _sqrt_fq(a0)
        if real is not None:
            return real, 0
        imaginary = _sqrt_fq(-a0 % P)
        return None if imaginary is None else (0, imaginary)
    norm_root = _sqrt_fq((a0 * a0 + a1 * a1) % P)
    if norm_root is None:
        return None
    half = pow(2, P - 2, P)
    for candidate in ((a0 + norm_root) * half % P, (a0 - norm_root) * half % P):
        x0 = _sqrt_fq(candidate)
        if x0:
            x1 = a1 * pow(2 * x0, P - 2, P) % P
            if (x0 * x0 - x1 * x1) % P == a0 and 2 * x0 * x1 % P == a1:
                return x0, x1
    return None
