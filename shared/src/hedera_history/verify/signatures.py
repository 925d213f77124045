"""Node signatures: RSA PKCS#1 v1.5 with SHA-384, over the 48-byte hash itself."""

from __future__ import annotations

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey

from hedera_history.books.address_book import NodeEntry
from hedera_history.errors import BadSignatureError
from hedera_history.formats.parsed_files import SignatureFile


def verify_node_signature(sig: SignatureFile, node: NodeEntry) -> None:
    """Check the file signature, and the metadata signature when the file carries one."""
    _verify(node, sig.file_signature, sig.file_hash, "file", sig.name)
    if (sig.metadata_hash is None) != (sig.metadata_signature is None):
        raise BadSignatureError(
            "metadata hash and metadata signature must come together: expected both or neither",
            file=sig.name,
            node=node.account,
        )
    if sig.metadata_hash is not None and sig.metadata_signature is not None:
        _verify(node, sig.metadata_signature, sig.metadata_hash, "metadata", sig.name)


def signature_problem(sig: SignatureFile, node: NodeEntry) -> str | None:
    """Why ``sig`` does not count as ``node``'s signature (``bad signature: ...``), or None when it verifies."""
    try:
        verify_node_signature(sig, node)
    except BadSignatureError as e:
        return f"bad signature: {e.reason}"
    return None


def sign_hash(key: RSAPrivateKey, digest: bytes) -> bytes:
    """What a node writes into its signature file for ``digest`` (for the generator and tests)."""
    return key.sign(digest, padding.PKCS1v15(), hashes.SHA384())


def _verify(node: NodeEntry, signature: bytes, digest: bytes, what: str, file: str) -> None:
    try:
        node.public_key.verify(signature, digest, padding.PKCS1v15(), hashes.SHA384())
    except InvalidSignature as e:
        raise BadSignatureError(
            f"{what} signature does not verify with the node's key over {what} hash {digest.hex()[:16]}…",
            file=file,
            node=node.account,
        ) from e
