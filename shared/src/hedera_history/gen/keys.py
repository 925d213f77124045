"""Deterministic test keys: RSA-3072 node keys, Ed25519 council and account keys, all from a seed.

RSA primes come from a seeded ``random.Random`` (see :mod:`hedera_history.gen.primes`). That takes
about a second per key, so keys are cached in memory and on disk, under the folder named by
``HEDERA_HISTORY_KEY_CACHE_DIR`` (default ``~/.cache/hedera-history/keys``). A cache file is named
by a hash of what derives the key, so a stale or foreign file can never be mistaken for another key.
These keys are for tests and demos only.
"""

from __future__ import annotations

import hashlib
import os
import random
import tempfile
import threading
from math import lcm
from pathlib import Path

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, decode_dss_signature

from hedera_history.config import Settings
from hedera_history.formats.evm import keccak256
from hedera_history.gen.primes import seeded_prime

RSA_BITS = 3072
RSA_PUBLIC_EXPONENT = 65537
_DERIVATION = "hedera-history/keys/v1"
"""Part of every key label: change it whenever the derivation changes, so old cache files are not used."""

_memory: dict[str, rsa.RSAPrivateKey] = {}
_lock = threading.Lock()


def key_cache_dir(settings: Settings | None = None) -> Path:
    """Where RSA node keys are cached on disk."""
    configured = (settings or Settings.from_env()).key_cache_dir
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "hedera-history" / "keys"


def node_key_label(seed: int, node_id: int, generation: int) -> str:
    """What derives a node key: the seed, the node and the key's generation (0, then 1 after a rotation)."""
    return f"{_DERIVATION}/node-rsa/{seed}/{node_id}/{generation}"


def node_rsa_key(seed: int, node_id: int, generation: int = 0, *, cache_dir: Path | None = None) -> rsa.RSAPrivateKey:
    """The RSA-3072 key of ``node_id`` for ``seed``; the same arguments always give the same key."""
    label = node_key_label(seed, node_id, generation)
    with _lock:
        cached = _memory.get(label)
    if cached is not None:
        return cached
    folder = cache_dir if cache_dir is not None else key_cache_dir()
    path = folder / f"rsa{RSA_BITS}-{hashlib.sha256(label.encode()).hexdigest()[:32]}.pem"
    key = _load_cached(path)
    if key is None:
        key = rsa_key_from_label(label)
        _store_cached(path, key)
    with _lock:
        _memory[label] = key
    return key


def rsa_key_from_label(label: str, bits: int = RSA_BITS) -> rsa.RSAPrivateKey:
    """Derive an RSA key from ``label`` alone (slow: pure-Python prime search)."""
    rng = random.Random(label)
    half = bits // 2
    p = seeded_prime(rng, half, coprime_to=RSA_PUBLIC_EXPONENT)
    q = seeded_prime(rng, half, coprime_to=RSA_PUBLIC_EXPONENT)
    while q == p:
        q = seeded_prime(rng, half, coprime_to=RSA_PUBLIC_EXPONENT)
    d = pow(RSA_PUBLIC_EXPONENT, -1, lcm(p - 1, q - 1))
    numbers = rsa.RSAPrivateNumbers(
        p=p,
        q=q,
        d=d,
        dmp1=rsa.rsa_crt_dmp1(d, p),
        dmq1=rsa.rsa_crt_dmq1(d, q),
        iqmp=rsa.rsa_crt_iqmp(p, q),
        public_numbers=rsa.RSAPublicNumbers(RSA_PUBLIC_EXPONENT, p * q),
    )
    # The numbers were just derived and are consistent; OpenSSL's own check re-tests the primes (slow).
    return numbers.private_key(unsafe_skip_rsa_key_validation=True)


def council_key(seed: int, index: int) -> ed25519.Ed25519PrivateKey:
    """Ed25519 key number ``index`` of the errata council for ``seed``."""
    return _ed25519(f"{_DERIVATION}/council-ed25519/{seed}/{index}")


def account_key(seed: int, account_num: int, generation: int = 0) -> ed25519.Ed25519PrivateKey:
    """The Ed25519 key that signs transactions paid by account ``0.0.<account_num>``; a
    ``generation`` above 0 is a key a CryptoUpdate gave the account."""
    suffix = f"/{generation}" if generation else ""
    return _ed25519(f"{_DERIVATION}/account-ed25519/{seed}/{account_num}{suffix}")


def ed25519_public_bytes(key: ed25519.Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def private_pem(key: rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def public_pem(key: rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def public_der(key: rsa.RSAPrivateKey) -> bytes:
    """X.509 SubjectPublicKeyInfo DER, as an address book's ``RSA_PubKey`` holds it (in hex)."""
    return key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def _ed25519(label: str) -> ed25519.Ed25519PrivateKey:
    return ed25519.Ed25519PrivateKey.from_private_bytes(hashlib.sha256(label.encode()).digest())


def _load_cached(path: Path) -> rsa.RSAPrivateKey | None:
    # OpenSSL's key check re-tests the primes (a quarter second per key); the arithmetic below
    # catches a damaged file just as well for keys we wrote ourselves.
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None, unsafe_skip_rsa_key_validation=True)
    except (OSError, ValueError, TypeError):
        return None  # missing or unreadable: derive it again
    if not isinstance(key, rsa.RSAPrivateKey) or key.key_size != RSA_BITS:
        return None
    numbers = key.private_numbers()
    public = numbers.public_numbers
    consistent = (
        public.e == RSA_PUBLIC_EXPONENT
        and numbers.p * numbers.q == public.n
        and public.e * numbers.d % lcm(numbers.p - 1, numbers.q - 1) == 1
    )
    return key if consistent else None


def _store_cached(path: Path, key: rsa.RSAPrivateKey) -> None:
    # Best effort: a read-only home must not stop generation. Written to a temporary file first
    # and renamed, so parallel test workers never read half a file.
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".tmp-", delete=False) as handle:
            handle.write(private_pem(key))
        os.replace(handle.name, path)
    except OSError:
        return


_SECP256K1_ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def ecdsa_key(seed: int, index: int) -> ec.EllipticCurvePrivateKey:
    """The ``index``-th ECDSA secp256k1 key of ``seed`` (test keys only)."""
    digest = hashlib.sha256(f"{_DERIVATION}/account-ecdsa/{seed}/{index}".encode()).digest()
    scalar = int.from_bytes(digest, "big") % (_SECP256K1_ORDER - 1) + 1
    return ec.derive_private_key(scalar, ec.SECP256K1())


def compressed_public(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint)


def evm_address_of(key: ec.EllipticCurvePrivateKey) -> bytes:
    """The last 20 bytes of the Keccak-256 of the uncompressed public point (without its 0x04)."""
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return keccak256(point[1:])[-20:]


def ecdsa_signature(key: ec.EllipticCurvePrivateKey, body_bytes: bytes) -> bytes:
    """``r ‖ s`` (32 bytes each) over the Keccak-256 of the body, as Hedera's ECDSA signatures are;
    deterministic (RFC 6979), so a seed gives the same bytes."""
    der = key.sign(keccak256(body_bytes), ec.ECDSA(Prehashed(hashes.SHA256()), deterministic_signing=True))
    r, s = decode_dss_signature(der)
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")
