"""Hashing bytes to a prime-field element as arkworks' ``DefaultFieldHasher<Sha256>`` does.

RFC 9380 ``expand_message_xmd`` with SHA-256, then the big-endian bytes reduced modulo the field.
One difference from the RFC matters: arkworks 0.4 (which hinTS uses) pads the message with as many
zero bytes as one field element takes (48 for the 255-bit BLS12-381 scalar field), not with
SHA-256's 64-byte block; the WRAPS library's arkworks does the same, so :func:`hash_to_field`
always pads that way (:func:`expand_message_xmd` takes the pad, for the RFC's own vectors).
"""

from __future__ import annotations

import hashlib

SECURITY_BITS = 128
_SHA256_BYTES = 32
_MAX_DST_BYTES = 255


def element_bytes(modulus: int) -> int:
    """How many uniform bytes one element takes: ⌈(bits of the modulus + 128) / 8⌉."""
    return (modulus.bit_length() + SECURITY_BITS + 7) // 8


def expand_message_xmd(message: bytes, dst: bytes, length: int, *, zero_pad: int) -> bytes:
    """``length`` uniform bytes from ``message`` under the domain-separation tag ``dst``."""
    blocks = (length + _SHA256_BYTES - 1) // _SHA256_BYTES
    if blocks > 255 or length > 0xFFFF:
        raise ValueError(f"cannot expand to {length} bytes")
    if len(dst) > _MAX_DST_BYTES:
        dst = hashlib.sha256(b"H2C-OVERSIZE-DST-" + dst).digest()
    dst_prime = dst + bytes([len(dst)])
    b0 = hashlib.sha256(bytes(zero_pad) + message + length.to_bytes(2, "big") + b"\x00" + dst_prime).digest()
    block = hashlib.sha256(b0 + b"\x01" + dst_prime).digest()
    uniform = bytearray(block)
    for index in range(2, blocks + 1):
        mixed = bytes(a ^ b for a, b in zip(b0, block, strict=True))
        block = hashlib.sha256(mixed + bytes([index]) + dst_prime).digest()
        uniform += block
    return bytes(uniform[:length])


def hash_to_field(message: bytes, dst: bytes, modulus: int) -> int:
    """One element of the prime field of ``modulus`` hashed from ``message``, zero-padded as
    arkworks pads (one element's length)."""
    size = element_bytes(modulus)
    uniform = expand_message_xmd(message, dst, size, zero_pad=size)
    return int.from_bytes(uniform, "big") % modulus
