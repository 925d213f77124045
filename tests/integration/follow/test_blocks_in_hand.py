"""Uploaded blocks verified at the same time and published in chain order (``pipeline.blocks_in_hand``),
on the Bigtable emulator, with the generated cutover stream (native blocks after the record periods).

The call for a block whose predecessor another call has in hand verifies it meanwhile and publishes
it once the predecessor's link is stored; the call that published the predecessor leaves it (and the
blocks after it) to that call. A predecessor whose call let it go, or died, leaves the block pending
as before. The cells end as loading the stream writes them."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.pipeline.blocks_in_hand import IN_HAND, BlocksInHand
from hedera_history.pipeline.ingest import ingest_object
from hedera_history.pipeline.ingest_context import IngestResult, Outcome
from hedera_history.store.keys import hex16

from tests.integration.pipeline.harness import history_cells

from .harness import Followed, wait_for
from .test_follow_cutover import every_block, loaded_cells

pytestmark = [pytest.mark.emulator]


def block_names(stream: GeneratedStream) -> list[str]:
    return [f"demo/block/0000/0000/0000/0000/{b.block_number:03d}.blk.zstd" for b in stream.blocks]


def in_hand(followed: Followed, number: int) -> bool:
    return bool(followed.ctx.state.claim_cell(IN_HAND + hex16(number)))


def test_a_block_whose_predecessor_is_in_hand_is_published_by_its_own_call_after_it(
    uploads: Followed, bigtable_instance: Any, generated_cutover_stream: GeneratedStream, tmp_path: Path
) -> None:
    stream, ctx = generated_cutover_stream, uploads.ctx
    first, second = block_names(stream)[:2]
    number = stream.blocks[0].block_number
    # The first block's call has begun; its mark must outlast however long a busy machine takes the
    # second call to reach its wait (a lapsed mark would leave the second block pending).
    BlocksInHand(ctx.state, seconds=600.0).take(number)
    results: list[IngestResult] = []
    later = threading.Thread(target=lambda: results.append(ingest_object(ctx, second)), daemon=True)
    later.start()
    wait_for(lambda: in_hand(uploads, number + 1), seconds=60, what="the second block's call to take it in hand")

    assert ingest_object(ctx, first).outcome is Outcome.PUBLISHED
    later.join(120)
    # The second block's call published it once the first was linked, then the blocks after it
    # from the bucket; the first block's call left those to it.
    assert [r.outcome for r in results] == [Outcome.PUBLISHED]
    assert uploads.complete(every_block(stream))
    assert not in_hand(uploads, number) and not in_hand(uploads, number + 1)
    assert history_cells(uploads.gateway) == loaded_cells(bigtable_instance, stream, tmp_path, uploads)


def test_a_predecessor_let_go_or_lapsed_leaves_the_block_pending(
    uploads: Followed, generated_cutover_stream: GeneratedStream
) -> None:
    stream, ctx = generated_cutover_stream, uploads.ctx
    first, second = block_names(stream)[:2]
    number = stream.blocks[0].block_number
    dead = BlocksInHand(ctx.state, seconds=0.5)
    dead.take(number)  # a call that died with the first block in hand
    assert ingest_object(ctx, second).outcome is Outcome.PENDING
    assert ingest_object(ctx, second).outcome is Outcome.PENDING  # nobody has it in hand now
    assert ingest_object(ctx, first).outcome is Outcome.PUBLISHED
    assert uploads.complete(every_block(stream))
