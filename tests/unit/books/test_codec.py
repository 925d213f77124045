"""The stored encodings of books: one state encoding for the stream keeper and the backfill, the
keeper's former JSON form still read, change rows as they always were."""

from __future__ import annotations

import json

import pytest
from hedera_history.books import codec
from hedera_history.books.bootstrap import SHIPPED_DIR
from hedera_history.books.codec import BookState
from hedera_history.books.parse import address_book_to_bytes, parse_address_book
from hedera_history.books.stakes import NodeStakes
from hedera_history.books.updates import BlockChanges, FileChange
from hedera_history.errors import RowDecodeError

BOOK = parse_address_book((SHIPPED_DIR / "demo.bin").read_bytes())
STAKES = NodeStakes.of({0: 50, 1: 25})


@pytest.fixture(params=[None, STAKES], ids=["no stakes", "stakes"])
def state(request: pytest.FixtureRequest) -> BookState:
    return BookState.of(BOOK, {102: b"\x0a\x01", 101: b"xyz"}, request.param)


def test_the_keeper_cell_carries_the_backfill_state(state: BookState) -> None:
    raw = codec.encode_keeper_state(41, state)
    assert json.loads(raw) == {"applied": 41, "state": state.encode().hex()}
    assert codec.decode_keeper_state(raw) == (41, state)


def test_the_keeper_cell_as_keepers_wrote_it_before_still_reads(state: BookState) -> None:
    former: dict[str, object] = {
        "applied": 7,
        "book": address_book_to_bytes(BOOK).hex(),
        "contents": {str(number): data.hex() for number, data in state.contents},
    }
    if state.stakes:
        former["stakes"] = state.stakes.hex()
    assert codec.decode_keeper_state(json.dumps(former, sort_keys=True).encode()) == (7, state)
    if not state.stakes:
        former["stakes"] = None  # the form written once stakes were tracked, before any
        assert codec.decode_keeper_state(json.dumps(former).encode()) == (7, state)


@pytest.mark.parametrize("raw", [b"", b"{}", b'{"applied": 1}', b'{"applied": 1, "state": "zz"}', b"[1]"])
def test_an_unreadable_keeper_cell_is_a_row_decode_error(raw: bytes) -> None:
    with pytest.raises(RowDecodeError, match="keeper state"):
        codec.decode_keeper_state(raw)


def test_change_rows_keep_their_json_layout() -> None:
    changes = BlockChanges([FileChange(102, b"\x01\x02", False), FileChange(102, b"\x03", True)], STAKES)
    raw = codec.encode_recorded_changes(1_000_000_001, "2024-01-01T00_00_00.000000000Z.rcd", changes)
    # what proofs.from_store reads and what earlier keepers wrote
    assert raw == (
        b'{"effective_ns": 1000000001, "name": "2024-01-01T00_00_00.000000000Z.rcd", '
        b'"changes": [[102, "0102", false], [102, "03", true]], "stakes": "' + STAKES.encode().hex().encode() + b'"}'
    )
    recorded = codec.decode_recorded_changes(raw)
    assert (recorded.effective_ns, recorded.name, recorded.changes) == (
        1_000_000_001,
        "2024-01-01T00_00_00.000000000Z.rcd",
        changes,
    )
    without = json.loads(codec.encode_recorded_changes(5, "f", BlockChanges([], None)))
    del without["stakes"]  # a row from before stakes were tracked
    assert codec.decode_recorded_changes(json.dumps(without).encode()).changes == BlockChanges([], None)


def test_unreadable_change_and_stakes_rows_are_row_decode_errors() -> None:
    with pytest.raises(RowDecodeError, match="change row"):
        codec.decode_recorded_changes(b'{"effective_ns": 1, "name": "f", "changes": [[102, "zz", false]]}')
    with pytest.raises(RowDecodeError, match="node stakes row"):
        codec.decode_stakes_row(b"\x00" * 15)
    assert codec.decode_stakes_row(STAKES.encode()) == STAKES
