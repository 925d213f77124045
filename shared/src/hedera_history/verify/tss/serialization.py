"""arkworks ``CanonicalSerialize`` layouts, read into points and scalars.

The TSS libraries write their keys, signatures and proofs *uncompressed*. BLS12-381 points use the
zcash layout (big-endian x ‖ y, three flag bits in the first byte; a G2 coordinate is c1 ‖ c0);
scalars and integers are little-endian. Every reader validates as arkworks' ``Validate::Yes`` does:
a point must lie on its curve and in its prime-order subgroup, a scalar must be below its modulus.
Each failure is a :class:`TssFormatError`.
"""

from __future__ import annotations

from py_arkworks_bls12381 import G1Point, G2Point, Scalar

from hedera_history.errors import TssFormatError

FP_BYTES = 48
G1_BYTES = 2 * FP_BYTES
G2_BYTES = 4 * FP_BYTES
SCALAR_BYTES = 32
U64_BYTES = 8

BLS12_381_R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
"""Order of the BLS12-381 groups: the modulus of the hinTS scalar field."""

_COMPRESSED_FLAG = 0x80
_INFINITY_FLAG = 0x40
_SORT_FLAG = 0x20


class Reader:
    """Reads fixed-size fields from the front of a buffer, failing typed when it runs out or has
    bytes left over."""

    def __init__(self, data: bytes, what: str) -> None:
        self._data = data
        self._pos = 0
        self._what = what

    def take(self, size: int, field: str) -> bytes:
        end = self._pos + size
        if end > len(self._data):
            raise TssFormatError(
                f"{self._what}.{field}: expected {size} bytes at offset {self._pos} but only "
                f"{len(self._data) - self._pos} remain"
            )
        chunk = self._data[self._pos : end]
        self._pos = end
        return chunk

    def g1(self, field: str) -> G1Point:
        return g1_uncompressed(self.take(G1_BYTES, field), f"{self._what}.{field}")

    def g2(self, field: str) -> G2Point:
        return g2_uncompressed(self.take(G2_BYTES, field), f"{self._what}.{field}")

    def scalar(self, field: str) -> Scalar:
        return scalar_le(self.take(SCALAR_BYTES, field), f"{self._what}.{field}")

    def u64(self, field: str) -> int:
        return int.from_bytes(self.take(U64_BYTES, field), "little")

    def finish(self) -> None:
        if self._pos != len(self._data):
            raise TssFormatError(f"{self._what}: {len(self._data) - self._pos} bytes left over after its last field")


def _strip_flags(data: bytes, what: str) -> bytes | None:
    """The coordinates with the flag bits cleared, or ``None`` for the point at infinity."""
    flags = data[0]
    if flags & (_COMPRESSED_FLAG | _SORT_FLAG):
        raise TssFormatError(f"{what}: expected an uncompressed point but the flag byte is {flags:#04x}")
    if flags & _INFINITY_FLAG:
        if data[0] != _INFINITY_FLAG or any(data[1:]):
            raise TssFormatError(f"{what}: the point at infinity must be all zero after its flag")
        return None
    return data


def g1_uncompressed(data: bytes, what: str) -> G1Point:
    """A G1 point from its 96-byte uncompressed zcash encoding."""
    coordinates = _strip_flags(data, what)
    if coordinates is None:
        return G1Point.identity()
    try:
        return G1Point.from_xy_bytes_be(coordinates)
    except ValueError as e:
        raise TssFormatError(f"{what}: {e}") from e


def g2_uncompressed(data: bytes, what: str) -> G2Point:
    """A G2 point from its 192-byte uncompressed zcash encoding (each coordinate c1 ‖ c0)."""
    coordinates = _strip_flags(data, what)
    if coordinates is None:
        return G2Point.identity()
    x1, x0, y1, y0 = (coordinates[i : i + FP_BYTES] for i in range(0, G2_BYTES, FP_BYTES))
    try:
        # py_arkworks_bls12381 reads each coordinate as c0 ‖ c1.
        return G2Point.from_xy_bytes_be(x0 + x1 + y0 + y1)
    except ValueError as e:
        raise TssFormatError(f"{what}: {e}") from e


def scalar_le(data: bytes, what: str) -> Scalar:
    """A BLS12-381 scalar from 32 little-endian bytes, below the group order."""
    value = int.from_bytes(data, "little")
    if value >= BLS12_381_R:
        raise TssFormatError(f"{what}: expected a scalar below the BLS12-381 group order")
    return Scalar(value)


def field_element_le(data: bytes, modulus: int, what: str) -> int:
    """An element of a prime field from its little-endian bytes, below the modulus."""
    value = int.from_bytes(data, "little")
    if value >= modulus:
        raise TssFormatError(f"{what}: expected a field element below the modulus")
    return value


def g1_uncompressed_bytes(point: G1Point) -> bytes:
    """A G1 point as arkworks writes it uncompressed (the inverse of :func:`g1_uncompressed`)."""
    if point == G1Point.identity():
        return bytes([_INFINITY_FLAG]) + bytes(G1_BYTES - 1)
    return point.to_xy_bytes_be()


def g2_uncompressed_bytes(point: G2Point) -> bytes:
    """A G2 point as arkworks writes it uncompressed, each coordinate c1 ‖ c0."""
    if point == G2Point.identity():
        return bytes([_INFINITY_FLAG]) + bytes(G2_BYTES - 1)
    raw = point.to_xy_bytes_be()
    x0, x1, y0, y1 = (raw[i : i + FP_BYTES] for i in range(0, G2_BYTES, FP_BYTES))
    return x1 + x0 + y1 + y0


def compressed(point: G1Point | G2Point) -> bytes:
    """The point's compressed zcash encoding, as arkworks ``serialize_compressed`` writes it."""
    return point.to_compressed_bytes()


def scalar_bytes(value: Scalar) -> bytes:
    """A scalar's arkworks encoding (compressed and uncompressed alike): 32 bytes little-endian."""
    return value.to_le_bytes()
