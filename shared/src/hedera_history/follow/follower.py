"""The follower's loop: list, hand off, record the position, one follower at a time.

Each tick (every ``follow_poll_seconds``):

1. renew the lease (``follow.lease``); a follower that lost it stops at once;
2. list the hot node folders, or every folder when a full listing is due (``follow.discovery``);
3. take the signature files seen (``follow.tracker``): new periods wait ``follow_settle_seconds``,
   late files go to ``ingest_object`` as their uploads would;
4. hand the periods that are due to ``ingest_period`` on a small pool of threads
   (``follow_workers``): verifying a period reads every node's signature file, which can take
   longer than a tick, and the listing must not wait for it;
5. move the position over the finished periods and store it (``follow.position``) when it changed;
6. log ``follower position`` with ``lag_seconds``, ``period``, ``handed_off``, ``pending`` and
   ``given_up`` (a log-based metric and the lag alert read these fields);
7. at the cutover, switch to blocks by itself (``follow.block_follow``): from then on each tick
   reads, verifies and publishes the next blocks instead, and the position holds ``next_block``;
   between ticks it asks for the next block every ``follow_block_poll_seconds`` and ticks at once
   when it is there, so a block waits for no poll interval; when blocks stall while record files
   go on, it goes back to them (``follow.record_fallback``).

The ingest context is the one an upload gets (same verification, same publication), but its
source is the followed bucket wrapped in a byte cache (``follow.cache``). At-least-once: a period
is handed off until it is finished or given up, and a restart hands off again everything after
the stored position; nothing is processed twice to any visible effect because ingest is
idempotent (an already published period answers ALREADY_PUBLISHED and publishes nothing).

Why a loop inside a scheduled function rather than a service: Cloud Scheduler calls at most once a
minute, far from the 10 s the follower must keep, so each call follows for
``follow_window_seconds`` (65 s) and returns; the next call waits for the lease, which the
previous one releases when its window ends. No instance runs while nothing is scheduled, and an
idle network costs only the listing (docs/follow.md).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from hedera_history.config import Settings
from hedera_history.errors import FormatError, HistoryError, is_transient
from hedera_history.follow.block_follow import BlockFollow
from hedera_history.follow.block_node_registry import starting_registry
from hedera_history.follow.block_sources import CompositeBlocks, FetchedBlock, block_sources, with_registered
from hedera_history.follow.block_start import block_start
from hedera_history.follow.cache import CachedSource
from hedera_history.follow.cutover import CutoverRule, HapiVersion, parse_hapi_version
from hedera_history.follow.discovery import Discovery, Sighting, book_folders
from hedera_history.follow.lease import FollowLease
from hedera_history.follow.position import (
    AFTER_PERIOD,
    FollowPosition,
    clear_position,
    read_position,
    resume_after,
    write_position,
)
from hedera_history.follow.record_fallback import RecordFallback, went_back
from hedera_history.follow.start import fresh_start
from hedera_history.follow.tracker import GivenUp, Tracker, backoff_seconds
from hedera_history.formats.block import parse_block_file
from hedera_history.formats.names import parse_timestamp
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.logs import event
from hedera_history.networks import network_named
from hedera_history.pipeline.ingest import IngestContext, IngestResult, Outcome, ingest_object, ingest_period
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store.reader import HistoryReader

logger = logging.getLogger(__name__)

LEASE_WAIT_SECONDS = 0.1
"""How often a follower waiting for the lease asks again: at each window's hand-off the next call
waits for the lease, and nobody follows meanwhile (one read a tenth of a second, for the few
seconds two calls overlap)."""
POSITION_WRITE_SECONDS = 1.0
"""Least time between two position writes (the last one is always written)."""
DRAIN_SECONDS = 120.0
"""Longest wait, at the end of a window, for hand-offs still running (ingest's own calls are bounded)."""


def follow_source_url(settings: Settings) -> str:
    """The bucket root followed: ``follow_source``, else the stream bucket on GCS."""
    if settings.follow_source:
        return settings.follow_source
    bucket = settings.stream_bucket
    return bucket if "://" in bucket or bucket.startswith(("/", ".")) else f"gs://{bucket}"


def stream_location(settings: Settings) -> StreamLocation:
    """Where the node folders are: the network preset's layout (account layout without one)."""
    preset = network_named(settings.network)
    prefix = settings.stream_prefix.strip("/")
    if preset is not None and preset.layout is BucketLayout.NODE_ID:
        return StreamLocation(BucketLayout.NODE_ID, prefix, preset.node_id_folder, 0)
    return StreamLocation(BucketLayout.ACCOUNT, prefix)


@dataclass
class FollowReport:
    source_url: str
    followed: bool = False
    """False when another follower held the lease for the whole window."""
    start_period: str = ""
    period: str = ""
    lag_seconds: float | None = None
    ticks: int = 0
    handed_off: int = 0
    published: int = 0
    pending: int = 0
    given_up: list[str] = field(default_factory=list)
    late_files: int = 0
    list_calls: int = 0
    list_errors: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    errors: list[str] = field(default_factory=list)
    lease_lost: bool = False
    mode: str = "records"
    """``records`` before the cutover, ``blocks`` after the switch."""
    block: int | None = None
    """The next block to read (after the switch)."""
    blocks_published: int = 0
    block_source: str = ""
    """The source of the last block read (``block node`` or ``bucket``)."""

    def as_dict(self) -> dict[str, object]:
        data = dataclasses.asdict(self)
        data["errors"] = self.errors[:20]
        return data


@dataclass
class _Late:
    sighting: Sighting
    first: float
    due: float
    attempts: int = 0


@dataclass(frozen=True, slots=True)
class FollowerClock:
    """The follower's time: polls and deadlines on ``monotonic``, stored positions on ``wall_ns``,
    waits by ``sleep`` (tests step all three by hand)."""

    monotonic: Callable[[], float] = time.monotonic
    wall_ns: Callable[[], int] = time.time_ns
    sleep: Callable[[float], None] = time.sleep


class Follower:
    """Follows ``ctx``'s bucket (its source is wrapped in a byte cache) into the pipeline."""

    def __init__(
        self,
        ctx: IngestContext,
        settings: Settings,
        *,
        source_url: str | None = None,
        location: StreamLocation | None = None,
        start: str | None = None,
        reset: bool = False,
        lease: FollowLease | None = None,
        clock: FollowerClock = FollowerClock(),
    ) -> None:
        self.settings = settings
        self.cache = CachedSource(ctx.source, settings.follow_cache_bytes)
        self.ctx = dataclasses.replace(ctx, source=self.cache)
        self.source_url = source_url or ctx.source.url
        self.location = location or stream_location(settings)
        self.start = start or settings.follow_start
        self.reset = reset
        self.lease = lease or FollowLease(ctx.gateway, ttl_seconds=settings.follow_lease_seconds)
        self._clock = clock.monotonic
        self._wall_ns = clock.wall_ns
        self._sleep = clock.sleep
        self.tracker: Tracker | None = None
        self.discovery: Discovery | None = None
        self._futures: dict[concurrent.futures.Future[IngestResult], tuple[str, Sighting | None]] = {}
        self._late: list[_Late] = []
        self._late_running: dict[concurrent.futures.Future[IngestResult], _Late] = {}
        self._written: tuple[str, tuple[tuple[str, str], ...], int | None] | None = None
        self._last_write = float("-inf")
        self._reported_given_up = 0
        self._begins_history = False
        """Nothing handed off yet on an empty store: the first period begins the history."""
        self._block_sources: CompositeBlocks | None = None
        self.blocks: BlockFollow | None = None
        self._quiet_since = float("-inf")
        self._quiet_position = ""
        self._cutover = CutoverRule(parse_hapi_version(settings.follow_cutover_hapi_version))
        self._record_versions: dict[int, HapiVersion] = {}
        self._fallback = RecordFallback(HistoryReader(ctx.gateway), self.cache, settings, now=self._clock())

    # ---- entry points ----------------------------------------------------------------------------

    def read_blocks_from(self, sources: CompositeBlocks) -> Follower:
        """Read blocks after the cutover from ``sources`` instead of the configured ones."""
        self._block_sources = sources
        return self

    def run_window(self, seconds: float) -> FollowReport:
        deadline = self._clock() + seconds
        return self.run(lambda: self._clock() >= deadline)

    def run(self, until: Callable[[], bool]) -> FollowReport:
        report = FollowReport(self.source_url)
        while not self.lease.acquire():
            if until():
                holder = self.lease.holder_now()
                event(logger, "follower lease held", holder=holder.holder if holder else "", source=self.source_url)
                return report
            self._sleep(LEASE_WAIT_SECONDS)
        report.followed = True
        pool = concurrent.futures.ThreadPoolExecutor(max(1, self.settings.follow_workers), "follow")
        try:
            self._begin(report)
            while not until():
                started = self._clock()
                if not self._keep_lease(report):
                    break
                self._tick(pool, report)
                self._wait_until(started + self.settings.follow_poll_seconds)
            self._drain(report)
            self._store_position(report, force=True)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
            self.lease.release()
        self._fill(report)
        event(logger, "follower window ended", logging.INFO, **_summary(report))
        return report

    def _wait_until(self, deadline: float) -> None:
        """Sleep until the next tick is due; after the switch, ask for the next block every
        ``follow_block_poll_seconds`` meanwhile and tick at once when it is there."""
        remaining = deadline - self._clock()
        every = self.settings.follow_block_poll_seconds
        blocks = self.blocks
        if blocks is None or not blocks.active or every <= 0:
            self._sleep(max(0.0, remaining))
            return
        for _ in range(math.ceil(remaining / every)):
            self._sleep(max(0.0, min(every, deadline - self._clock())))
            if blocks.block_arrived():
                return

    # ---- one tick --------------------------------------------------------------------------------

    def _begin(self, report: FollowReport) -> None:
        gateway = self.ctx.gateway
        if self.reset:
            clear_position(gateway)
        stored = read_position(gateway)
        if stored is not None:
            key, ns = stored.period_key, stored.consensus_ns
        else:
            fresh = fresh_start(self.start, gateway, self.ctx.books, now_ns=self._wall_ns())
            key, ns, self._begins_history = fresh.period_key, fresh.consensus_ns, fresh.begins_history
        s = self.settings
        self.tracker = Tracker(
            key, ns, settle_seconds=s.follow_settle_seconds, give_up_seconds=s.follow_give_up_seconds
        )
        folders = self._book_folders(ns)
        after = {f: resume_after(stored, f) for f in folders} if stored is not None else {}
        self.discovery = Discovery(
            self.cache,
            folders,
            after=after,
            default_after=self._start_points(folders, key),
            hot_nodes=s.follow_hot_nodes,
        )
        self._next_full = self._clock()
        if stored is not None:
            # Periods the last follower listed: when found published, hand every signature on.
            self.tracker.resumed_through_ns = max(
                (_listed_ns(name, folder) for folder, name in stored.listed.items()), default=-1
            )
        sources = self._block_sources if self._block_sources is not None else block_sources(self.settings)
        registry = starting_registry(gateway, s)
        sources = with_registered(sources, registry.endpoints, s)
        next_block = stored.next_block if stored is not None else None
        on_blocks = block_start(self.start, gateway, sources, s) if stored is None else None
        if on_blocks is not None:
            next_block, self._begins_history = on_blocks.number, False
        self.blocks = BlockFollow(
            self.ctx, s, sources, next_block=next_block, monotonic=self._clock, start=on_blocks, registry=registry
        )
        report.start_period = key
        event(
            logger,
            "follower started",
            source=self.source_url,
            period=key,
            resumed=stored is not None,
            folders=len(folders),
            block=next_block,
            block_sources=sources.kinds,
        )

    def _tick(self, pool: concurrent.futures.ThreadPoolExecutor, report: FollowReport) -> None:
        tracker, discovery = self._parts()
        report.ticks += 1
        if self.blocks is not None and self.blocks.active:
            self.blocks.step()
            self._store_position(report, force=self._back_to_records_when_stalled())
            self._fill(report)
            event(logger, "follower position", logging.INFO, **_summary(report))
            return
        now = self._clock()
        if now >= self._next_full:
            self._next_full = now + self.settings.follow_full_listing_seconds
            self._refresh_folders(report)
            folders = discovery.folders
        else:
            folders = discovery.hot()
        for sighting in discovery.poll(folders):
            if tracker.saw(sighting, now):
                self._late.append(_Late(sighting, now, now))
        self._collect(report)
        self._hand_off(pool, report)
        tracker.advance()
        self._report_given_up()
        self._cut_over_when_due()
        self._store_position(report, force=self.blocks is not None and self.blocks.active)
        self._fill(report)
        event(logger, "follower position", logging.INFO, **_summary(report))

    def _back_to_records_when_stalled(self) -> bool:
        """After the switch, go back to record files when blocks stall and the record files go on
        (``follow.record_fallback``); whether it went back."""
        _, discovery = self._parts()
        blocks = self.blocks
        if blocks is None or blocks.next_block is None:
            return False
        found = self._fallback.check(blocks.next_block, discovery.folders, self._clock())
        if found is None:
            return False
        blocks.back_to_records()
        went_back(found)
        self._quiet_position = ""  # the quiet interval before the next switch begins now
        self._next_full = self._clock()  # every folder listed at the next tick
        return True

    def _cut_over_when_due(self) -> None:
        """Look for the block after the last published one once every period seen is finished: at
        once when the last record file is at the network's last record-writing release, else once
        none has arrived for ``follow_cutover_seconds``; switch when found and its version allows
        (``follow.cutover``)."""
        tracker, _ = self._parts()
        blocks = self.blocks
        if blocks is None or not blocks.has_sources:
            return
        now = self._clock()
        key, ns = tracker.position()
        busy = bool(tracker.unfinished or self._futures or self._late or self._late_running)
        if busy or key != self._quiet_position:
            self._quiet_since, self._quiet_position = now, key
            if busy:
                return
        quiet = now - self._quiet_since >= self.settings.follow_cutover_seconds
        last = self.ctx.state.published_before(ns + 1)
        if last is None or last.published is None:
            return
        after = last.published.block_number
        record_version = self._record_version(after)
        if not self._cutover.ask_now(record_version, quiet=quiet) or (blocks.declined == after + 1 and not quiet):
            return

        def declines(found: FetchedBlock) -> str | None:
            return self._cutover.switch(record_version, self._block_version(found), quiet=quiet)

        if not blocks.try_switch(after, declines) and quiet:
            self._quiet_since = now  # ask again after another quiet interval

    def _record_version(self, block_number: int) -> HapiVersion | None:
        """The HAPI version of the record file stored as ``block_number`` (None until it is stored,
        and when no release is pinned: nothing reads it then)."""
        if self._cutover.last_record_release is None:
            return None
        if block_number not in self._record_versions:
            stored = HistoryReader(self.ctx.gateway).get_block(block_number)
            if stored is None:
                return None
            self._record_versions = {block_number: stored.hapi_version}
        return self._record_versions[block_number]

    def _block_version(self, found: FetchedBlock) -> HapiVersion | None:
        """The found block's ``hapi_proto_version``; None when it does not parse (``CutoverRule.switch``)."""
        try:
            block = parse_block_file(found.data, found.name, max_decompressed=self.settings.max_decompressed_bytes)
        except FormatError:
            return None
        return block.hapi_version.numbers

    def _hand_off(self, pool: concurrent.futures.ThreadPoolExecutor, report: FollowReport) -> None:
        tracker, _ = self._parts()
        now = self._clock()
        if self._begins_history and not self._mark_history_start(now, report):
            return
        free = max(0, max(1, self.settings.follow_workers) - len(self._futures))
        for period in tracker.due(now, limit=free):
            future = pool.submit(ingest_period, self.ctx, period.period_key, self.location)
            self._futures[future] = (period.period_key, None)
        due_late = [late for late in self._late if late.due <= now]
        for late in due_late:
            self._late.remove(late)
            future = pool.submit(ingest_object, self.ctx, late.sighting.name)
            self._futures[future] = (late.sighting.period_key, late.sighting)
            late.attempts += 1
            self._late_running[future] = late

    def _mark_history_start(self, now: float, report: FollowReport) -> bool:
        """Record the first period about to be handed off on an empty store as the stream's start
        (``follow.start``); False while that cannot be written (nothing is handed off before)."""
        tracker, _ = self._parts()
        first = tracker.first_due(now)
        if first is None:
            return True
        try:
            start = self.ctx.books.mark_stream_start(first.period_key)
        except HistoryError as e:
            report.errors.append(f"stream start: {e}")
            event(logger, "follower start not recorded", logging.WARNING, period=first.period_key, error=str(e))
            return False
        self._begins_history = False
        if start is not None:
            event(logger, "follower begins the history", period=start.period_key, source=self.source_url)
        return True

    def _collect(self, report: FollowReport) -> None:
        tracker, _ = self._parts()
        done = [f for f in self._futures if f.done()]
        for future in done:
            period_key, sighting = self._futures.pop(future)
            late = self._late_running.pop(future, None)
            now = self._clock()
            outcome: Outcome | None
            try:
                result = future.result()
                outcome, reason = result.outcome, result.reason
            except Exception as e:  # noqa: BLE001 - any failure leaves the period to retry, never dropped
                outcome, reason = None, f"{type(e).__name__}: {e}"
                report.errors.append(f"{period_key}: {reason}")
                transient = isinstance(e, HistoryError) and is_transient(e)
                level = logging.WARNING if transient else logging.ERROR
                event(logger, "follower hand-off failed", level, period=period_key, error=reason)
            if sighting is None:
                period = next(p for p in tracker.periods() if p.period_key == period_key)
                for name in tracker.finished(period_key, outcome, reason, now):
                    folder = name.rsplit("/", 1)[0] + "/"
                    self._late.append(_Late(Sighting(name, folder, period_key, period.consensus_ns), now, now))
                continue
            if outcome is None and late is not None:
                if now - late.first < self.settings.follow_give_up_seconds:
                    late.due = now + backoff_seconds(late.attempts)
                    self._late.append(late)
                continue
            if outcome in (Outcome.PENDING, Outcome.QUARANTINED):
                tracker.adopt(sighting, now, reason)

    def _drain(self, report: FollowReport) -> None:
        """Wait for the hand-offs still running and record their results."""
        if self._futures:
            concurrent.futures.wait(list(self._futures), timeout=DRAIN_SECONDS)
        self._collect(report)
        tracker, _ = self._parts()
        tracker.advance()
        self._report_given_up()

    # ---- position, folders, report ---------------------------------------------------------------

    def _store_position(self, report: FollowReport, *, force: bool = False) -> None:
        tracker, discovery = self._parts()
        key, ns = tracker.position()
        listed = discovery.listed
        # A late file not handed off yet must be listed again after a restart.
        outstanding = [late.sighting for late in (*self._late, *self._late_running.values())]
        for sighting in outstanding:
            if sighting.folder in listed:
                listed[sighting.folder] = min(listed[sighting.folder], name_before(sighting.name))
        next_block = self.blocks.next_block if self.blocks is not None else None
        block_ns = self.blocks.last_consensus_ns if self.blocks is not None else None
        fingerprint = (key, tuple(sorted(listed.items())), next_block)
        now = self._clock()
        if fingerprint == self._written or (not force and now - self._last_write < POSITION_WRITE_SECONDS):
            return
        if not self.lease.held:
            return
        position = FollowPosition(self.source_url, key, ns, self._wall_ns() // 1000, listed, next_block, block_ns)
        try:
            write_position(self.ctx.gateway, position)
        except HistoryError as e:
            report.errors.append(f"position: {e}")
            event(logger, "follower position not stored", logging.WARNING, period=key, error=str(e))
            return
        self._written, self._last_write = fingerprint, now

    def _refresh_folders(self, report: FollowReport) -> None:
        tracker, discovery = self._parts()
        try:
            folders = self._book_folders(max(tracker.floor_ns, 0))
        except HistoryError as e:
            report.errors.append(f"address book: {e}")
            event(logger, "follower book not read", logging.WARNING, error=str(e))
            return
        if folders != discovery.folders:
            key, _ = tracker.position()
            for folder, start in self._start_points(folders, key).items():
                discovery.set_default_after(folder, start)
            discovery.set_folders(folders)

    def _book_folders(self, consensus_ns: int) -> list[str]:
        book = self.ctx.books.consensus_book_at(consensus_ns)
        return book_folders(self.location, self.location.identities(book), book)

    @staticmethod
    def _start_points(folders: list[str], period_key: str) -> dict[str, str]:
        return {folder: folder + period_key + AFTER_PERIOD for folder in folders}

    def _keep_lease(self, report: FollowReport) -> bool:
        try:
            kept = self.lease.keep()
        except HistoryError as e:
            report.errors.append(f"lease: {e}")
            kept = False
        if not kept:
            report.lease_lost = True
            event(logger, "follower lease lost", logging.WARNING, source=self.source_url)
        return kept

    def _report_given_up(self) -> None:
        tracker, _ = self._parts()
        for given in tracker.given_up[self._reported_given_up :]:
            _report(given)
        self._reported_given_up = len(tracker.given_up)

    def _fill(self, report: FollowReport) -> None:
        if self.tracker is None or self.discovery is None:
            return
        key, ns = self.tracker.position()
        report.period = key
        report.lag_seconds = round((self._wall_ns() - ns) / 1e9, 3)
        report.handed_off = self.tracker.handed_off
        report.published = self.tracker.published
        report.pending = self.tracker.unfinished
        report.given_up = [g.period_key for g in self.tracker.given_up]
        report.late_files = self.tracker.late_files
        report.list_calls = self.discovery.list_calls
        report.list_errors = self.discovery.list_errors
        report.cache_hits, report.cache_misses = self.cache.hits, self.cache.misses
        blocks = self.blocks
        report.mode, report.block = "records", None  # back on record files after blocks stalled, too
        if blocks is not None and blocks.active:
            report.mode, report.block = "blocks", blocks.next_block
            report.blocks_published, report.block_source = blocks.published, blocks.last_source
            if blocks.last_consensus_ns is not None:
                report.lag_seconds = round((self._wall_ns() - blocks.last_consensus_ns) / 1e9, 3)

    def _parts(self) -> tuple[Tracker, Discovery]:
        assert self.tracker is not None and self.discovery is not None, "the follower has not begun"
        return self.tracker, self.discovery


def name_before(name: str) -> str:
    """A string after every object name below ``name`` and before ``name`` itself (listing after it
    lists ``name`` again): its last character one lower, then ``~`` (above every character stream
    file names use)."""
    if not name:
        return name
    return name[:-1] + chr(ord(name[-1]) - 1) + AFTER_PERIOD


def _listed_ns(name: str, folder: str) -> int:
    try:
        return parse_timestamp(name.removeprefix(folder)[: name.removeprefix(folder).find("Z") + 1])
    except HistoryError:
        return -1


def _report(given: GivenUp) -> None:
    event(
        logger,
        "period without consensus",
        logging.ERROR,
        period=given.period_key,
        attempts=given.attempts,
        waited_seconds=round(given.waited_seconds, 1),
        reason=given.reason,
    )


def _summary(report: FollowReport) -> dict[str, object]:
    return {
        "source": report.source_url,
        "lag_seconds": report.lag_seconds,
        "period": report.period,
        "handed_off": report.handed_off,
        "pending": report.pending,
        "given_up": len(report.given_up),
        "published": report.published,
        "late_files": report.late_files,
        "mode": report.mode,
        "block": report.block,
        "block_source": report.block_source,
    }


__all__ = ["FollowReport", "Follower", "follow_source_url", "stream_location"]
