"""A load admits a block whose number holds nothing yet or this very block, refuses one whose number
holds another block (stored before, or admitted earlier in the same load) and admits nothing after
it; the two files of a configured duplicate block share their number."""

from __future__ import annotations

import pytest
from hedera_history.block import VerifiedBlock
from hedera_history.config import Settings
from hedera_history.errors import ConflictingBlockError
from hedera_history.pipeline.load_conflicts import ConflictGuard
from hedera_history.store.writer import BlockWriter

from tests.unit.store.builders import BASE_NS, NS, make_block, transfer_tx
from tests.unit.store.fakes import MemoryGateway


def _block(number: int, payer: int = 1000) -> VerifiedBlock:
    start = BASE_NS + number * 10 * NS
    return make_block(number, [transfer_tx(start + i, payer, 2000 + i) for i in range(3)])


def _stored(*blocks: VerifiedBlock) -> MemoryGateway:
    gateway = MemoryGateway()
    assert all(result.complete for result in BlockWriter(gateway, Settings()).write_blocks(blocks))
    return gateway


def test_the_same_blocks_again_and_new_ones_are_admitted() -> None:
    guard = ConflictGuard(_stored(_block(1), _block(2)), Settings())
    blocks = [_block(1), _block(2), _block(3)]
    assert list(guard.admitted(blocks)) == blocks
    guard.raise_refused()


def test_another_block_under_a_stored_number_is_refused_and_ends_the_load() -> None:
    stored = _block(2)
    guard = ConflictGuard(_stored(_block(1), stored), Settings())
    other = _block(2, payer=1001)
    assert other.hash != stored.hash

    assert list(guard.admitted([_block(1), other, _block(3)])) == [_block(1)]

    with pytest.raises(ConflictingBlockError) as refused:
        guard.raise_refused()
    message = str(refused.value)
    assert "block 2 is already stored" in message
    assert stored.hash.hex()[:16] in message and other.hash.hex()[:16] in message
    assert not guard.admit(_block(4))


def test_two_blocks_of_one_number_in_one_load_conflict() -> None:
    guard = ConflictGuard(MemoryGateway(), Settings())
    assert guard.admit(_block(5))
    assert not guard.admit(_block(5, payer=1001))
    assert isinstance(guard.refused, ConflictingBlockError)


def test_the_two_files_of_a_duplicate_block_share_their_number() -> None:
    first = _block(7)
    second = make_block(7, [transfer_tx(BASE_NS + 75 * NS + i, 1001, 2000 + i) for i in range(3)])
    settings = Settings(duplicate_blocks=f"7:{first.record.consensus_end}:{second.record.consensus_end}")
    guard = ConflictGuard(_stored(first), settings)
    assert guard.admit(second) and guard.refused is None
