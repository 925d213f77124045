"""The sweep's look for a block whose upload event was lost.

A record period has every node's copy and its pending mark behind it; a block file has one upload,
and when its storage event is lost for good (Eventarc gives up after a day, the local stack's
bucket bridge after a few attempts) nothing calls ingest for it, and every later block's call
leaves its block pending (its predecessor is in nobody's hand). So each sweep finds where the
stored chain ends (the contiguous watermark, then the chain links after it) and reads the block
after it from the upload bucket by its name (``<stream prefix>/<network>/block/<split number>.blk.zstd``,
as the follower reads the public bucket: one read, nothing listed). A block that is there goes
through the upload path (:func:`~hedera_history.pipeline.ingest_block.ingest_block_upload`),
which verifies and publishes it and then the blocks already uploaded after it; a block that is
not there (not uploaded yet, or the chain ends on a record period) ends the look. At most
``MISSING_BLOCK_READS_PER_SWEEP`` blocks are read per sweep run, each filled one logged
(``block filled by the sweep``, WARNING) and counted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from hedera_history.config import Settings
from hedera_history.errors import HistoryError, ObjectNotFoundError
from hedera_history.formats.names import block_file_path
from hedera_history.logs import event
from hedera_history.networks import block_folder_of
from hedera_history.pipeline.blocks_in_hand import BlocksInHand
from hedera_history.pipeline.ingest_block import block_checker, ingest_block_upload
from hedera_history.pipeline.ingest_context import IngestContext, Outcome
from hedera_history.pipeline.state_cells import Link
from hedera_history.pipeline.tracking_rows import TrackingRows

logger = logging.getLogger(__name__)

MISSING_BLOCK_READS_PER_SWEEP = 10
"""Most missing blocks one sweep run reads from the upload bucket (each one found publishes the
blocks uploaded after it too, up to ``SUCCESSORS_PER_CALL``)."""
LINKS_PER_READ = 100
"""Chain links read at once while walking from the watermark to the chain's end."""


@dataclass
class MissingBlocks:
    looked_up: int = 0
    """Block files read (or found absent) by name in the upload bucket."""
    filled: int = 0
    """Blocks published by the sweep's look (the missing ones and the uploaded blocks after them)."""

    def as_dict(self) -> dict[str, int]:
        return {"looked_up": self.looked_up, "filled": self.filled}


def upload_block_folder(settings: Settings) -> str:
    """The folder uploaded block files are in: the network's block folder below the stream prefix
    (an upload outside the prefix is ignored by ingest)."""
    prefix = settings.stream_prefix.strip("/")
    return (prefix + "/" if prefix else "") + block_folder_of(settings.network)


def chain_end(links: Callable[[list[int]], dict[int, list[Link]]], start: int) -> int:
    """The first block number from ``start`` on without a stored link (``links``: ``IngestState.links``)."""
    number = start
    while True:
        found = links(list(range(number, number + LINKS_PER_READ)))
        for offset in range(LINKS_PER_READ):
            if number + offset not in found:
                return number + offset
        number += LINKS_PER_READ


def fill_missing_blocks(ctx: IngestContext, errors: list[str]) -> MissingBlocks:
    """Read the block after the stored chain's end from the upload bucket and ingest it as an
    upload, again after what that published, at most ``MISSING_BLOCK_READS_PER_SWEEP`` times. A
    failure (the store or the bucket did not answer) ends the look, added to ``errors``.

    A deployment that follows a network (``follow_source``) has no uploads: its follower reads the
    blocks, and fills one missing from a source from the others; the sweep leaves them to it."""
    report = MissingBlocks()
    if ctx.settings.follow_source:
        return report
    try:
        _fill(ctx, errors, report)
    except HistoryError as e:  # the next sweep looks again; the rest of this one goes on
        errors.append(f"missing blocks: {e}")
    return report


def _fill(ctx: IngestContext, errors: list[str], report: MissingBlocks) -> None:
    watermark = TrackingRows(ctx.gateway, ctx.settings.first_block).watermark()
    number = chain_end(ctx.state.links, ctx.settings.first_block if watermark is None else watermark.number + 1)
    folder, hand, checker = upload_block_folder(ctx.settings), BlocksInHand(ctx.state), block_checker(ctx.settings)
    # A block another call has in hand is that call's to publish (its event was not lost).
    while report.looked_up < MISSING_BLOCK_READS_PER_SWEEP and not hand.held_by_another(number):
        name = folder + block_file_path(number)
        report.looked_up += 1
        try:
            result = ingest_block_upload(ctx, name, checker)
        except ObjectNotFoundError:
            break
        if result.outcome not in (Outcome.PUBLISHED, Outcome.ALREADY_PUBLISHED):
            errors.append(f"block {number} ({name}): {result.outcome.value} {result.reason}".rstrip())
            break
        after = chain_end(ctx.state.links, number + 1)
        if result.outcome is Outcome.PUBLISHED:
            report.filled += after - number
            event(
                logger, "block filled by the sweep", logging.WARNING, block=number, file=name, published=after - number
            )
        number = after


__all__ = ["MISSING_BLOCK_READS_PER_SWEEP", "MissingBlocks", "chain_end", "fill_missing_blocks", "upload_block_folder"]
