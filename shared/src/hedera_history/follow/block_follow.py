"""The follower's block side: the switch at the cutover, then every block in order.

The switch (as the mirror node's ``CutoverServiceImpl`` does in its ``AUTO`` mode): while the
follower reads record periods, once every period seen is finished and no new one has arrived for
``follow_cutover_seconds``, it asks the block sources for the block after the last one published;
found, the follower reads blocks from then on, and the stored position says so (``next_block``),
so a follower restarted at the switch resumes on blocks. Not found, it keeps reading record
periods and asks again on a later tick.

Blocks are then read one number after another (``follow.block_sources``: block nodes first, the
bucket behind them) and verified and published by ``pipeline.ingest_block`` on the follower's
thread: a block needs nothing but itself and its predecessor, so there is nothing to wait for or to
run beside it. Each block is decompressed and parsed once, for ingest and for the registered block
nodes it may carry. A block published, the next is asked for at once; a block not there yet ends
the tick, and until the next tick the follower asks for it every ``follow_block_poll_seconds``
(``block_arrived``), ticking as soon as it is there. A copy that fails its checks is asked of the
next source; nothing is skipped: ``next_block`` moves only over published blocks. When no block
arrives for ``follow_block_alert_seconds`` the follower logs ``follower no block`` as an error
(the deployment's alert), again each interval while it lasts.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable

from hedera_history.config import Settings
from hedera_history.errors import FormatError, HistoryError
from hedera_history.follow.block_node_registry import BlockNodeRegistry, write_registry
from hedera_history.follow.block_sources import CompositeBlocks, FetchedBlock, with_registered
from hedera_history.follow.block_start import BlockStart, begin_history_at
from hedera_history.follow.registered_nodes import registered_node_changes
from hedera_history.formats.block import BlockFile, parse_block_file
from hedera_history.logs import event
from hedera_history.pipeline.ingest import IngestContext, IngestResult, Outcome
from hedera_history.pipeline.ingest_block import BlockChecker, block_checker, ingest_block

logger = logging.getLogger(__name__)

BLOCKS_PER_TICK = 50
"""Most blocks one tick reads (the lease is renewed between ticks)."""


class BlockFollow:
    def __init__(
        self,
        ctx: IngestContext,
        settings: Settings,
        sources: CompositeBlocks,
        *,
        next_block: int | None,
        monotonic: Callable[[], float],
        start: BlockStart | None = None,
        registry: BlockNodeRegistry | None = None,
    ) -> None:
        if start is not None:
            # The first block read waits for no stored link of the one before it (a backfill's last
            # block has none, a history begun at it has no block before): ingest checks it against
            # the block stored before it, when there is one, besides its proof.
            ctx = dataclasses.replace(ctx, settings=ctx.settings.with_(first_block=start.number))
        self.ctx = ctx
        self.settings = settings
        self.sources = sources
        self.next_block = next_block
        self.published = 0
        self.rejected = 0
        self.last_consensus_ns: int | None = None
        self.last_source = ""
        self._clock = monotonic
        self._checker: BlockChecker | None = None
        self._ahead: FetchedBlock | None = None
        self._read_seconds = 0.0
        """How long the read of the last block found took."""
        self._last_arrival = monotonic()
        self._last_alert = float("-inf")
        self._history_starts = start.number if start is not None and start.begins_history else None
        self.registry = registry or BlockNodeRegistry()
        """The block nodes registered on chain, as the blocks read so far register them."""
        self.declined: int | None = None
        """The block last found but not switched to (``follow.cutover``): not read again until quiet."""

    @property
    def active(self) -> bool:
        """The follower has switched to blocks."""
        return self.next_block is not None

    @property
    def has_sources(self) -> bool:
        return bool(self.sources.sources)

    def try_switch(self, after_block: int, declines: Callable[[FetchedBlock], str | None] = lambda _: None) -> bool:
        """Switch when block ``after_block + 1`` is served and ``declines`` gives no reason not to
        (the block is kept for the first step)."""
        number = after_block + 1
        found = self.sources.fetch(number)
        if found is None:
            return False
        reason = declines(found)
        if reason is not None:
            if self.declined != number:
                event(logger, "follower stays on record files", block=number, source=found.source, reason=reason)
            self.declined = number
            return False
        self.next_block, self._ahead, self._last_arrival = number, found, self._clock()
        event(logger, "follower switched to blocks", block=number, after_block=after_block, source=found.source)
        return True

    def back_to_records(self) -> None:
        """Stop reading blocks (``follow.record_fallback``): the follower reads record files again and
        switches by the same rule; the block waited for is asked again only after a quiet interval."""
        self.declined, self.next_block, self._ahead = self.next_block, None, None

    def block_arrived(self) -> bool:
        """Whether the next block is there now (kept for the next step, which does not read it again)."""
        number = self.next_block
        if number is None:
            return False
        if self._ahead is None or self._ahead.number != number:
            self._ahead = self._read(number)
        return self._ahead is not None

    def step(self) -> int:
        """Read, verify and publish the blocks available, in order; how many were published. Each
        block published logs ``follower block``: ``read_seconds`` (the read that found it),
        ``ingest_seconds`` (parse, verification and publication: the follower's part of its lag) and
        ``ingest_cpu_seconds`` (the process's CPU time meanwhile, the follower's thread and the
        clients' threads that publish and write for it: what a block costs, whatever else shares the
        cores)."""
        published = 0
        while self.next_block is not None and published < BLOCKS_PER_TICK:
            number = self.next_block
            fetched = self._take_ahead(number) or self._read(number)
            if fetched is None:
                self._alert_if_quiet(number)
                break
            started, started_cpu = self._clock(), time.process_time()
            if not self._ingest(fetched):
                break
            self.next_block, self._last_arrival = number + 1, self._clock()
            published += 1
            event(
                logger,
                "follower block",
                block=number,
                source=fetched.source,
                read_seconds=round(self._read_seconds, 3),
                ingest_seconds=round(self._last_arrival - started, 3),
                ingest_cpu_seconds=round(time.process_time() - started_cpu, 3),
            )
        self.published += published
        return published

    def _read(self, number: int) -> FetchedBlock | None:
        started = self._clock()
        found = self.sources.fetch(number)
        if found is not None:
            self._read_seconds = self._clock() - started
        return found

    def _ingest(self, fetched: FetchedBlock) -> bool:
        """Whether the block is published (now or before); a rejected copy is asked of the sources
        after the one that served it."""
        checker = self._checker_now()
        block = self._parsed(fetched)
        result = self._publish(fetched, block, checker)
        if result.outcome is Outcome.QUARANTINED:
            self.rejected += 1
            later = self.sources.sources[[s.kind for s in self.sources.sources].index(fetched.source) + 1 :]
            retry = CompositeBlocks(later).fetch(fetched.number)
            if retry is None:
                return False
            block = self._parsed(retry)
            fetched, result = retry, self._publish(retry, block, checker)
        if result.outcome not in (Outcome.PUBLISHED, Outcome.ALREADY_PUBLISHED):
            return False
        self.last_consensus_ns, self.last_source = checker.last_consensus_ns, fetched.source
        if block is not None:
            self._discover(block)
        return True

    def _parsed(self, fetched: FetchedBlock) -> BlockFile | None:
        """The block decompressed and parsed once, for ingest and discovery both; None when it does
        not parse (ingest then rejects it as it rejects any block file that does not)."""
        try:
            return parse_block_file(fetched.data, fetched.name, max_decompressed=self.settings.max_decompressed_bytes)
        except FormatError:
            return None

    def _discover(self, block: BlockFile) -> None:
        """Apply the block's registered-node changes (HIP-1137): block nodes registered become
        sources after the configured ones (``follow.registered_nodes``)."""
        if not self.settings.block_node_discovery:
            return
        changes = registered_node_changes(block)
        if not changes:
            return
        registry = self.registry.applied(changes, block.number)
        if registry.endpoints == self.registry.endpoints:
            self.registry = registry
            return
        self.registry = registry
        self.sources = with_registered(self.sources, registry.endpoints, self.settings)
        event(logger, "follower found block nodes", block=block.number, block_nodes=list(registry.endpoints))
        try:
            write_registry(self.ctx.gateway, registry)
        except HistoryError as e:
            event(logger, "registered block nodes not stored", logging.WARNING, block=block.number, error=str(e))

    def _publish(self, fetched: FetchedBlock, block: BlockFile | None, checker: BlockChecker) -> IngestResult:
        """Ingest the block; the block a history begins with first begins it (``follow.block_start``)."""
        starts = self._history_starts == fetched.number
        if starts and block is not None and begin_history_at(self.ctx, fetched, block, checker.tss):
            self._history_starts = None
        return ingest_block(self.ctx, fetched.name, fetched.data, checker, parsed=block)

    def _take_ahead(self, number: int) -> FetchedBlock | None:
        ahead, self._ahead = self._ahead, None
        return ahead if ahead is not None and ahead.number == number else None

    def _checker_now(self) -> BlockChecker:
        if self._checker is None:
            self._checker = block_checker(self.settings)
        return self._checker

    def _alert_if_quiet(self, number: int) -> None:
        now = self._clock()
        quiet = now - self._last_arrival
        limit = self.settings.follow_block_alert_seconds
        if quiet >= limit and now - self._last_alert >= limit:
            self._last_alert = now
            event(
                logger,
                "follower no block",
                logging.ERROR,
                block=number,
                waited_seconds=round(quiet, 1),
                sources=self.sources.kinds,
            )


__all__ = ["BLOCKS_PER_TICK", "BlockFollow"]
