"""The zcash layout arkworks writes BLS12-381 points in, read through py_arkworks_bls12381."""

from __future__ import annotations

import pytest
from hedera_history.errors import TssFormatError
from hedera_history.verify.tss.serialization import (
    Reader,
    compressed,
    g1_uncompressed,
    g1_uncompressed_bytes,
    g2_uncompressed,
    g2_uncompressed_bytes,
)
from py_arkworks_bls12381 import G1Point, G2Point, Scalar

G2_GENERATOR_X_C1 = "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"


def zcash_g2(point: G2Point) -> bytes:
    """The binding writes each coordinate c0 ‖ c1; zcash (and arkworks) write c1 ‖ c0."""
    raw = point.to_xy_bytes_be()
    x0, x1, y0, y1 = (raw[i : i + 48] for i in range(0, 192, 48))
    return x1 + x0 + y1 + y0


def test_a_g2_coordinate_is_read_c1_first() -> None:
    generator = G2Point()
    encoded = zcash_g2(generator)
    assert encoded[:48].hex() == G2_GENERATOR_X_C1
    assert g2_uncompressed(encoded, "g2") == generator
    assert compressed(generator)[:48].hex()[1:] == G2_GENERATOR_X_C1[1:]
    assert compressed(generator)[0] & 0x80


def test_a_g1_point_round_trips() -> None:
    point = G1Point() * Scalar(424242)
    assert g1_uncompressed(point.to_xy_bytes_be(), "g1") == point


def test_the_point_at_infinity_is_its_flag_and_zeros() -> None:
    assert g1_uncompressed(b"\x40" + bytes(95), "g1") == G1Point.identity()
    assert g2_uncompressed(b"\x40" + bytes(191), "g2") == G2Point.identity()
    with pytest.raises(TssFormatError, match="all zero"):
        g1_uncompressed(b"\x40" + bytes(94) + b"\x01", "g1")


def test_a_sort_flag_is_refused() -> None:
    encoded = bytearray(G1Point().to_xy_bytes_be())
    encoded[0] |= 0x20
    with pytest.raises(TssFormatError, match="uncompressed"):
        g1_uncompressed(bytes(encoded), "g1")


def test_the_reader_names_the_field_that_runs_out() -> None:
    reader = Reader(bytes(10), "thing")
    assert reader.u64("count") == 0
    with pytest.raises(TssFormatError, match=r"thing\.weight: expected 32 bytes at offset 8"):
        reader.scalar("weight")


def test_the_writers_invert_the_readers() -> None:
    g1, g2 = G1Point() * Scalar(99), G2Point() * Scalar(77)
    assert g1_uncompressed(g1_uncompressed_bytes(g1), "g1") == g1
    assert g2_uncompressed_bytes(g2) == zcash_g2(g2)
    assert g2_uncompressed(g2_uncompressed_bytes(g2), "g2") == g2
    assert g1_uncompressed_bytes(G1Point.identity()) == b"\x40" + bytes(95)
    assert g2_uncompressed(g2_uncompressed_bytes(G2Point.identity()), "g2") == G2Point.identity()
