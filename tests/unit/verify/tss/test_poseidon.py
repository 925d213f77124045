"""Poseidon (BN254, rate 4, 8 + 60 rounds) against the vector arkworks' folding-schemes checks it with
(circomlibjs: Poseidon(1, 2, 3, 4), the capacity element after the permutation)."""

from __future__ import annotations

from hedera_history import speedups
from hedera_history.verify.tss.poseidon import BN254_R, WIDTH, hash_bytes, hash_elements, permute, python_permute
from hypothesis import given, settings
from hypothesis import strategies as st

CIRCOM_POSEIDON_1_2_3_4 = 18821383157269793795438455681495246036402687001665670618754263018637548127333


def test_the_permutation_matches_circom_and_arkworks() -> None:
    assert permute([0, 1, 2, 3, 4])[0] == CIRCOM_POSEIDON_1_2_3_4


def test_four_elements_fill_the_rate_and_are_permuted_once() -> None:
    assert hash_elements([1, 2, 3, 4]) == permute([0, 1, 2, 3, 4])[1]


def test_a_fifth_element_is_absorbed_after_a_permutation() -> None:
    state = permute([0, 1, 2, 3, 4])
    state[1] = (state[1] + 5) % BN254_R
    assert hash_elements([1, 2, 3, 4, 5]) == permute(state)[1]


def test_bytes_are_read_in_32_byte_little_endian_chunks_the_last_one_short() -> None:
    data = bytes(range(40))
    chunks = [int.from_bytes(data[:32], "little"), int.from_bytes(data[32:], "little")]
    assert hash_bytes(data) == hash_elements(chunks)


def test_a_chunk_above_the_modulus_is_reduced() -> None:
    assert hash_bytes(b"\xff" * 32) == hash_elements([int.from_bytes(b"\xff" * 32, "little") % BN254_R])


def test_the_permutation_on_python_integers_matches_circom_too() -> None:
    assert python_permute([0, 1, 2, 3, 4])[0] == CIRCOM_POSEIDON_1_2_3_4


@settings(max_examples=60, deadline=None)
@given(
    state=st.lists(
        st.one_of(st.sampled_from([0, 1, BN254_R - 1]), st.integers(min_value=0, max_value=BN254_R - 1)),
        min_size=WIDTH,
        max_size=WIDTH,
    )
)
def test_the_compiled_permutation_is_the_python_one(state: list[int]) -> None:
    assert speedups.poseidon_permute is not None, "the compiled core did not build"
    assert permute(state) == python_permute(state)


def test_values_outside_the_field_take_the_python_permutation() -> None:
    state = [BN254_R, 1, 2, 3, 4 + BN254_R]
    assert permute(state) == python_permute(state) == permute([0, 1, 2, 3, 4])
