"""Signing an errata: a council member adds an Ed25519 signature over the body; a node writes a
signature file (V6 form) over the finished file. Council signatures come first: each one changes
the file, and so the hash the nodes sign."""

from __future__ import annotations

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

from hedera_history.errata.codec import encode_errata_file, parse_errata_file
from hedera_history.errata.errata_file import CouncilSignature
from hedera_history.formats.parsed_files import SignatureFile
from hedera_history.formats.signature import write_signature_v6
from hedera_history.verify.signatures import sign_hash


def add_council_signature(data: bytes, key: ed25519.Ed25519PrivateKey, name: str = "errata") -> bytes:
    """The errata file with ``key``'s signature over its body (replacing an earlier one by that key)."""
    errata = parse_errata_file(data, name)
    public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    others = [s for s in errata.council_signatures if s.public_key != public]
    signature = CouncilSignature(public, key.sign(errata.body_bytes))
    return encode_errata_file(errata.consensus_ns, errata.body_bytes, [*others, signature])


def node_signature_file(data: bytes, key: rsa.RSAPrivateKey, name: str = "errata") -> bytes:
    """A node's signature file for the errata file ``data``: file hash SHA-384 of the file,
    metadata hash SHA-384 of the body, each signed with RSA PKCS#1 v1.5 / SHA-384."""
    errata = parse_errata_file(data, name)
    return write_signature_v6(
        errata.file_hash,
        sign_hash(key, errata.file_hash),
        errata.body_hash,
        sign_hash(key, errata.body_hash),
    )


def v6_signature_form(signature: SignatureFile) -> bytes | None:
    """A node's errata signature as a V6 signature file holding exactly what it signed (the hashes
    and the two signatures), or None when it lacks the metadata part an errata signature has. The
    errata log keeps this form and proofs carry it; a verifier refuses any other bytes."""
    if signature.metadata_hash is None or signature.metadata_signature is None:
        return None
    return write_signature_v6(
        signature.file_hash, signature.file_signature, signature.metadata_hash, signature.metadata_signature
    )
