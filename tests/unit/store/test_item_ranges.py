"""A block's rows in parts: the block-level rows and the rows of each item range, built apart, are
``block_to_rows``'s cells, cell for cell, on real files, on crafted items and on a generated
period cut into many ranges across items cells; but for the token index's ``held`` markers, one per
(account, token) per range built (``store.token_index``): a pair whose balance changes in several
ranges of a block has one in each, the first at the whole block's."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest
from hedera_history.block import VerifiedBlock
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.store import schema as s
from hedera_history.store.model import Row
from hedera_history.store.rows import RANGE_ITEMS, block_to_rows, range_rows, split_block

from .held_markers import assert_whole_and_range_markers, held_pair, is_held_marker
from .test_rows_golden import crafted_block, verified_blocks

SETTINGS = Settings()
ITEM_TABLES = {s.TRANSACTIONS, s.TX_BY_HASH, s.TX_BY_ID, s.ACCOUNT_HISTORY}
CellKey = tuple[str, bytes, str, bytes]


def cells_of(rows: Iterable[Row]) -> dict[CellKey, tuple[bytes, int]]:
    """Every cell by (table, row key, family, qualifier); a cell given twice must agree."""
    out: dict[CellKey, tuple[bytes, int]] = {}
    for row in rows:
        for cell in row.cells:
            key = (row.table, row.key, cell.family, cell.qualifier)
            value = (cell.value, cell.timestamp_micros)
            assert out.setdefault(key, value) == value, key
    return out


def assert_parts_make_the_whole(block: VerifiedBlock, settings: Settings = SETTINGS, **limits: int) -> int:
    whole = block_to_rows(block, settings)
    split = split_block(block, settings, **limits)
    assert split.block_rows.completion == whole.completion
    assert {row.table for row in split.block_rows.rows}.isdisjoint(ITEM_TABLES)
    parts = list(split.block_rows.rows)
    covered = 0
    for item_range in split.ranges:
        assert item_range.first_index == covered
        covered += len(item_range.items)
        built = range_rows(item_range)
        assert {row.table for row in built} <= ITEM_TABLES
        held = [held_pair(row.key) for row in built if is_held_marker(row.key)]
        assert len(held) == len(set(held))
        parts.extend(built)
    assert covered == len(block.record.items)
    assert_whole_and_range_markers(cells_of(parts), cells_of(whole.rows), _history_key)
    return len(split.ranges)


def _history_key(cell: CellKey) -> bytes | None:
    table, key, _, _ = cell
    return key if table == s.ACCOUNT_HISTORY else None


@pytest.fixture(scope="module")
def real(hedera_data: Path) -> list[VerifiedBlock]:
    return [
        *verified_blocks(hedera_data / "v5", (hedera_data / "addressbook" / "test-resources-testnet.bin").read_bytes()),
        *verified_blocks(hedera_data / "v6", (hedera_data / "addressbook" / "test-v6-sidecar-4n.bin").read_bytes()),
    ]


@pytest.fixture(scope="module")
def period(tmp_path_factory: pytest.TempPathFactory) -> VerifiedBlock:
    """A mainnet-shaped period: thousands of transactions with sidecars, over many items cells."""
    folder = tmp_path_factory.mktemp("ranges")
    write_stream(generate_stream(GeneratorConfig(nodes=4, periods=2, transactions=5000, sidecars=True, seed=5)), folder)
    return max(verified_blocks(folder, (folder / "address-book.bin").read_bytes()), key=lambda b: len(b.record.items))


@pytest.mark.parametrize("max_items", [1, 3, RANGE_ITEMS])
def test_real_blocks_in_ranges_are_the_whole_block(real: list[VerifiedBlock], max_items: int) -> None:
    for block in real:
        assert_parts_make_the_whole(block, max_items=max_items)


@pytest.mark.parametrize("max_items", [1, 2, RANGE_ITEMS])
def test_crafted_items_in_ranges_are_the_whole_block(max_items: int) -> None:
    """Undecodable records and bodies, shared transaction ids, items of every shape."""
    assert_parts_make_the_whole(crafted_block(), max_items=max_items)
    assert_parts_make_the_whole(crafted_block(), SETTINGS.with_(sidecars_enabled=False), max_items=max_items)


def test_a_generated_period_in_ranges_is_the_whole_block(period: VerifiedBlock) -> None:
    assert len(period.record.items) >= 5000
    assert len(split_block(period, SETTINGS).ranges[0].cell_starts) > 16
    assert assert_parts_make_the_whole(period) == 3  # 2,000 items a range
    # ranges that start and end inside items cells, and ranges cut by bytes
    assert assert_parts_make_the_whole(period, max_items=333) == 16
    assert assert_parts_make_the_whole(period, max_bytes=100_000) > 16


def test_a_small_block_is_one_range(real: list[VerifiedBlock]) -> None:
    for block in real:
        (only,) = split_block(block, SETTINGS).ranges
        assert only.items == block.record.items


def test_an_item_heavier_than_the_byte_limit_has_a_range_of_its_own() -> None:
    block = crafted_block()
    ranges = split_block(block, SETTINGS, max_bytes=1).ranges
    assert [len(r.items) for r in ranges] == [1] * len(block.record.items)
