"""Footer links between blocks: previous root, all-block-hashes tree, gaps, order."""

from __future__ import annotations

from hedera_history.errors import BlockNumberMismatchError, BrokenChainError
from hedera_history.formats.block import serialize_block
from hedera_history.formats.block_hash import EMPTY_TREE_HASH, block_root_hash
from hedera_history.verify.block_chain import BlockChain, Link

from tests.unit.formats.block_files import BlockSpec, block_bytes, body_items, chain, linked_blocks, parsed


def _run(blocks: list[bytes]) -> list[tuple[Link, Link, str | None]]:
    run = BlockChain()
    out = []
    for data in blocks:
        block = parsed(data, f"{parsed(data).number}.blk")
        links, error = run.link(block, block_root_hash(block))
        out.append((links.previous_root, links.all_block_hashes_root, error.kind if error else None))
    return out


def test_a_chain_from_block_0_links_every_footer() -> None:
    assert _run(linked_blocks(6)) == [(Link.OK, Link.OK, None)] * 6


def test_a_run_starting_later_cannot_check_the_first_link_nor_the_tree() -> None:
    blocks = chain([BlockSpec(n, body_items(n)) for n in range(4, 8)])
    results = _run(blocks)
    assert results[0] == (Link.UNVERIFIABLE, Link.UNVERIFIABLE, None)
    assert results[1:] == [(Link.OK, Link.UNVERIFIABLE, None)] * 3


def test_a_gap_makes_the_next_links_unverifiable() -> None:
    blocks = linked_blocks(5)
    results = _run(blocks[:2] + blocks[3:])
    assert results[2] == (Link.UNVERIFIABLE, Link.UNVERIFIABLE, None)
    assert results[3] == (Link.OK, Link.UNVERIFIABLE, None)


def test_one_byte_of_one_item_changed_breaks_the_next_link() -> None:
    blocks = linked_blocks(3)
    block = parsed(blocks[1])
    items = [item.data for item in block.items]
    items[3] = items[3][:-1] + bytes([items[3][-1] ^ 1])
    tampered = serialize_block(items)
    assert block_root_hash(parsed(tampered)) != block_root_hash(block)
    results = _run([blocks[0], tampered, blocks[2]])
    assert results[:2] == [(Link.OK, Link.OK, None)] * 2
    assert results[2] == (Link.BROKEN, Link.BROKEN, BrokenChainError("x").kind)


def test_a_block_0_must_name_the_empty_tree() -> None:
    wrong = block_bytes(BlockSpec(0, body_items(0)), b"\x01" * 48, EMPTY_TREE_HASH)
    assert _run([wrong]) == [(Link.BROKEN, Link.OK, BrokenChainError("x").kind)]
    late = block_bytes(BlockSpec(1, body_items(1)), EMPTY_TREE_HASH, EMPTY_TREE_HASH)
    assert _run([linked_blocks(1)[0], late])[1] == (Link.BROKEN, Link.BROKEN, BrokenChainError("x").kind)


def test_numbers_must_ascend() -> None:
    blocks = linked_blocks(2)
    results = _run([blocks[1], blocks[0]])
    assert results[1][2] == BlockNumberMismatchError("x").kind


def test_after_a_lost_block_nothing_is_checked_against_it() -> None:
    blocks = linked_blocks(3)
    run = BlockChain()
    first = parsed(blocks[0])
    run.link(first, block_root_hash(first))
    run.lose()
    second = parsed(blocks[1])
    links, error = run.link(second, block_root_hash(second))
    assert (links.previous_root, links.all_block_hashes_root, error) == (Link.UNVERIFIABLE, Link.UNVERIFIABLE, None)
