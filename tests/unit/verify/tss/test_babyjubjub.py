"""ed_on_bn254 arithmetic and its arkworks encodings."""

from __future__ import annotations

import pytest
from hedera_history import speedups
from hedera_history.errors import TssFormatError
from hedera_history.verify.tss import babyjubjub
from hedera_history.verify.tss.babyjubjub import (
    COFACTOR,
    GENERATOR,
    IDENTITY,
    ORDER,
    D,
    Point,
    Q,
    point_uncompressed,
    scalar_le,
)
from hypothesis import given, settings
from hypothesis import strategies as st


def test_d_is_the_classic_curve_scaled_to_a_equal_one() -> None:
    assert D * 168700 % Q == 168696


def test_the_generator_is_on_the_curve_and_of_prime_order() -> None:
    assert GENERATOR.is_on_curve()
    assert GENERATOR.is_in_subgroup()
    assert GENERATOR * ORDER == IDENTITY
    assert GENERATOR * (ORDER + 1) == GENERATOR


def test_addition_is_a_group_law() -> None:
    two, three = GENERATOR * 2, GENERATOR * 3
    assert two == GENERATOR + GENERATOR
    assert two + GENERATOR == three
    assert three + (-three) == IDENTITY
    assert three + IDENTITY == three


def test_a_point_round_trips_through_its_uncompressed_encoding() -> None:
    point = GENERATOR * 12345
    assert point_uncompressed(point.uncompressed(), "p") == point


def test_the_compressed_encoding_is_y_with_the_sign_of_x_in_the_top_bit() -> None:
    point = GENERATOR * 7
    negated = -point
    assert point.compressed()[:31] == negated.compressed()[:31]
    assert {point.compressed()[31] & 0x80, negated.compressed()[31] & 0x80} == {0, 0x80}
    assert IDENTITY.compressed() == (1).to_bytes(32, "little")


def test_a_point_off_the_curve_is_refused() -> None:
    with pytest.raises(TssFormatError, match="not on"):
        point_uncompressed(Point(GENERATOR.x, GENERATOR.y + 1).uncompressed(), "p")


def test_a_point_of_small_order_is_refused() -> None:
    order_two = Point(0, Q - 1)
    assert order_two.is_on_curve()
    assert order_two * COFACTOR == IDENTITY
    with pytest.raises(TssFormatError, match="subgroup"):
        point_uncompressed(order_two.uncompressed(), "p")


def test_a_coordinate_at_the_modulus_is_refused() -> None:
    with pytest.raises(TssFormatError, match="modulus"):
        point_uncompressed(Q.to_bytes(32, "little") + (1).to_bytes(32, "little"), "p")


def test_a_scalar_at_the_order_is_refused() -> None:
    assert scalar_le((ORDER - 1).to_bytes(32, "little"), "s") == ORDER - 1
    with pytest.raises(TssFormatError):
        scalar_le(ORDER.to_bytes(32, "little"), "s")


def _python_product(point: Point, scalar: int) -> Point | None:
    try:
        return babyjubjub._affine(babyjubjub._multiply(babyjubjub._extended(point), scalar))
    except ValueError:  # z ended at 0: no inverse
        return None


def _compiled_product(point: Point, scalar: int) -> Point | None:
    assert speedups.babyjubjub_multiply is not None, "the compiled core did not build"
    product = speedups.babyjubjub_multiply(point.uncompressed(), scalar.to_bytes(32, "little"))
    return (
        None
        if product is None
        else Point(int.from_bytes(product[:32], "little"), int.from_bytes(product[32:], "little"))
    )


_SCALARS = st.one_of(
    st.sampled_from([0, 1, 2, 3, COFACTOR, ORDER - 1, ORDER, ORDER + 1, Q - 1, Q, (1 << 256) - 1]),
    st.integers(min_value=0, max_value=(1 << 256) - 1),
)


@settings(max_examples=200, deadline=None)
@given(multiple=st.integers(min_value=0, max_value=ORDER - 1), scalar=_SCALARS)
def test_the_compiled_product_of_a_curve_point_is_the_python_one(multiple: int, scalar: int) -> None:
    point = babyjubjub._affine(babyjubjub._multiply(babyjubjub._extended(GENERATOR), multiple))
    assert _compiled_product(point, scalar) == _python_product(point, scalar)
    assert point * scalar == _python_product(point, scalar)


@settings(max_examples=100, deadline=None)
@given(x=st.integers(min_value=0, max_value=Q - 1), y=st.integers(min_value=0, max_value=Q - 1), scalar=_SCALARS)
def test_the_compiled_product_of_any_coordinates_is_the_python_one(x: int, y: int, scalar: int) -> None:
    # Off the curve the formula is no group law, but both sides run the same steps on the same field.
    assert _compiled_product(Point(x, y), scalar) == _python_product(Point(x, y), scalar)


def test_the_compiled_core_refuses_coordinates_at_the_modulus() -> None:
    assert speedups.babyjubjub_multiply is not None, "the compiled core did not build"
    with pytest.raises(ValueError):
        speedups.babyjubjub_multiply(Q.to_bytes(32, "little") + bytes(32), bytes(32))
    assert Point(Q, 1) * 2 == _python_product(Point(Q, 1), 2)  # the Python code takes it
