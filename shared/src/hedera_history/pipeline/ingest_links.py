"""A verified block's links with its neighbours: a break is recorded (``chain_links``) and alerted
(``chain link broken``), never silently accepted; a block that does not name what was published
before it is never published."""

from __future__ import annotations

import logging

from hedera_history.block import VerifiedBlock
from hedera_history.errors import FileNameError
from hedera_history.formats.names import parse_timestamp
from hedera_history.logs import event
from hedera_history.pipeline.ingest_context import IngestContext, logger
from hedera_history.pipeline.state_cells import PeriodState
from hedera_history.sources.period_files import StreamLocation
from hedera_history.sources.period_listing import list_periods


def links_to(predecessor: PeriodState | None, block: VerifiedBlock) -> bool:
    published = predecessor.published if predecessor is not None else None
    return published is not None and published.hash == block.previous_hash


def broken_link_before(
    ctx: IngestContext, block: VerifiedBlock, location: StreamLocation, period_key: str
) -> str | None:
    """Why the block must not be published: it does not name any file published under the number
    before it (recorded and alerted as a broken link); None when it does, or may yet.

    A number may stand on two files (the network gave mainnet's block 44029066 twice; the second
    file names the first): a file may name a same-numbered file before it. When the link does not
    hold but a period lies between the two files in time (one this deployment has seen, or one a
    node folder holds: a node uploads its files in time order, so whoever signed the later file
    holds the ones before it), that period may be such a twin not published yet: the block waits.
    """
    number = block.block_number
    links = ctx.state.links([number - 1, number])
    before = links.get(number - 1, [])
    named = {link.hash for link in before} | {link.hash for link in links.get(number, []) if link.hash != block.hash}
    if not before or block.previous_hash in named:
        return None
    latest = before[-1]
    if _twin_may_lie_between(ctx, location, latest.period_key, period_key):
        return None
    problem = _record_break(ctx, period_key, number, latest.hash, block.previous_hash)
    return f"broken chain link, kept out of the history: {problem}"


def check_links_after(ctx: IngestContext, block: VerifiedBlock, location: StreamLocation, period_key: str) -> None:
    """A published block against the files of the next number published before it (out of order).

    Those are in the history already, so a break found from this side is recorded and alerted, not
    undone; a period between the two files in time may be a twin not published yet (see
    :func:`broken_link_before`), and then nothing is reported from this side.
    """
    number = block.block_number
    links = ctx.state.links([number, number + 1])
    here = {block.hash} | {link.hash for link in links.get(number, [])}
    for after in links.get(number + 1, []):
        if after.previous not in here and not _twin_may_lie_between(ctx, location, period_key, after.period_key):
            _record_break(ctx, period_key, number + 1, block.hash, after.previous)


def pre_v6_break(
    ctx: IngestContext, location: StreamLocation, predecessor: PeriodState | None, block: VerifiedBlock, period_key: str
) -> str | None:
    """The broken link of a verified pre-V6 block that does not name its published predecessor,
    when nothing can lie between them (recorded and alerted); None while a period may still come
    between (not uploaded or not verified yet). Only the sweep asks: it lists node folders."""
    published = predecessor.published if predecessor is not None else None
    if predecessor is None or published is None:
        return None
    if _period_may_lie_between(ctx, location, predecessor.consensus_ns, parse_timestamp(period_key)):
        return None
    problem = _record_break(ctx, period_key, published.block_number + 1, published.hash, block.previous_hash)
    return f"broken chain link, kept out of the history: {problem}"


def _record_break(ctx: IngestContext, period_key: str, later: int, ends_with: bytes, names: bytes) -> str:
    """Record and alert the break before block ``later`` (keyed by it, whichever side found it)."""
    problem = (
        f"block {later - 1} ends with {ends_with.hex()[:16]}…, block {later} names its predecessor {names.hex()[:16]}…"
    )
    ctx.state.record_broken_link(later, problem)
    event(logger, "chain link broken", logging.ERROR, period=period_key, block=later, reason=problem)
    return problem


def _twin_may_lie_between(ctx: IngestContext, location: StreamLocation, earlier_period: str, later_period: str) -> bool:
    try:
        earlier_ns, later_ns = parse_timestamp(earlier_period), parse_timestamp(later_period)
    except FileNameError:
        return False  # a link recorded without its period: judge it as it stands
    return _period_may_lie_between(ctx, location, earlier_ns, later_ns)


def _period_may_lie_between(ctx: IngestContext, location: StreamLocation, earlier_ns: int, later_ns: int) -> bool:
    """A period between the two times is known to this deployment or held by a node folder."""
    if later_ns - earlier_ns < 2:
        return False
    if ctx.state.any_period_between(earlier_ns, later_ns):
        return True
    book = ctx.books.book_at(later_ns)
    # One listed period is enough; dropping the listing closes it (its folder threads stop).
    for _ in list_periods(ctx.source, location, location.identities(book), earlier_ns + 1, later_ns, directory=book):
        return True
    return False
