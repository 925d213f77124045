"""How a Hedera record file becomes a Cardinal Streams block header (docs/cardinal.md).

Identity = the first 32 bytes of what the next file names as its predecessor (the end running hash;
V1/V2: the file hash), parent = the first 32 bytes of what this file names (the start running hash;
V1/V2: the previous file hash). A stateless producer knows both from the one file it verified, and
the parent of block N+1 is the identity of block N. Hedera has finality, so weight = number.
"""

from __future__ import annotations

from hedera_history.block import VerifiedBlock
from hedera_history.cardinal.chain_blocks import BlockHeader

IDENTITY_SIZE = 32


def block_header(block: VerifiedBlock) -> BlockHeader:
    return BlockHeader(
        hash=block.hash[:IDENTITY_SIZE],
        number=block.block_number,
        parent=block.previous_hash[:IDENTITY_SIZE],
        weight=block.block_number,
    )
