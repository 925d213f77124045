"""The newest-first reads on the Bigtable emulator itself: its row limit with a family filter (rows
of blocks that are not complete must not count) is what ``latest_block``'s probes rely on."""

from __future__ import annotations

from typing import Any

from hedera_history.config import Settings
from hedera_history.store import schema as s
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.encoding import encode_value
from hedera_history.store.keys import row_key_for_block
from hedera_history.store.model import Cell, Row
from hedera_history.store.reader import DESC_LOOKBACK, HistoryReader
from hedera_history.store.schema import ensure_tables
from hedera_history.store.values import CompletionValue, encode_completion


def test_latest_and_descending_blocks_on_the_emulator(bigtable_instance: Any) -> None:
    settings = Settings.from_env({}, table_prefix="l_")
    ensure_tables(bigtable_instance, settings)
    gateway = gateway_for_instance(bigtable_instance, settings)
    try:
        done = Cell(s.BLOCK_COMPLETION_FAMILY, s.Q_COMPLETE, encode_value(encode_completion(CompletionValue(1, 0))), 0)
        header = Cell(s.BLOCK_HEADER_FAMILY, s.Q_VERSION, encode_value(b"\x00\x00\x00\x06"), 0)
        complete = [*range(0, 40), *range(5_000, 5_003), DESC_LOOKBACK * 2, 2**40 + 7]
        pending = [41, 5_004, 2**40 + 8, 2**41]  # header rows only: not complete, must never count
        failures = gateway.mutate_rows(
            s.BLOCKS,
            [Row(s.BLOCKS, row_key_for_block(n), (done,)) for n in complete]
            + [Row(s.BLOCKS, row_key_for_block(n), (header,)) for n in pending],
        )
        assert failures == []
        reader = HistoryReader(gateway)
        assert reader.latest_block() == 2**40 + 7
        assert HistoryReader(gateway).blocks_ascending(39, None, 3) == [39, 5_000, 5_001]
        seen: list[int] = []
        end = None
        pages = 0
        while True:
            page = reader.blocks_descending(end, 0, 10)
            assert page.numbers, "a page is never empty while blocks are left"
            seen.extend(page.numbers)
            pages += 1
            if page.resume_below is None:
                break
            end = page.resume_below - 1
        assert seen == sorted(complete, reverse=True)
        assert pages <= 7
        assert reader.blocks_descending(5_010, 4_990, 10).numbers == (5_002, 5_001, 5_000)
    finally:
        gateway.close()
