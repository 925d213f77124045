"""The tracker's append rule, lenient for a stream that may start inside an update, strict for a
proof's chain, which must show the update an append continues."""

from __future__ import annotations

import pytest
from hedera_history.books.bootstrap import SHIPPED_DIR
from hedera_history.books.parse import parse_address_book
from hedera_history.books.updates import NODE_DETAILS_FILE, AddressBookTracker, FileChange
from hedera_history.errors import AddressBookError

BOOK_BYTES = (SHIPPED_DIR / "mainnet.bin").read_bytes()


def _tracker() -> AddressBookTracker:
    return AddressBookTracker(parse_address_book(BOOK_BYTES, "mainnet"))


def test_an_append_to_unseen_contents_is_skipped() -> None:
    tracker = _tracker()
    assert tracker.apply_changes([FileChange(NODE_DETAILS_FILE, b"\x0a", True)], "block 9") is None
    assert tracker.contents == {}


def test_a_strict_tracker_refuses_an_append_to_unseen_contents() -> None:
    with pytest.raises(AddressBookError, match=r"appends to 0\.0\.102 before any update of it"):
        _tracker().apply_changes([FileChange(NODE_DETAILS_FILE, b"\x0a", True)], "block 9", strict=True)


def test_a_strict_tracker_takes_an_append_after_the_update_in_the_same_block() -> None:
    tracker = _tracker()
    half = len(BOOK_BYTES) // 2
    changes = [
        FileChange(NODE_DETAILS_FILE, BOOK_BYTES[:half], False),
        FileChange(NODE_DETAILS_FILE, BOOK_BYTES[half:], True),
    ]
    tracker.apply_changes(changes, "block 9", strict=True)
    assert tracker.contents[NODE_DETAILS_FILE] == BOOK_BYTES
