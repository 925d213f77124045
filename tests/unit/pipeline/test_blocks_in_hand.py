"""Block-in-hand marks (``pipeline.blocks_in_hand``) over a stand-in for the ingest state: whose
mark counts as another call's, a lapsed mark counts for nobody, and a mark that cannot be emptied
is logged, not raised."""

from __future__ import annotations

import logging
import time
from typing import cast

import pytest
from hedera_history.errors import StoreUnavailableError
from hedera_history.pipeline.blocks_in_hand import BlocksInHand
from hedera_history.pipeline.state import IngestState
from hedera_history.pipeline.state_cells import Link


class _Cells:
    """The claim cells and links BlocksInHand reads and writes."""

    def __init__(self) -> None:
        self.claims: dict[bytes, bytes] = {}
        self.linked: dict[int, list[Link]] = {}
        self.down = False

    def claim_cell(self, key: bytes) -> bytes | None:
        return self.claims.get(key)

    def set_claim(self, key: bytes, expected: bytes | None, value: bytes) -> bool:
        if self.down:
            raise StoreUnavailableError("Bigtable did not answer")
        if self.claims.get(key) != expected:
            return False
        self.claims[key] = value
        return True

    def links(self, numbers: list[int]) -> dict[int, list[Link]]:
        return {n: self.linked[n] for n in numbers if n in self.linked}


def _hand(cells: _Cells, seconds: float = 30.0) -> BlocksInHand:
    return BlocksInHand(cast(IngestState, cells), seconds=seconds)


def test_a_mark_is_another_calls_only_while_it_lives() -> None:
    cells = _Cells()
    mine, other = _hand(cells), _hand(cells)
    mine.take(7)
    assert not mine.held_by_another(7) and other.held_by_another(7)
    mine.drop(7)
    assert not other.held_by_another(7)
    lapsing = _hand(cells, seconds=0.01)
    lapsing.take(8)
    time.sleep(0.02)
    assert not other.held_by_another(8)
    assert other.wait_for_link(8) == []


def test_the_link_ends_the_wait_and_a_mark_not_let_go_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    cells = _Cells()
    hand = _hand(cells)
    hand.take(9)
    link = Link(b"\x01" * 48, b"\x00" * 48, "0000000000000000009.blk")
    cells.linked[9] = [link]
    assert _hand(cells).wait_for_link(9) == [link]
    cells.down = True
    with caplog.at_level(logging.WARNING):
        hand.drop(9)
    assert [r.getMessage() for r in caplog.records] == ["block in hand not let go"]
