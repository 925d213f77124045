"""Poseidon over the BN254 scalar field, as the WRAPS library hashes a hinTS verification key.

Parameters of ``poseidon_canonical_config`` (``folding-schemes``, ``transcript/poseidon.rs``): sponge
rate 4, capacity 1, S-box x⁵, 8 full and 60 partial rounds; round constants and the Cauchy MDS
matrix drawn from the Grain LFSR exactly as arkworks' ``find_poseidon_ark_and_mds`` draws them.
The sponge is arkworks' ``PoseidonSponge``: elements are added into the rate part of the state
(after the capacity element), the state is permuted when the rate is full and more input follows,
and the first rate element after one more permutation is the hash (``PoseidonCRH::evaluate``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

from hedera_history.speedups import poseidon_permute as compiled_permute

BN254_R = 21888242871839275222246405745257275088548364400416034343698204186575808495617
"""Order of BN254's groups: the field Poseidon works in (and ed_on_bn254's base field)."""

RATE = 4
CAPACITY = 1
WIDTH = RATE + CAPACITY
ALPHA = 5
FULL_ROUNDS = 8
PARTIAL_ROUNDS = 60
CHUNK_BYTES = 32


class _GrainLfsr:
    """The 80-bit Grain LFSR of the Poseidon paper, seeded with the instance's parameters."""

    def __init__(self, field_bits: int, width: int, full_rounds: int, partial_rounds: int) -> None:
        bits = [0, 1, 0, 0, 0, 0]  # field: prime; S-box: x^alpha (not the inverse)
        for value, size in ((field_bits, 12), (width, 12), (full_rounds, 10), (partial_rounds, 10)):
            bits += [(value >> shift) & 1 for shift in range(size - 1, -1, -1)]
        bits += [1] * 30
        self._state = bits
        self._head = 0
        for _ in range(160):
            self._next()

    def _next(self) -> int:
        s, h = self._state, self._head
        bit = s[(h + 62) % 80] ^ s[(h + 51) % 80] ^ s[(h + 38) % 80] ^ s[(h + 23) % 80] ^ s[(h + 13) % 80] ^ s[h]
        s[h] = bit
        self._head = (h + 1) % 80
        return bit

    def _filtered_bits(self, count: int) -> int:
        """``count`` output bits, most significant first: a bit is kept only after a 1."""
        value = 0
        for _ in range(count):
            while not self._next():
                self._next()
            value = value << 1 | self._next()
        return value

    def rejection_sampled(self, bits: int, modulus: int) -> int:
        while True:
            value = self._filtered_bits(bits)
            if value < modulus:
                return value

    def reduced(self, bits: int, modulus: int) -> int:
        return self._filtered_bits(bits) % modulus


@cache
def _constants() -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """Round constants (one row per round) and the MDS matrix."""
    bits = BN254_R.bit_length()
    lfsr = _GrainLfsr(bits, WIDTH, FULL_ROUNDS, PARTIAL_ROUNDS)
    rounds = FULL_ROUNDS + PARTIAL_ROUNDS
    ark = tuple(tuple(lfsr.rejection_sampled(bits, BN254_R) for _ in range(WIDTH)) for _ in range(rounds))
    xs = [lfsr.reduced(bits, BN254_R) for _ in range(WIDTH)]
    ys = [lfsr.reduced(bits, BN254_R) for _ in range(WIDTH)]
    mds = tuple(tuple(pow(x + y, -1, BN254_R) for y in ys) for x in xs)
    return ark, mds


@cache
def _encoded_constants() -> tuple[bytes, bytes]:
    """The round constants and the MDS matrix as the compiled core takes them."""
    ark, mds = _constants()
    return _encoded(value for row in ark for value in row), _encoded(value for row in mds for value in row)


def _encoded(values: Iterable[int]) -> bytes:
    return b"".join(value.to_bytes(CHUNK_BYTES, "little") for value in values)


def permute(state: Sequence[int]) -> list[int]:
    """The Poseidon permutation of a width-5 state."""
    if compiled_permute is not None and len(state) == WIDTH and all(0 <= value < BN254_R for value in state):
        permuted = compiled_permute(_encoded(state), *_encoded_constants(), FULL_ROUNDS)
        return [
            int.from_bytes(permuted[at : at + CHUNK_BYTES], "little") for at in range(0, len(permuted), CHUNK_BYTES)
        ]
    return python_permute(state)


def python_permute(state: Sequence[int]) -> list[int]:
    """:func:`permute` on Python integers (where the compiled core is absent, or for any values)."""
    ark, mds = _constants()
    p = BN254_R
    current = list(state)
    half = FULL_ROUNDS // 2
    for round_index, constants in enumerate(ark):
        # Values may exceed p between rounds' steps; each S-box and the MDS product reduce them.
        current = [value + constant for value, constant in zip(current, constants, strict=True)]
        if round_index < half or round_index >= half + PARTIAL_ROUNDS:
            current = [pow(value, ALPHA, p) for value in current]
        else:
            current[0] = pow(current[0], ALPHA, p)
        a, b, c, d, e = current
        current = [(m0 * a + m1 * b + m2 * c + m3 * d + m4 * e) % p for m0, m1, m2, m3, m4 in mds]
    return current


def hash_elements(elements: Sequence[int]) -> int:
    """``PoseidonCRH::evaluate``: absorb every element, squeeze one."""
    state = [0] * WIDTH
    position = 0
    for element in elements:
        if position == RATE:
            state = permute(state)
            position = 0
        state[CAPACITY + position] = (state[CAPACITY + position] + element) % BN254_R
        position += 1
    return permute(state)[CAPACITY]


def hash_bytes(data: bytes) -> int:
    """The WRAPS library's ``hash_hints_vk`` (any byte string): 32-byte little-endian chunks, the
    last one shorter if need be, each reduced into the field, hashed as elements."""
    chunks = (data[start : start + CHUNK_BYTES] for start in range(0, len(data), CHUNK_BYTES))
    return hash_elements([int.from_bytes(chunk, "little") % BN254_R for chunk in chunks])
