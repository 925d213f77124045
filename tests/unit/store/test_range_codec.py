"""An item range as a message: the same range always encodes to the same bytes, decodes back to
itself, and anything else is refused with a MessageFormatError."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hedera_history.config import Settings
from hedera_history.errors import MessageFormatError
from hedera_history.store.range_codec import decode_item_range, encode_item_range, is_range_key, range_key
from hedera_history.store.rows import ItemRange, split_block

from .test_rows_golden import crafted_block


def ranges() -> tuple[ItemRange, ...]:
    return split_block(crafted_block(), Settings(), max_items=3).ranges


def test_ranges_go_and_come_back_unchanged() -> None:
    for item_range in ranges():
        key = range_key(item_range)
        assert is_range_key(key) and key == f"range/000000000000004d/{item_range.first_index:08d}"
        value = encode_item_range(item_range)
        assert value == encode_item_range(item_range)
        assert decode_item_range(key, value) == item_range


def test_a_duplicate_blocks_part_and_an_uncut_items_row_travel() -> None:
    item_range = ranges()[1]
    for changed in (
        ItemRange(7, 1, 5, (), 3, item_range.items),
        ItemRange(7, 0, 5, (0, 2, 9), 3, item_range.items),
        ItemRange(7, None, 0, (), 0, ()),
    ):
        assert decode_item_range(range_key(changed), encode_item_range(changed)) == changed


@pytest.mark.parametrize(
    ("mangle", "reason"),
    [
        (lambda v: b"\x02" + v[1:], "unknown layout 2"),
        (lambda v: v[:-1], "needs"),
        (lambda v: v + b"\x00", "bytes after the last item"),
        (lambda v: b"", "no byte left"),
    ],
)
def test_a_damaged_value_is_refused(mangle: Callable[[bytes], bytes], reason: str) -> None:
    item_range = ranges()[0]
    key = range_key(item_range)
    with pytest.raises(MessageFormatError, match=reason):
        decode_item_range(key, mangle(encode_item_range(item_range)))


def test_a_key_that_does_not_name_its_range_is_refused() -> None:
    first, second = ranges()[:2]
    with pytest.raises(MessageFormatError, match="carries the range"):
        decode_item_range(range_key(second), encode_item_range(first))
