"""How a sub-batch's id is derived from its content (our rule; the spec leaves ids open)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Final

_DOMAIN: Final = b"cardinal-sub-batch\x00"


def sub_batch_id(block_hash: bytes, prefix: str, chunk_digests: Sequence[bytes]) -> bytes:
    """SHA-256 over the block hash, the prefix and the SHA-256 of each SubBatchMsg value in index
    order. Every producer derives the same id from the same content, and a consumer can tell
    whether the chunks it collected are the ones the Batch announced."""
    encoded_prefix = prefix.encode()
    material = [_DOMAIN, block_hash, len(encoded_prefix).to_bytes(4, "big"), encoded_prefix, *chunk_digests]
    return hashlib.sha256(b"".join(material)).digest()
