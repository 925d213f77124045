"""Seeded keys: deterministic, cached on disk, and never mistaken for another seed's."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from hedera_history.config import Settings
from hedera_history.gen import keys
from hedera_history.gen.primes import is_probable_prime, seeded_prime


def test_derivation_is_deterministic_and_valid() -> None:
    first = keys.rsa_key_from_label("test/a", bits=1024)
    second = keys.rsa_key_from_label("test/a", bits=1024)
    other = keys.rsa_key_from_label("test/b", bits=1024)
    numbers = first.private_numbers()
    assert numbers == second.private_numbers()
    assert numbers.public_numbers.n != other.private_numbers().public_numbers.n
    assert first.key_size == 1024 and numbers.public_numbers.e == 65537
    signature = first.sign(b"x" * 48, padding.PKCS1v15(), hashes.SHA384())
    first.public_key().verify(signature, b"x" * 48, padding.PKCS1v15(), hashes.SHA384())


def test_seeded_prime_has_the_asked_shape() -> None:
    rng = random.Random("primes")
    prime = seeded_prime(rng, 256, coprime_to=65537)
    assert prime.bit_length() == 256 and prime >> 254 == 0b11
    assert is_probable_prime(prime, random.Random(1), 20)
    assert (prime - 1) % 65537 != 0
    assert not is_probable_prime(prime * 3, random.Random(1), 20)


def test_node_keys_are_cached_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = keys.node_rsa_key(0, 0)  # from the usual caches
    monkeypatch.setattr(keys, "_memory", {})
    derived: list[str] = []

    def fake_derive(label: str, bits: int = keys.RSA_BITS) -> rsa.RSAPrivateKey:
        derived.append(label)
        return real

    monkeypatch.setattr(keys, "rsa_key_from_label", fake_derive)
    assert keys.node_rsa_key(0, 0, cache_dir=tmp_path) is real
    assert len(derived) == 1 and len(list(tmp_path.glob("rsa3072-*.pem"))) == 1
    monkeypatch.setattr(keys, "_memory", {})
    loaded = keys.node_rsa_key(0, 0, cache_dir=tmp_path)
    assert len(derived) == 1  # read back, not derived again
    assert loaded.private_numbers() == real.private_numbers()


def test_a_damaged_cache_file_is_derived_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = keys.node_rsa_key(0, 1)
    monkeypatch.setattr(keys, "_memory", {})
    monkeypatch.setattr(keys, "rsa_key_from_label", lambda label, bits=3072: real)
    keys.node_rsa_key(0, 1, cache_dir=tmp_path)
    (cached,) = tmp_path.glob("*.pem")
    cached.write_bytes(b"not a key")
    monkeypatch.setattr(keys, "_memory", {})
    assert keys.node_rsa_key(0, 1, cache_dir=tmp_path).private_numbers() == real.private_numbers()
    assert cached.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")


def test_cache_folder_comes_from_settings(tmp_path: Path) -> None:
    settings = Settings.from_env({"HEDERA_HISTORY_KEY_CACHE_DIR": str(tmp_path)})
    assert keys.key_cache_dir(settings) == tmp_path
    assert keys.key_cache_dir(Settings.from_env({})).parts[-3:] == (".cache", "hedera-history", "keys")


def test_council_and_account_keys_are_seeded() -> None:
    assert keys.ed25519_public_bytes(keys.council_key(0, 1)) == keys.ed25519_public_bytes(keys.council_key(0, 1))
    assert keys.ed25519_public_bytes(keys.council_key(0, 1)) != keys.ed25519_public_bytes(keys.council_key(1, 1))
    assert keys.ed25519_public_bytes(keys.account_key(0, 1001)) != keys.ed25519_public_bytes(keys.council_key(0, 1001))
