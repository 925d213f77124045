"""Where a follower without a stored position starts on blocks, and a history that begins at a block.

A follower with no position starts on blocks when there is no record file to start from:

- the store's last complete block is a block-stream block (a native block, or a record file wrapped
  into one: what a backfill across the cutover wrote last): the block after it, which then waits
  for no stored link of the block before (a backfill records none): ingest checks it against the
  block stored before it instead (``pipeline.ingest_block.stored_predecessor``);
- an empty store and the start ``block:N``: block N;
- an empty store and the start ``now`` (or ``backfill``, with nothing stored): the newest block the
  block sources have, when it is a native block (the network has cut over, no record file will come;
  the reference mirror node, started after the cutover, likewise reads blocks only).

Otherwise it starts on record periods (``follow.start``) and switches by itself at the cutover.

A native block after block 0 is checked against the ledger's roster, which block 0 publishes
(``sources.ledger_trust``): a follower starting on block N > 0 needs that publication configured
(``HEDERA_HISTORY_LEDGER_PUBLICATION``, pinned by ``HEDERA_HISTORY_LEDGER_ID`` when set) and
refuses to start without it (:class:`~hedera_history.errors.LedgerRosterNotGivenError`), as every
native block would otherwise stay unverifiable.

On an empty store the block it starts on **begins the history**, as the first period a follower
hands off does on record streams (docs/pipeline.md, "A stream followed from its middle"): before it
is published, the block is verified alone, recorded as the stream's start, declared the root of the
store's watermark, and the address-book keeper begins at the block before it with the bootstrap
book; ingest then takes it as the deployment's first block. The start row, the root and the keeper
are durable and written by compare-and-set, so a follower restarted in between does it again to the
same effect.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from hedera_history.config import Settings, env_name
from hedera_history.errors import FormatError, LedgerRosterNotGivenError, VerificationError
from hedera_history.follow.block_sources import CompositeBlocks, FetchedBlock
from hedera_history.follow.start import BACKFILL, NOW, requested_block
from hedera_history.formats.block import BlockFile, parse_block_file
from hedera_history.formats.block_record_file import BLOCK_FILE_VERSION
from hedera_history.formats.names import format_timestamp
from hedera_history.logs import event
from hedera_history.pipeline.ingest_block import check_in_context
from hedera_history.pipeline.ingest_context import IngestContext
from hedera_history.pipeline.tracking_rows import TrackingRows
from hedera_history.store.gateway import BigtableGateway
from hedera_history.store.reader import HistoryReader
from hedera_history.verify.block_chain import BlockChain
from hedera_history.verify.block_tss import LedgerTssCheck
from hedera_history.verify.block_verified import verified_block

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class BlockStart:
    number: int
    """The first block the follower reads."""
    begins_history: bool
    """The store is empty: this block begins the history."""


def block_start(mode: str, gateway: BigtableGateway, sources: CompositeBlocks, settings: Settings) -> BlockStart | None:
    """The block a follower without a stored position starts on; None: it starts on record periods."""
    reader = HistoryReader(gateway)
    last = reader.latest_block()
    if last is not None:
        stored = reader.get_block(last)
        on_blocks = stored is not None and (stored.version == BLOCK_FILE_VERSION or stored.wrapped_envelope is not None)
        return BlockStart(last + 1, begins_history=False) if on_blocks else None
    number = requested_block(mode)
    if number is None and mode in (NOW, BACKFILL) and sources.sources:
        number = _newest_native(sources, settings)
    if number is None:
        return None
    if number > 0 and not settings.ledger_publication:
        raise LedgerRosterNotGivenError(
            f"the follower starts on block {number}, after block 0, which publishes the ledger's roster native "
            f"blocks are checked against: set {env_name('ledger_publication')} to a file holding block 0's "
            "ledger id publication"
        )
    return BlockStart(number, begins_history=True)


def _newest_native(sources: CompositeBlocks, settings: Settings) -> int | None:
    """The newest block the sources have, when it is a native block (the network has cut over)."""
    newest = sources.newest()
    fetched = sources.fetch(newest) if newest is not None else None
    if fetched is None:
        return None
    try:
        block = parse_block_file(fetched.data, fetched.name, max_decompressed=settings.max_decompressed_bytes)
    except FormatError:
        return fetched.number  # ingest quarantines it and asks the other sources
    return None if block.wrapped else fetched.number


def begin_history_at(ctx: IngestContext, fetched: FetchedBlock, block: BlockFile, tss: LedgerTssCheck) -> bool:
    """Make ``fetched`` (``block`` as parsed) the history's first block (see the module); False when
    it does not verify (ingest then reports it as it reports any block)."""
    try:
        report = check_in_context(ctx, block, BlockChain(), tss)
        verified = verified_block(report, accept_unsigned=ctx.settings.unsigned_blocks)
    except (FormatError, VerificationError):
        return False
    ctx.books.mark_stream_start(format_timestamp(verified.record.consensus_start))
    TrackingRows(ctx.gateway, fetched.number).declare_root(verified)  # before the keeper, as ingest does
    ctx.books.begin_at(verified)
    event(logger, "follower begins the history", block=fetched.number, source=fetched.source)
    return True


__all__ = ["BlockStart", "begin_history_at", "block_start"]
