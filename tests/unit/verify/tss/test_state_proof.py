"""Block state proof walks: the real proofs of blocks 1–4, and the block node's rejections."""

from __future__ import annotations

import hashlib

import pytest
from hedera_history.errors import TssStateProofError
from hedera_history.verify.tss import MerklePath, walk_state_proof
from hedera_history.verify.tss.state_proof import Sibling

from tests.conformance.tss_blocks import (
    ROOTS,
    SIGNED_BLOCK_OF_STATE_PROOFS,
    SIGNED_BLOCK_TIME_NS,
    STATE_PROVEN,
    TssBlock,
)

ROOT = hashlib.sha384(b"block").digest()
OTHER = hashlib.sha384(b"other").digest()
FINAL = -1


def h(prefix: int, *parts: bytes) -> bytes:
    return hashlib.sha384(bytes([prefix]) + b"".join(parts)).digest()


def leaf(kind: str, content: bytes, next_index: int, *siblings: Sibling) -> MerklePath:
    return MerklePath(kind, content, siblings, next_index)


def join(next_index: int, *siblings: Sibling) -> MerklePath:
    return MerklePath(None, b"", siblings, next_index)


@pytest.mark.parametrize("number", STATE_PROVEN)
def test_the_real_proofs_lead_to_the_signed_blocks_root(tss_blocks: tuple[TssBlock, ...], number: int) -> None:
    block = tss_blocks[number]
    signed = walk_state_proof(block.paths, block.root)
    assert signed.root.hex() == ROOTS[SIGNED_BLOCK_OF_STATE_PROOFS]
    assert signed.timestamp_ns == SIGNED_BLOCK_TIME_NS


def test_the_final_index_arrives_as_unsigned_minus_one(tss_blocks: tuple[TssBlock, ...]) -> None:
    assert tss_blocks[1].paths[-1].next_path_index == FINAL


def test_siblings_fold_left_right_and_single_child() -> None:
    paths = [
        leaf("timestamp_leaf", b"\x08\x01", 2),
        leaf("hash", ROOT, 2, Sibling(OTHER, is_left=False), Sibling(b"", is_left=False), Sibling(OTHER, is_left=True)),
        join(FINAL),
    ]
    value = h(2, OTHER, h(1, h(2, ROOT, OTHER)))
    expected = h(2, h(0, b"\x08\x01"), value)
    signed = walk_state_proof(paths, ROOT)
    assert signed.root == expected
    assert signed.timestamp_ns == 1_000_000_000


def test_the_path_from_the_higher_index_goes_right_whichever_arrives_first() -> None:
    paths = [join(FINAL), leaf("hash", ROOT, 0), leaf("block_item_leaf", b"item", 0)]
    assert walk_state_proof(paths, ROOT).root == h(2, ROOT, h(0, b"item"))


def test_a_join_point_folds_its_own_siblings() -> None:
    paths = [leaf("hash", ROOT, 2), leaf("state_item_leaf", b"s", 2), join(FINAL, Sibling(OTHER, is_left=True))]
    assert walk_state_proof(paths, ROOT).root == h(2, OTHER, h(2, ROOT, h(0, b"s")))


def test_without_one_timestamp_leaf_there_is_no_time() -> None:
    paths = [leaf("hash", ROOT, 2), leaf("block_item_leaf", b"x", 2), join(FINAL)]
    assert walk_state_proof(paths, ROOT).timestamp_ns is None


@pytest.mark.parametrize(
    ("paths", "message"),
    [
        ([leaf("hash", ROOT, 1), join(FINAL)], "at least 3"),
        ([leaf("hash", ROOT, 5), leaf("hash", OTHER, 2), join(FINAL)], "past the last"),
        ([leaf("hash", ROOT, 1), leaf("hash", OTHER, 2), join(FINAL)], "a leaf where"),
        ([leaf("hash", ROOT, 2), leaf("hash", OTHER, 3), join(FINAL), join(FINAL)], "wait"),
        ([leaf("hash", ROOT, 2), leaf("hash", OTHER, 2), join(FINAL), join(FINAL)], "never reached"),
        ([leaf("hash", OTHER, 2), leaf("block_item_leaf", b"x", 2), join(FINAL)], "block's root"),
        ([join(1), join(2), join(FINAL)], "never reached"),
    ],
)
def test_malformed_proofs_are_rejected(paths: list[MerklePath], message: str) -> None:
    with pytest.raises(TssStateProofError, match=message):
        walk_state_proof(paths, ROOT)


def test_a_real_proof_does_not_prove_another_blocks_root(tss_blocks: tuple[TssBlock, ...]) -> None:
    with pytest.raises(TssStateProofError, match="block's root"):
        walk_state_proof(tss_blocks[1].paths, tss_blocks[2].root)
