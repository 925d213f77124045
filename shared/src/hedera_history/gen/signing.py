"""V6 signature files: one byte 6, then a ``SignatureFile`` with the file and metadata signatures."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric import rsa

from hedera_history import hapi
from hedera_history.formats.hashing import HASH_SIZE
from hedera_history.verify.signatures import sign_hash

SIGNATURE_FILE_VERSION = 6
_SHA384_WITH_RSA = 1
_SHA_384 = 1
_CHECKSUM_BASE = 101
"""Real signature files carry ``checksum = 101 - length``."""


def _signature_object(target: hapi.SignatureObject, signature: bytes, digest: bytes) -> None:
    target.type = _SHA384_WITH_RSA
    target.length = len(signature)
    target.checksum = _CHECKSUM_BASE - len(signature)
    target.signature = signature
    target.hash_object.algorithm = _SHA_384
    target.hash_object.length = HASH_SIZE
    target.hash_object.hash = digest


def signature_file_bytes(
    file_hash: bytes, file_signature: bytes, metadata_hash: bytes, metadata_signature: bytes
) -> bytes:
    message = hapi.SignatureFile()
    _signature_object(message.file_signature, file_signature, file_hash)
    _signature_object(message.metadata_signature, metadata_signature, metadata_hash)
    serialised: bytes = message.SerializeToString()
    return bytes([SIGNATURE_FILE_VERSION]) + serialised


def signed_signature_file(key: rsa.RSAPrivateKey, file_hash: bytes, metadata_hash: bytes) -> bytes:
    """A node's signature file for a record file with these hashes."""
    return signature_file_bytes(file_hash, sign_hash(key, file_hash), metadata_hash, sign_hash(key, metadata_hash))
