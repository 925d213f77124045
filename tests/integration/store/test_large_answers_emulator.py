"""Answers over gRPC's 4 MiB default come back from the Bigtable emulator."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.api.jsonrpc import get_block
from hedera_history.books.parse import parse_address_book
from hedera_history.gen.config_and_output import GeneratorConfig
from hedera_history.gen.stream import generate_stream
from hedera_history.gen.writer import write_stream
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.reader import HistoryReader
from hedera_history.verify.stream import verify_stream

from .conftest import Store

pytestmark = [pytest.mark.emulator]

MAINNET_THROTTLE = 20_000
"""Transactions in a 2 s period at the network's throttle: the block's items read back as more
than 4 MiB in one answer."""


def test_get_block_answers_a_mainnet_sized_block(store: Store, tmp_path: Path) -> None:
    stream = generate_stream(GeneratorConfig(periods=1, nodes=4, transactions=MAINNET_THROTTLE, seed=3))
    write_stream(stream, tmp_path)
    results = list(verify_stream(find_local_periods(tmp_path), parse_address_book(stream.address_book)))
    (block,) = [r.report.block for r in results if r.report.block is not None]
    assert all(r.complete for r in store.writer.write_blocks([block]))

    answer = get_block(lambda: HistoryReader(store.gateway), {"number": block.block_number})

    assert answer is not None
    assert len(answer["transactions"]) == len(block.record.items) >= MAINNET_THROTTLE
