"""Deterministic probable primes for seeded RSA test keys (never for real keys)."""

from __future__ import annotations

import random

_SIEVE_LIMIT = 1 << 16
_WINDOW = 4096
"""Odd candidates sieved at once; primes near 2**1536 are about 1064 apart, so a window holds several."""


def _small_odd_primes(limit: int) -> tuple[int, ...]:
    composite = bytearray(limit)
    primes: list[int] = []
    for n in range(3, limit, 2):
        if not composite[n]:
            primes.append(n)
            composite[n * n :: 2 * n] = b"\x01" * len(range(n * n, limit, 2 * n))
    return tuple(primes)


_SMALL_PRIMES = _small_odd_primes(_SIEVE_LIMIT)


def is_probable_prime(n: int, rng: random.Random, rounds: int) -> bool:
    """Miller-Rabin with ``rounds`` bases drawn from ``rng``."""
    if n < 4:
        return n in (2, 3)
    if n % 2 == 0:
        return False
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for _ in range(rounds):
        x = pow(rng.randrange(2, n - 1), d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def seeded_prime(rng: random.Random, bits: int, *, coprime_to: int, rounds: int = 5) -> int:
    """A probable prime of exactly ``bits`` bits with its top two bits set, so a product of two
    has exactly ``2 * bits`` bits; ``p - 1`` is coprime to the prime ``coprime_to`` (the RSA exponent).
    """
    top_bits = 0b11 << (bits - 2)
    while True:
        start = rng.getrandbits(bits) | top_bits | 1
        composite = bytearray(_WINDOW)
        for p in _SMALL_PRIMES:
            # first k with start + 2k divisible by p: 2k = -start (mod p)
            k = (-start % p) * ((p + 1) // 2) % p
            composite[k::p] = b"\x01" * len(range(k, _WINDOW, p))
        for k in range(_WINDOW):
            if composite[k]:
                continue
            candidate = start + 2 * k
            if candidate.bit_length() != bits:
                break
            if pow(2, candidate - 1, candidate) != 1 or (candidate - 1) % coprime_to == 0:
                continue
            if is_probable_prime(candidate, rng, rounds):
                return candidate
