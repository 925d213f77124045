"""Reorg scenarios on synthetic forks, on both consumers.

The letter scenarios deliver the blocks of one tree in the order the letters give:

    A ── B ── C ── D
     └── E ── F ── G ── H ── I
               └── J ── K

(number = depth, weight = number). The in-memory consumer's updates are written as text:
``-JK+GHI`` removes J and K and adds G, H and I. The stateless consumer's watermark must follow
the in-memory head block by block.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hedera_history.cardinal.chain_blocks import Block, BlockHeader, BlockRef, ChainUpdate
from hedera_history.cardinal.consumer import InMemoryConsumer
from hedera_history.cardinal.messages import WireMessage
from hedera_history.cardinal.producer import BatchProducer
from hedera_history.cardinal.tracking import StatelessTracker

from .chains import GENESIS, ROUTING, all_messages, completions, feed, labels, make_block, new_tracker, replay, tree

PRODUCER = BatchProducer(ROUTING, chunk_bytes=64)
LETTERS = tree(
    {
        "A": (None, 1, 1),
        "B": ("A", 2, 2),
        "C": ("B", 3, 3),
        "D": ("C", 4, 4),
        "E": ("A", 2, 2),
        "F": ("E", 3, 3),
        "G": ("F", 4, 4),
        "H": ("G", 5, 5),
        "I": ("H", 6, 6),
        "J": ("F", 4, 4),
        "K": ("J", 5, 5),
    }
)
NAMES = {block.hash: label for label, block in LETTERS.items()}

SCENARIOS = {
    "ABCD": ["+A", "+B", "+C", "+D"],
    "ABDC": ["+A", "+B", "+CD"],
    "ACDB": ["+A", "+BCD"],
    "ABCDEF": ["+A", "+B", "+C", "+D"],
    "AEGFBHI": ["+A", "+E", "+FG", "+H", "+I"],
    "AEGFHIB": ["+A", "+E", "+FG", "+H", "+I"],
    "AEFHIGB": ["+A", "+E", "+F", "+GHI"],
    "ABEFJHIKG": ["+A", "+B", "-B+EF", "+J", "+K", "-JK+GHI"],
    "ABEFJGIKH": ["+A", "+B", "-B+EF", "+J", "+K", "-JK+GHI"],
    "ABEFJGHIK": ["+A", "+B", "-B+EF", "+J", "-J+GH", "+I"],
    "ABEFJIKHG": ["+A", "+B", "-B+EF", "+J", "+K", "-JK+GHI"],
    "ABEFJGHKI": ["+A", "+B", "-B+EF", "+J", "-J+GH", "+I"],
}


def shuffled_with_duplicates(messages: Sequence[WireMessage], rng: random.Random) -> list[WireMessage]:
    out = [m for m in messages for _ in range(rng.randint(1, 2))]
    rng.shuffle(out)
    return out


def deliver_blocks(
    blocks: Sequence[Block], consumer: InMemoryConsumer, tracker: StatelessTracker, seed: int = 0
) -> tuple[list[list[ChainUpdate]], list[BlockHeader | None], list[BlockHeader | None]]:
    """Each block's messages (shuffled, some twice) in turn to both consumers; what each did."""
    rng = random.Random(seed)
    updates, heads, watermarks = [], [], []
    for block in blocks:
        messages = shuffled_with_duplicates(all_messages(PRODUCER, block), rng)
        updates.append(feed(consumer, messages))
        for message in messages:
            tracker.receive(message)
        heads.append(consumer.head)
        watermarks.append(tracker.watermark())
    return updates, heads, watermarks


@pytest.mark.parametrize("threshold", [1, 2, 10])
@pytest.mark.parametrize("order", list(SCENARIOS))
def test_letter_scenarios(order: str, threshold: int) -> None:
    consumer = InMemoryConsumer(reorg_threshold=threshold)
    tracker, _, _ = new_tracker(first_number=1)
    blocks = [LETTERS[letter] for letter in order]
    per_block, heads, watermarks = deliver_blocks(blocks, consumer, tracker, seed=len(order) * threshold)
    updates = [u for block_updates in per_block for u in block_updates]

    assert labels(updates, NAMES) == SCENARIOS[order]
    chain = replay(updates)
    assert consumer.head == chain[-1].header
    assert watermarks == heads


