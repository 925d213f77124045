"""Blocks whose upload event was lost, filled by the sweep from the upload bucket
(``pipeline.missing_blocks``), on the Bigtable emulator with the generated cutover stream (record
periods 0-2, wrapped record blocks 3-4, native blocks 5-7, all in one bucket as uploads)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.pipeline.ingest import ingest_object
from hedera_history.pipeline.ingest_context import IngestContext, Outcome
from hedera_history.pipeline.missing_blocks import fill_missing_blocks

from tests.integration.pipeline.harness import history_cells

from .harness import Followed
from .test_blocks_in_hand import block_names
from .test_follow_cutover import every_block, loaded_cells

pytestmark = [pytest.mark.emulator]


def upload_context(uploads: Followed) -> IngestContext:
    """The fixture's ingest context as a deployment fed by uploads has it: no followed source (a
    follower reads its blocks itself, and the sweep leaves them to it)."""
    settings = dataclasses.replace(uploads.ctx.settings, follow_source="")
    return dataclasses.replace(uploads.ctx, settings=settings)


def test_blocks_whose_upload_events_were_lost_are_filled_by_the_sweep(
    uploads: Followed, bigtable_instance: Any, generated_cutover_stream: GeneratedStream, tmp_path: Path
) -> None:
    stream, ctx = generated_cutover_stream, upload_context(uploads)
    names = block_names(stream)
    # The first block's event and the third's were lost; the others' calls leave them pending.
    for name in names[1:2] + names[3:]:
        assert ingest_object(ctx, name).outcome is Outcome.PENDING
    errors: list[str] = []
    report = fill_missing_blocks(ctx, errors)
    assert errors == []
    # One read finds the first block; its call publishes the second from the bucket, then finds
    # the third's file there too (the upload path takes the blocks after it), and so on to the end.
    assert report.filled == len(names)
    assert report.looked_up == 2  # the first block, then the block after the last (not uploaded yet)
    assert uploads.complete(every_block(stream))
    assert history_cells(uploads.gateway) == loaded_cells(bigtable_instance, stream, tmp_path, uploads)
    again = fill_missing_blocks(ctx, errors)
    assert (again.looked_up, again.filled, errors) == (1, 0, [])


def test_a_block_not_uploaded_yet_is_looked_up_once_and_nothing_else_is_read(uploads: Followed) -> None:
    ctx, names = upload_context(uploads), block_names(uploads.stream)
    (Path(uploads.ctx.settings.follow_source) / names[0]).unlink()  # the first block not uploaded yet
    errors: list[str] = []
    report = fill_missing_blocks(ctx, errors)
    assert (report.looked_up, report.filled, errors) == (1, 0, [])
    assert not ctx.state.links([uploads.stream.blocks[0].block_number])


def test_a_following_deployment_leaves_blocks_to_its_follower(uploads: Followed) -> None:
    errors: list[str] = []
    report = fill_missing_blocks(uploads.ctx, errors)
    assert (report.looked_up, report.filled, errors) == (0, 0, [])
    assert not uploads.ctx.state.links([uploads.stream.blocks[0].block_number])
