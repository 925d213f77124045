"""The block handler: one block file (HIP-1056), uploaded or fetched by the follower, verified and
published like a record period.

A block carries its own proof (the nodes' RSA signatures for a wrapped record block, the
network's TSS signature for a native block), so nothing waits for other nodes' signature files:
one read, one verification, one publication. Per block:

1. parse it and check it (:func:`~hedera_history.verify.blocks.check_parsed_block`): root hash,
   footer links against the blocks this checker saw before it, a wrapped record file rebuilt and
   checked with the book in force at its time, the proof;
2. link it to the stored chain (``chain_links``), which is all there is when the checker did not
   see the block before it (an upload, a restarted follower): its number must be the stored
   last block's + 1 (a block stored complete without a link, as a backfill or a load writes it,
   counts as its link: ``stored_predecessor``); a wrapped block's previous hash must be the stored
   block's running hash; a native block after a native block must name its root. The first native
   block after a record file names a root that cannot be recomputed from the record file (it needs
   the network's all-history state): that root is recorded and logged, and the block's own TSS
   proof is the trust, as the mirror node does (``CutoverServiceImpl``). A wrapped block after a
   native block must name that block's root in its footer (it has no running hash to link to).
   A block whose number is already published or stored complete with another hash is refused
   whatever its proof (``ConflictingBlockError``, ``block conflict``): one number holds one block;
3. publish its Cardinal batch (``pipeline.ingest_publish``) and record its link;
4. uploaded (:func:`ingest_block_upload`): publish the blocks after it already in the bucket, which
   waited for it (uploads come in any order; the call that publishes the missing link publishes
   the ones after it).

A block that fails its proof or breaks the chain is quarantined (bytes kept, reason in the
``quarantine`` table, ``block rejected`` logged as an error) and never published; one whose
predecessor is not stored yet is pending. Publishing twice is harmless (the same bytes).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from hedera_history.block import VerifiedBlock
from hedera_history.books.updates import AddressBookTracker
from hedera_history.config import Settings
from hedera_history.errors import (
    BrokenChainError,
    ConflictingBlockError,
    FormatError,
    HistoryError,
    ObjectNotFoundError,
    TssUnverifiableProofError,
)
from hedera_history.formats.block import BlockFile, parse_block_file
from hedera_history.formats.block_record_file import BLOCK_FILE_VERSION
from hedera_history.formats.names import BUCKET_BLOCK_PATH, block_file_path, parse_block_file_name
from hedera_history.logs import event
from hedera_history.pipeline.blocks_in_hand import BlocksInHand
from hedera_history.pipeline.ingest_context import IngestContext, IngestResult, Outcome, lag_seconds, logger
from hedera_history.pipeline.ingest_publish import publish_batch
from hedera_history.pipeline.ingest_quarantine import quarantine
from hedera_history.pipeline.state_cells import Link
from hedera_history.sources.ledger_trust import ledger_tss_check
from hedera_history.store.reader import HistoryReader
from hedera_history.verify.block_chain import BlockChain
from hedera_history.verify.block_tss import LedgerTssCheck
from hedera_history.verify.block_verified import verified_block
from hedera_history.verify.blocks import BlockCheckOptions, BlockReport, check_parsed_block, conflicting_block

NATIVE_LINK_SUFFIX = ".blk"
"""A native block's link is recorded under its block-node name (``<19 digits>.blk``): how the
next block tells a native predecessor (whose root it names) from a record file."""


@dataclass
class BlockChecker:
    """What checking blocks one after another shares: the chain of roots seen, the TSS trust."""

    tss: LedgerTssCheck
    chain: BlockChain = field(default_factory=BlockChain)
    last_number: int | None = None
    """The block the chain ends with, None before the first."""
    last_consensus_ns: int | None = None
    """Consensus end of the last block that verified (the follower's lag is measured on it)."""

    def follows(self, number: int) -> bool:
        return self.last_number is not None and self.last_number == number - 1


def block_checker(settings: Settings) -> BlockChecker:
    """A checker for the configured ledger (``ledger_publication``, ``ledger_id``)."""
    return BlockChecker(ledger_tss_check(settings))


def ingest_block(
    ctx: IngestContext,
    name: str,
    data: bytes,
    checker: BlockChecker,
    hand: BlocksInHand | None = None,
    *,
    parsed: BlockFile | None = None,
) -> IngestResult:
    """Verify the block file ``name`` and publish it (see the module). With ``hand`` (an uploaded
    block), a block whose predecessor another call has in hand is verified meanwhile and published
    once that predecessor's link is stored (``pipeline.blocks_in_hand``). ``parsed``: ``data``
    already parsed by the caller (the follower reads the block's registered nodes from it too), so
    it is not decompressed and parsed twice."""
    try:
        block = (
            parse_block_file(data, name, max_decompressed=ctx.settings.max_decompressed_bytes)
            if parsed is None
            else parsed
        )
    except FormatError as e:
        checker.chain.lose()
        checker.last_number = None
        return _rejected(ctx, name, data, e, number=None, consensus_ns=0)
    links = ctx.state.links([block.number - 1, block.number])
    previous = links.get(block.number - 1, [])
    waiting = block.number > ctx.settings.first_block and not previous and not checker.follows(block.number)
    if waiting and (hand is None or not hand.held_by_another(block.number - 1)):
        return _waiting(name, block.number)
    return _verify_and_publish(ctx, name, data, block, links, checker, hand if waiting else None)


def _verify_and_publish(
    ctx: IngestContext,
    name: str,
    data: bytes,
    block: BlockFile,
    links: dict[int, list[Link]],
    checker: BlockChecker,
    predecessor_in_hand: BlocksInHand | None,
) -> IngestResult:
    """Steps 1-3 of the module for a block that links to a stored block, or whose predecessor
    another call has in hand (``predecessor_in_hand``: its link is waited for once this block is
    verified)."""
    previous = links.get(block.number - 1, [])
    if not checker.follows(block.number):
        checker.chain.lose()
    report = check_in_context(ctx, block, checker.chain, checker.tss)
    checker.last_number = block.number if report.ok else None
    stored_own = links.get(block.number, [])
    try:
        verified = verified_block(report, accept_unsigned=ctx.settings.unsigned_blocks)
        if predecessor_in_hand is not None:
            previous = predecessor_in_hand.wait_for_link(block.number - 1)
            if not previous:
                return _waiting(name, block.number)
            stored_own = ctx.state.links([block.number]).get(block.number, [])
        elif not previous and block.number > 0:
            previous = stored_predecessor(HistoryReader(ctx.gateway), block.number - 1)
        _check_stored_link(block, report, verified, previous)
        own = _own_link(block, report, verified)
        if not any(link.hash == own.hash for link in stored_own):
            check_no_other_block(HistoryReader(ctx.gateway), block.number, own.hash, stored_own, file=name)
    except HistoryError as e:
        checker.chain.lose()
        checker.last_number = None
        # A block's proof is inside it: only a missing roster (configuration) can change the verdict.
        if isinstance(e, TssUnverifiableProofError):
            event(logger, "block not verifiable", logging.ERROR, block=block.number, file=name, reason=str(e))
            return IngestResult(Outcome.PENDING, name, block.number, reason=str(e))
        if isinstance(e, ConflictingBlockError):
            event(logger, "block conflict", logging.ERROR, block=block.number, file=name, reason=str(e))
        return _rejected(ctx, name, data, e, number=block.number, consensus_ns=block.timestamp_ns)
    checker.last_consensus_ns = verified.record.consensus_end
    if any(link.hash == own.hash for link in stored_own):
        return IngestResult(Outcome.ALREADY_PUBLISHED, name, block.number)
    ctx.books.record_block(verified)
    messages = publish_batch(ctx, verified)
    ctx.state.record_link(block.number, own.hash, own.previous, own.period_key)
    event(
        logger,
        "block verified",
        block=block.number,
        file=name,
        native=not block.wrapped,
        items=len(verified.record.items),
        messages=messages,
        lag_seconds=lag_seconds(verified.record.consensus_end),
    )
    return IngestResult(Outcome.PUBLISHED, name, block.number)


def check_in_context(ctx: IngestContext, block: BlockFile, chain: BlockChain, tss: LedgerTssCheck) -> BlockReport:
    """Check ``block`` against ``chain`` with the deployment's settings: a wrapped record block with
    the consensus book in force at its time, a native block's proof with ``tss``."""
    books = AddressBookTracker(ctx.books.consensus_book_at(block.timestamp_ns)) if block.wrapped else None
    options = BlockCheckOptions(ratio=ctx.ratio, tss=tss, max_decompressed=ctx.settings.max_decompressed_bytes)
    return check_parsed_block(block, chain, books, options)


def _waiting(name: str, number: int) -> IngestResult:
    reason = f"waiting for block {number - 1}"
    event(logger, "block pending", logging.INFO, block=number, file=name, reason=reason)
    return IngestResult(Outcome.PENDING, name, number, reason=reason)


SUCCESSORS_PER_CALL = 100
"""Most waiting blocks one upload's call publishes after its own (the next upload takes the rest)."""


def ingest_block_upload(ctx: IngestContext, name: str, checker: BlockChecker) -> IngestResult:
    """An uploaded block file: ingest it, then the blocks after it that are in the bucket already
    (but for one another call has in hand: that call goes on after it)."""
    hand = BlocksInHand(ctx.state)
    result = _ingest_in_hand(ctx, name, parse_block_file_name(name).number, checker, hand)
    if result.outcome is not Outcome.PUBLISHED or result.block_number is None:
        return result
    number = result.block_number
    for _ in range(SUCCESSORS_PER_CALL):
        number += 1
        if hand.held_by_another(number) and hand.wait_for_link(number):
            break
        try:
            following = _ingest_in_hand(ctx, successor_name(name, number), number, checker, hand)
        except ObjectNotFoundError:
            break
        if following.outcome is not Outcome.PUBLISHED:
            break
    return result


def _ingest_in_hand(
    ctx: IngestContext, name: str, number: int | None, checker: BlockChecker, hand: BlocksInHand
) -> IngestResult:
    """Read and ingest ``name``, block ``number`` (from its name) marked in hand meanwhile."""
    if number is not None:
        hand.take(number)
    try:
        return ingest_block(ctx, name, ctx.source.read(name), checker, hand)
    finally:
        if number is not None:
            hand.drop(number)


def successor_name(name: str, number: int) -> str:
    """Block ``number``'s file beside ``name``: the same folder, layout and compression."""
    parsed = parse_block_file_name(name)
    bucket = BUCKET_BLOCK_PATH.fullmatch(name) is not None
    own = block_file_path(parsed.number or 0, compression=parsed.compression, bucket=bucket)
    if bucket or parsed.name == own:
        return name[: len(name) - len(own)] + block_file_path(number, compression=parsed.compression, bucket=bucket)
    return (
        name[: len(name) - len(parsed.name)]
        + f"{number}.blk"
        + (f".{parsed.compression}" if parsed.compression else "")
    )


def _own_link(block: BlockFile, report: BlockReport, verified: VerifiedBlock) -> Link:
    """The link recorded for the block: a wrapped block's running hashes (as the record file it
    wraps), a native block's roots."""
    if block.wrapped:
        return Link(verified.hash, verified.previous_hash, verified.record.name)
    assert report.hashes is not None
    name = f"{block.number:019d}{NATIVE_LINK_SUFFIX}"
    return Link(report.hashes.root, block.footer.previous_block_root_hash, name)


def check_no_other_block(
    reader: HistoryReader, number: int, block_hash: bytes, published: list[Link], *, file: str
) -> None:
    """ConflictingBlockError when block ``number`` is already published (its link recorded) or
    stored complete with another hash than ``block_hash``: one number holds one block, whatever
    the second one's proof (under a weak trust root two blocks N can both verify)."""
    other = next((link.hash for link in published if link.hash != block_hash), None)
    if other is None:
        shown = reader.shown_hashes([number]).get(number)
        other = shown if shown is not None and shown != block_hash else None
    if other is not None:
        raise conflicting_block(number, other, block_hash, file=file)


def stored_predecessor(reader: HistoryReader, number: int) -> list[Link]:
    """Block ``number`` stored complete without a link (a backfill or a load records none), as the
    link ingest would have recorded for it; empty when it is not stored. The first block a follower
    reads after such blocks is checked against it like any other."""
    stored = reader.get_block(number)
    if stored is None:
        return []
    if stored.version == BLOCK_FILE_VERSION and stored.wrapped_envelope is None:
        return [Link(stored.file_hash, stored.previous_hash, f"{number:019d}{NATIVE_LINK_SUFFIX}")]
    return [Link(stored.end_running_hash or stored.file_hash, stored.previous_hash, stored.name)]


def _check_stored_link(block: BlockFile, report: BlockReport, verified: VerifiedBlock, previous: list[Link]) -> None:
    """BrokenChainError when the block names another predecessor than the stored one."""
    if not previous:
        return
    native_before = [link for link in previous if link.period_key.endswith(NATIVE_LINK_SUFFIX)]
    if block.wrapped and native_before and len(native_before) == len(previous):
        # A wrapped record block after a native block: its running hashes link to no record file,
        # so its footer must name the native block's root, as every block's footer does.
        named, what, comparable = block.footer.previous_block_root_hash, "previous block root hash", native_before
    elif block.wrapped:
        named, what = verified.previous_hash, "previous running hash"
        comparable = [link for link in previous if not link.period_key.endswith(NATIVE_LINK_SUFFIX)]
    else:
        named, what = block.footer.previous_block_root_hash, "previous block root hash"
        comparable = [link for link in previous if link.period_key.endswith(NATIVE_LINK_SUFFIX)]
        if not comparable:
            # After a record file (or wrapped block): the root it names needs the network's
            # all-history state to recompute; recorded with the link, the TSS proof is the trust.
            event(
                logger,
                "block after record file",
                block=block.number,
                previous_root=named.hex(),
                previous_period=previous[-1].period_key,
            )
            return
    if comparable and all(link.hash != named for link in comparable):
        raise BrokenChainError(
            f"block {block.number} names {what} {named.hex()[:16]}…, block {block.number - 1} stored is "
            f"{comparable[-1].hash.hex()[:16]}…",
            file=block.name,
        )


def _rejected(
    ctx: IngestContext, name: str, data: bytes, error: HistoryError, *, number: int | None, consensus_ns: int
) -> IngestResult:
    quarantine(ctx, name, data, error, node="", consensus_ns=consensus_ns)
    event(
        logger, "block rejected", logging.ERROR, block=number, file=name, error=type(error).__name__, reason=str(error)
    )
    return IngestResult(Outcome.QUARANTINED, name, number, reason=str(error), quarantined=(name,))


__all__ = ["BlockChecker", "block_checker", "check_in_context", "ingest_block", "ingest_block_upload", "successor_name"]