def test_a_consumer_started_mid_chain_begins_where_it_joins() -> None:
    consumer = InMemoryConsumer()
    tracker, _, _ = new_tracker(first_number=3)
    blocks = [LETTERS[letter] for letter in "CDAB"]
    per_block, _, watermarks = deliver_blocks(blocks, consumer, tracker)
    assert labels([u for us in per_block for u in us], NAMES) == ["+C", "+D"]
    assert watermarks[-1] == LETTERS["D"].header
    assert all(tracker.is_complete(block.hash) for block in blocks)


def test_a_declared_root_starts_the_watermark_whatever_its_number() -> None:
    blocks = [LETTERS[letter] for letter in "DC"]
    undeclared, _, _ = new_tracker(first_number=1)
    assert deliver_blocks(blocks, InMemoryConsumer(), undeclared)[2][-1] is None  # C's ancestors never come
    tracker, _, _ = new_tracker(first_number=1)
    tracker.declare_root(LETTERS["C"].header)
    tracker.declare_root(LETTERS["C"].header)  # again: nothing changes
    _, _, watermarks = deliver_blocks(blocks, InMemoryConsumer(), tracker)
    assert watermarks == [None, LETTERS["D"].header]
    assert not tracker.is_complete(LETTERS["C"].header.parent)


@pytest.mark.parametrize("out_of_order", [False, True])
def test_a_reorg_at_start_up(out_of_order: bool) -> None:
    blocks = tree({"A": (None, 1, 1), "B": ("A", 2, 2), "B2": ("A", 2, 3), "C2": ("B2", 3, 4)})
    names = {b.hash: label for label, b in blocks.items()}
    order = ["B", "C2", "B2"] if out_of_order else ["B", "B2", "C2"]
    consumer = InMemoryConsumer()
    tracker, _, _ = new_tracker(first_number=2)
    per_block, _, watermarks = deliver_blocks([blocks[label] for label in order], consumer, tracker)
    expected = ["+B", "-B+B2C2"] if out_of_order else ["+B", "-B+B2", "+C2"]
    assert labels([u for us in per_block for u in us], names) == expected
    assert watermarks[-1] == blocks["C2"].header


def _fork(base: Block, prefix: str, length: int, extra_weight: int) -> list[Block]:
    blocks, parent = [], base
    for i in range(length):
        number = base.number + 1 + i
        block = make_block(f"{prefix}{i}", parent.hash, number, number + extra_weight)
        blocks.append(block)
        parent = block
    return blocks


def _gaps(blocks: Sequence[Block]) -> list[Block]:
    """Every other block first, then the ones left out."""
    return [*blocks[::2], *blocks[1::2]]


