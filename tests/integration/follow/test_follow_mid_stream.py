"""A follower that begins on an empty store in the middle of a stream: the network is at block 2
when it starts (no ``HEDERA_HISTORY_FIRST_BLOCK`` given), it never reads blocks 0 and 1, and the
book it is given is in force where it starts. Every block from its first period on is published,
completes and carries the watermark and the address-book keeper with it, across the key rotation
the stream makes later, exactly as the single-process path writes those blocks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hedera_history.books.parse import parse_address_book
from hedera_history.formats.names import format_timestamp
from hedera_history.gen.config_and_output import GeneratedStream, GeneratorConfig
from hedera_history.gen.stream import generate_stream
from hedera_history.gen.writer import write_stream
from hedera_history.pipeline.address_books import StreamStart, first_block_of_stream, read_stream_start
from hedera_history.store import schema as s

from tests.integration.pipeline.harness import history_cells, reference_cells

from .harness import follow_in_thread, make_followed, wait_for

pytestmark = [pytest.mark.emulator]

FIRST_FOLLOWED = 2


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    # 8 periods: the key rotation is carried by block 4 and in force from block 5.
    return generate_stream(GeneratorConfig(nodes=4, periods=8, transactions=12, sidecars=False, seed=13))


def test_a_follower_begun_mid_stream_on_an_empty_store_completes_every_block_from_its_first_period(
    bigtable_instance: Any, tmp_path: Path, stream: GeneratedStream
) -> None:
    assert stream.address_books[-1].first_block > FIRST_FOLLOWED  # the rotation comes after the start
    source = tmp_path / "bucket"
    write_stream(stream, source)
    first = stream.periods[FIRST_FOLLOWED]
    start = format_timestamp(first.consensus_start_ns - 1_000_000)
    with make_followed(bigtable_instance, tmp_path, stream, str(source), first_block=0, follow_start=start) as followed:
        thread, stop, reports = follow_in_thread(followed.follower())
        wanted = followed.blocks()[FIRST_FOLLOWED:]
        try:
            wait_for(lambda: followed.complete(wanted), seconds=180, what=f"blocks {wanted}")
            wait_for(lambda: followed.ctx.books.applied_through() == wanted[-1], what="the keeper at the last block")
        finally:
            stop.set()
            thread.join(timeout=300)
        assert reports and not reports[0].given_up

        gateway = followed.gateway
        assert read_stream_start(gateway) == StreamStart(first.record_name.period_key, FIRST_FOLLOWED)
        assert first_block_of_stream(gateway, 0) == FIRST_FOLLOWED
        assert not followed.complete([0]) and not followed.complete([1])
        watermark = followed.publisher.store.tracker.watermark()
        assert watermark is not None and watermark.number == wanted[-1]
        rotated = parse_address_book(stream.address_books[-1].book)
        assert followed.ctx.books.book_at(stream.periods[-1].consensus_start_ns) == rotated
        # Every row the follower wrote is the single-process path's, signatures of the rotated key included.
        expected = reference_cells(bigtable_instance, stream, tmp_path)
        written = history_cells(gateway)
        assert written and all(expected.get(key) == cells for key, cells in written.items())
        numbers = {int(key) for table, key in written if table == s.BLOCKS and key.isdigit()}
        assert numbers == set(wanted)
