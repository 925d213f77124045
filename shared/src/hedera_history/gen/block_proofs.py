"""The proofs of generated blocks: the nodes' RSA signatures of a wrapped record file, a TSS signature
of a native block's root, and a state proof of a block through a later block's signature.

A **state proof** of block N through block M (N < M) walks from N's root to M's, as the network
writes them (blocks 1-4 of the real ``tss-schnorr`` blocks, proven through block 5): block N's root
is the first leaf of block N+1's 16-leaf mountain top, so it climbs with that leaf's four right
siblings (the all-block-hashes root; the node over the state root and the consensus-header subtree;
the node over the next four leaves; the node over the eight extension leaves) to N+1's mountain
top, then with N+1's timestamp leaf on its left to N+1's root, and so on; at block M it stops at
the mountain top, where a second path, M's timestamp leaf, joins it from the left (a third path
with no content, next index -1) to make M's root, which M's signature signs.
"""

from __future__ import annotations

from collections.abc import Sequence

from hedera_history.errors import GeneratorError
from hedera_history.formats.block import BlockFile
from hedera_history.formats.block_hash import EMPTY_TREE_HASH, BlockHashes, internal_hash, streaming_root
from hedera_history.formats.block_protos import BlockItem
from hedera_history.gen.blocks import BlockDraft

FINAL_JOIN = 0xFFFFFFFF
"""``next_path_index`` -1 in the unsigned field: the path that ends at the signed root."""
_MOUNTAIN_LEAVES = 16


def record_file_proof_item(number: int, signatures: Sequence[tuple[int, bytes]], version: int = 6) -> bytes:
    """A ``signed_record_file_proof``: each (node id, RSA signature over the record file's hash)."""
    item = BlockItem()
    item.block_proof.block = number
    proof = item.block_proof.signed_record_file_proof
    proof.version = version
    for node_id, signature in signatures:
        proof.record_file_signatures.add(signatures_bytes=signature, node_id=node_id)
    return bytes(item.SerializeToString())


def signed_block_proof_item(number: int, signature: bytes) -> bytes:
    item = BlockItem()
    item.block_proof.block = number
    item.block_proof.signed_block_proof.block_signature = signature
    return bytes(item.SerializeToString())


def state_proof_item(proven: BlockDraft, later: Sequence[BlockDraft], signature: bytes) -> bytes:
    """Block ``proven``'s proof through the last of ``later`` (the blocks after it, in order, up to
    and including the signed one), whose TSS ``signature`` it carries."""
    siblings: list[tuple[bytes, bool]] = []
    for position, draft in enumerate(later):
        siblings += [(sibling, False) for sibling in _first_leaf_siblings(draft.block, draft.hashes)]
        if position < len(later) - 1:
            siblings.append((draft.hashes.timestamp_leaf, True))
    signed = later[-1].block
    item = BlockItem()
    item.block_proof.block = proven.number
    state_proof = item.block_proof.block_state_proof
    state_proof.paths.add(next_path_index=2, timestamp_leaf=signed.timestamp_bytes)
    root_path = state_proof.paths.add(next_path_index=2, hash=proven.hashes.root)
    for sibling, is_left in siblings:
        root_path.siblings.add(hash=sibling, is_left=is_left)
    state_proof.paths.add(next_path_index=FINAL_JOIN)
    state_proof.signed_block_proof.block_signature = signature
    return bytes(item.SerializeToString())


def _first_leaf_siblings(block: BlockFile, hashes: BlockHashes) -> tuple[bytes, ...]:
    """The right siblings of the mountain top's first leaf (the previous block's root), bottom up."""
    footer = block.footer
    leaves = (
        footer.previous_block_root_hash,
        footer.root_hash_of_all_block_hashes_tree,
        footer.start_of_block_state_root_hash or EMPTY_TREE_HASH,
        *hashes.subtree_roots,
    )
    if len(leaves) != _MOUNTAIN_LEAVES:
        raise GeneratorError(f"a mountain top has {_MOUNTAIN_LEAVES} leaves, got {len(leaves)}")
    return (
        leaves[1],
        internal_hash(leaves[2], leaves[3]),
        streaming_root(leaves[4:8]),
        streaming_root(leaves[8:16]),
    )
