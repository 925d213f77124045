"""Fixtures for verification tests: a few RSA keys per session (2048-bit: size does not matter here)."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from hedera_history.books.address_book import AddressBook, address_book_from_keys


@pytest.fixture(scope="session")
def node_keys() -> dict[int, rsa.RSAPrivateKey]:
    """Account number -> private key for nodes 0.0.3 to 0.0.6."""
    return {num: rsa.generate_private_key(public_exponent=65537, key_size=2048) for num in (3, 4, 5, 6)}


@pytest.fixture(scope="session")
def spare_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="session")
def book(node_keys: dict[int, rsa.RSAPrivateKey]) -> AddressBook:
    return address_book_from_keys((f"0.0.{num}", key.public_key()) for num, key in node_keys.items())