@pytest.mark.parametrize(
    ("chain_length", "fork_length", "extra_weight", "fork_order"),
    [(50, 53, 0, _gaps), (6, 6, 1, lambda fork: [fork[i - 1] for i in (5, 6, 3, 4, 1, 2)])],
    ids=["50-replaced-by-53-with-gaps", "6-replaced-by-6-delivered-563412"],
)
@pytest.mark.parametrize("threshold", [2, 64])
def test_a_long_chain_is_replaced_by_a_heavier_fork(
    chain_length: int, fork_length: int, extra_weight: int, fork_order: object, threshold: int
) -> None:
    base = make_block("base", GENESIS, 1, 1)
    chain = _fork(base, "old", chain_length, 0)
    fork = _fork(base, "new", fork_length, extra_weight)
    assert callable(fork_order)
    consumer = InMemoryConsumer(reorg_threshold=threshold)
    tracker, _, _ = new_tracker(first_number=1)
    per_block, _, watermarks = deliver_blocks([base, *chain, *fork_order(fork)], consumer, tracker)
    updates = [u for us in per_block for u in us]

    assert watermarks[-1] == fork[-1].header  # the stateless consumer keeps every fork
    if threshold > chain_length:
        assert replay(updates) == [base, *fork]
        assert [len(u.removed) for u in updates if u.removed] == [chain_length]
    else:
        # The fork leaves the chain deeper than the threshold: its first blocks are dropped,
        # so only the Reorg channel can bring it in.
        assert replay(updates) == [base, *chain]
        channel = PRODUCER.produce_reorg(base.header, fork)
        reorg_updates = feed(consumer, channel, reorg_channel=True)
        assert reorg_updates[0].reverted_to == BlockRef(base.hash, base.number)
        assert replay(updates + reorg_updates) == [base, *fork]
        for message in channel:
            tracker.receive(message)
        assert tracker.watermark() == fork[-1].header


def test_reorg_channel_holds_normal_messages_until_it_completes() -> None:
    base = make_block("base", GENESIS, 1, 1)
    chain = _fork(base, "old", 8, 0)
    fork = _fork(base, "new", 9, 0)
    after = make_block("after", fork[-1].hash, fork[-1].number + 1, fork[-1].number + 1)
    consumer = InMemoryConsumer(reorg_threshold=3)
    updates = feed(consumer, [m for b in [base, *chain] for m in all_messages(PRODUCER, b)])

    channel = list(PRODUCER.produce_reorg(base.header, fork))
    normal = all_messages(PRODUCER, after)
    updates += feed(consumer, channel[:5], reorg_channel=True)
    updates += feed(consumer, normal)  # arrives during the reorg: waits
    assert consumer.head is not None and consumer.head.hash != after.hash
    updates += feed(consumer, channel[5:], reorg_channel=True)
    assert consumer.head == after.header
    assert replay(updates) == [base, *fork, after]

    # A late copy of the channel changes nothing.
    assert feed(consumer, channel, reorg_channel=True) == []
    assert consumer.head == after.header


def test_reorg_to_an_ancestor_the_consumer_no_longer_holds() -> None:
    base = make_block("base", GENESIS, 1, 1)
    chain = _fork(base, "old", 20, 0)
    fork = _fork(base, "new", 21, 0)
    consumer = InMemoryConsumer(reorg_threshold=4)
    updates = feed(consumer, [m for b in [base, *chain] for m in all_messages(PRODUCER, b)])
    reorg = feed(consumer, PRODUCER.produce_reorg(base.header, fork), reorg_channel=True)
    assert reorg[0].reverted_to is not None and reorg[0].reverted_to.hash == base.hash
    assert 0 < len(reorg[0].removed) < 20  # only the blocks it holds
    assert replay(updates + reorg) == [base, *fork]


def test_reorg_channel_re_sends_blocks_already_completed_as_a_side_branch() -> None:
    base = make_block("base", GENESIS, 1, 1)
    chain = _fork(base, "old", 5, 0)
    fork = _fork(base, "new", 6, 0)
    consumer = InMemoryConsumer(reorg_threshold=10)
    messages = [m for b in [base, *chain, *fork[:3]] for m in all_messages(PRODUCER, b)]
    updates = feed(consumer, messages)  # fork[:3] is a lighter side branch, held
    assert replay(updates) == [base, *chain]
    updates += feed(consumer, PRODUCER.produce_reorg(base.header, fork), reorg_channel=True)
    assert replay(updates) == [base, *fork]


def test_every_fork_block_completes_once_on_the_stateless_consumer() -> None:
    tracker, _, _ = new_tracker(first_number=1)
    outcomes = [tracker.receive(m) for block in LETTERS.values() for m in all_messages(PRODUCER, block)]
    assert completions(outcomes) == {block.hash: 1 for block in LETTERS.values()}
    assert tracker.watermark() == LETTERS["I"].header
