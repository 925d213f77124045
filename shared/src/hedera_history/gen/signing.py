"""A node's signature file over a record file's hashes, in the format of the record file's era."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric import rsa

from hedera_history.errors import GeneratorError
from hedera_history.formats.signature import write_signature_file
from hedera_history.verify.signatures import sign_hash


def signed_signature_file(
    key: rsa.RSAPrivateKey, file_hash: bytes, metadata_hash: bytes | None, *, version: int = 6
) -> bytes:
    """The signature file a node writes for a record file of ``version`` with these hashes.

    V1 and V2 files are signed by their file hash alone; V5 and V6 also by the metadata hash.
    """
    if version in (1, 2):
        return write_signature_file(version, file_hash, sign_hash(key, file_hash))
    if metadata_hash is None:
        raise GeneratorError(f"a V{version} signature file needs a metadata hash")
    return write_signature_file(
        version, file_hash, sign_hash(key, file_hash), metadata_hash, sign_hash(key, metadata_hash)
    )
