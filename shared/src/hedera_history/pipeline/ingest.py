"""What the ingest function does with one uploaded object, and the sweep with a pending period.

Any node's record, sidecar or signature file may trigger it, in any order, many at once, for the
same period. Each run reads the period's files from every node folder, verifies the period
(signatures against the address book in force, stake consensus, record and sidecar hashes), and
publishes the block as a Cardinal Streams batch. Every step is idempotent, so concurrent runs for
one period publish the same bytes and the consumer keeps one copy.

Runs triggered by the other uploads of a period while one run verifies it wait for that run's
result (a claim cell with a lifetime, ``pipeline.state``) instead of verifying and publishing the
same block again; they then only do their own file's part (a late signature, a copy to check).

Outcomes:

- not a stream file, or outside the configured prefix: ignored;
- consensus not reached yet, a record or sidecar not uploaded yet, a pre-V6 block whose predecessor
  is not known yet: the period is *pending* (a later upload or the sweep retries it);
- verified on an address book or node stakes not certain yet (a block before it not published, so
  what it changed is unknown): *held*, pending until it is, then verified again (at once by the run
  that publishes the blocks before it); never published on a state that may be wrong;
- two hashes each over the threshold: a *fork*, pending and alerted (``consensus fork``), never decided;
- a file that can never verify (a node's bad signature, a copy whose hashes differ from the signed
  ones): that file is *quarantined* (reason in the state table, bytes copied to the quarantine
  location); the period itself goes on from the other nodes' files;
- verified: published; chain links with the neighbouring blocks checked (a break is recorded and
  logged as an error for alerting, never silently accepted);
- already published: a late node signature is verified and its cell added; other files are checked
  against the published hashes (a differing copy is quarantined).
"""

from __future__ import annotations

import enum
import functools
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Protocol

from hedera_history.block import NodeSignature, VerifiedBlock
from hedera_history.books.model import AddressBook
from hedera_history.cardinal.producer import BatchProducer
from hedera_history.config import Settings
from hedera_history.errata.ingest import ErrataStatus, process_errata_object
from hedera_history.errata.layout import is_errata_path, parse_errata_path
from hedera_history.errors import (
    BlockPinMismatchError,
    ConfigError,
    ConsensusForkError,
    ErrataError,
    FileNameError,
    FormatError,
    HistoryError,
    NoConsensusError,
    ObjectNotFoundError,
    VerificationError,
    WatermarkRootError,
    is_transient,
)
from hedera_history.formats.dispatch import parse_record_file, parse_signature_file
from hedera_history.formats.layout import BucketLayout, NodeIdentity, ObjectPath, node_account, parse_object_path
from hedera_history.formats.names import StreamFileKind, parse_stream_file_name, parse_timestamp
from hedera_history.logs import event
from hedera_history.networks.block_numbers import BlockPin, pin_problem
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.pipeline.publish import block_for_stream
from hedera_history.pipeline.state import ERRATA_CLAIM, IngestState, PeriodState, Published
from hedera_history.sources.base import ObjectSink, ObjectSource
from hedera_history.sources.period_files import SourcePeriod, StreamLocation
from hedera_history.sources.period_listing import ListedPeriod, list_periods
from hedera_history.sources.pinned_numbers import range_numbering
from hedera_history.store import schema as s
from hedera_history.store.chaintime import block_time_ns
from hedera_history.store.duplicates import parse_duplicate_blocks
from hedera_history.store.gateway import write_or_raise
from hedera_history.store.model import Row
from hedera_history.store.rows import block_to_rows, signature_row
from hedera_history.transport.message import OutgoingMessage
from hedera_history.verify.consensus import OK, count_signatures
from hedera_history.verify.period import PeriodReport, check_period, collect_signatures
from hedera_history.verify.signatures import verify_node_signature

if TYPE_CHECKING:  # the Bigtable client costs a cold start a third of a second: imported on first use
    from hedera_history.store.bigtable_client import BigtableDataGateway

logger = logging.getLogger(__name__)

CLAIM_TTL_SECONDS = 30.0
"""How long one run may hold a period's verification claim (far above a period's verification
time); a run that dies holding it delays the period by at most this."""
CLAIM_POLL_SECONDS = 0.05
HELD_FOR_STATE = "held until the address book and node stakes in force are certain"
"""How the pending reason of a period verified on a state not certain yet begins."""
RELEASE_LIMIT = 8
"""Held periods one publication verifies again at once (the sweep takes the rest)."""


class Outcome(enum.StrEnum):
    IGNORED = "ignored"
    PENDING = "pending"
    PUBLISHED = "published"
    ALREADY_PUBLISHED = "already published"
    SIGNATURE_ADDED = "signature added"
    QUARANTINED = "quarantined"
    ERRATA_APPLIED = "errata applied"


@dataclass(frozen=True, slots=True)
class IngestResult:
    outcome: Outcome
    period_key: str = ""
    block_number: int | None = None
    reason: str = ""
    quarantined: tuple[str, ...] = ()


class Publisher(Protocol):
    def publish_all(self, messages: list[OutgoingMessage]) -> None: ...


@dataclass
class IngestContext:
    settings: Settings
    ratio: Fraction
    source: ObjectSource
    """The stream bucket's root."""
    state: IngestState
    books: AddressBookHistory
    gateway: BigtableDataGateway
    publisher: Publisher
    producer: BatchProducer
    quarantine: ObjectSink | None = None


def ignored_reason(name: str, settings: Settings) -> str | None:
    """Why the object is no concern of the pipeline (None: a stream, sidecar, signature or errata file)."""
    prefix = settings.stream_prefix
    if prefix and not name.startswith(prefix.rstrip("/") + "/"):
        return f"outside the stream prefix {prefix}"
    if is_errata_path(name):
        return None
    try:
        parse_object_path(name)
    except FileNameError as e:
        return e.reason
    return None


def ingest_object(ctx: IngestContext, name: str) -> IngestResult:
    """Handle the upload of ``name`` (relative to the bucket root)."""
    reason = ignored_reason(name, ctx.settings)
    if reason is not None:
        return IngestResult(Outcome.IGNORED, reason=reason)
    if is_errata_path(name):
        return ingest_errata(ctx, name)
    path = parse_object_path(name)
    return ingest_period(ctx, path.file.period_key, StreamLocation.of(path), trigger=path)


def ingest_errata(ctx: IngestContext, name: str) -> IngestResult:
    """An errata file or a node's signature for one: judge both authorities, apply when they hold
    (``errata.ingest``); too little stake so far stays pending for later uploads and the sweep, a
    refused errata is quarantined with its reasons and changes nothing."""
    parsed = parse_errata_path(name)
    # Nodes ratify with the weights that verify the stream at that time (NodeStake, as consensus).
    book = ctx.books.consensus_book_at(parsed.consensus_ns)
    owner = uuid.uuid4().hex
    give_up = time.monotonic() + 2 * CLAIM_TTL_SECONDS
    # Two errata for one time must not be applied at once (each rewrites the same cells).
    while not ctx.state.try_claim(parsed.consensus_ns, owner, CLAIM_TTL_SECONDS, row=ERRATA_CLAIM):
        if time.monotonic() > give_up:
            reason = "another run kept the claim on this errata time"
            ctx.state.mark_errata_pending(parsed.consensus_ns, parsed.errata_file, reason)
            return IngestResult(Outcome.PENDING, parsed.time_text, reason=reason)
        time.sleep(CLAIM_POLL_SECONDS)
    try:
        outcome = process_errata_object(ctx.source, name, ctx.settings, ctx.gateway, book)
    finally:
        ctx.state.release_claim(parsed.consensus_ns, owner, row=ERRATA_CLAIM)
    reason = "; ".join(outcome.reasons)
    key = parsed.time_text
    if outcome.status is ErrataStatus.PENDING:
        ctx.state.mark_errata_pending(parsed.consensus_ns, outcome.errata_path, reason)
        return IngestResult(Outcome.PENDING, key, reason=reason)
    ctx.state.clear_errata_pending(parsed.consensus_ns)
    if outcome.status is ErrataStatus.REJECTED:
        error = ErrataError(reason or "errata refused", file=outcome.errata_path)
        data = _read(ctx.source, outcome.errata_path) or b""
        _quarantine(ctx, outcome.errata_path, data, error, node="", consensus_ns=parsed.consensus_ns)
        return IngestResult(Outcome.QUARANTINED, key, reason=reason, quarantined=(outcome.errata_path,))
    if outcome.status is ErrataStatus.APPLIED:
        return IngestResult(Outcome.ERRATA_APPLIED, key, reason=reason)
    return IngestResult(Outcome.ALREADY_PUBLISHED, key, reason=reason)


def ingest_period(
    ctx: IngestContext,
    period_key: str,
    location: StreamLocation,
    *,
    trigger: ObjectPath | None = None,
    sweeping: bool = False,
) -> IngestResult:
    result = _ingest_period(ctx, period_key, location, trigger=trigger, sweeping=sweeping)
    if result.outcome is Outcome.PENDING and (result.reason or "").startswith(HELD_FOR_STATE):
        # The run that published what this period waits for may have looked for held periods
        # just before this one was marked held: look once more, now that the mark is written.
        result = _ingest_period(ctx, period_key, location, trigger=None, sweeping=sweeping)
    if result.outcome is Outcome.PUBLISHED:
        _release_held(ctx, parse_timestamp(period_key), sweeping=sweeping)
    return result


def _release_held(ctx: IngestContext, after_ns: int, *, sweeping: bool) -> None:
    """Verify again, right away, the periods after a publication that were held for the state in
    force (a held period otherwise waits for its next upload or the sweep): each may now be
    certain. At most :data:`RELEASE_LIMIT`, in time order, stopping at the first still held."""
    for _ in range(RELEASE_LIMIT):
        following = next(iter(ctx.state.pending(1, after=after_ns)), None)
        if following is None:
            return
        state = ctx.state.period(following.consensus_ns)
        if state is None or state.location is None or not state.reason.startswith(HELD_FOR_STATE):
            return
        result = _ingest_period(ctx, following.period_key, state.location, trigger=None, sweeping=sweeping)
        if result.outcome is not Outcome.PUBLISHED:
            return
        after_ns = following.consensus_ns


def _ingest_period(
    ctx: IngestContext,
    period_key: str,
    location: StreamLocation,
    *,
    trigger: ObjectPath | None,
    sweeping: bool,
) -> IngestResult:
    consensus_ns = parse_timestamp(period_key)
    book = ctx.books.consensus_book_at(consensus_ns)
    owner = uuid.uuid4().hex
    give_up = time.monotonic() + 2 * CLAIM_TTL_SECONDS
    while True:
        known = ctx.state.period(consensus_ns)
        if known is not None and known.published is not None:
            return _already_published(ctx, known.published, period_key, trigger, book)
        if ctx.state.try_claim(consensus_ns, owner, CLAIM_TTL_SECONDS):
            try:
                # Read again under the claim: the run that held it may have published the period
                # and released the claim between the read above and this claim.
                known = ctx.state.period(consensus_ns)
                if known is not None and known.published is not None:
                    return _already_published(ctx, known.published, period_key, trigger, book)
                return _verify_and_publish(ctx, period_key, location, book, trigger=trigger, sweeping=sweeping)
            finally:
                ctx.state.release_claim(consensus_ns, owner)
        if time.monotonic() > give_up:
            reason = "another run kept the period's verification claim"
            ctx.state.mark_pending(consensus_ns, period_key, location, reason)
            return IngestResult(Outcome.PENDING, period_key, reason=reason)
        time.sleep(CLAIM_POLL_SECONDS)  # another run is verifying the period: wait for its result


def _already_published(
    ctx: IngestContext, published: Published, period_key: str, trigger: ObjectPath | None, book: AddressBook
) -> IngestResult:
    ctx.state.clear_pending(parse_timestamp(period_key))
    if trigger is None:
        return IngestResult(Outcome.ALREADY_PUBLISHED, period_key, published.block_number)
    return _after_publication(ctx, trigger, published, book)


def _verify_and_publish(
    ctx: IngestContext,
    period_key: str,
    location: StreamLocation,
    book: AddressBook,
    *,
    trigger: ObjectPath | None,
    sweeping: bool,
) -> IngestResult:
    consensus_ns = parse_timestamp(period_key)
    # Before anything can be published: a run that dies from here on leaves the reconciler a trace.
    ctx.state.mark_unconfirmed(consensus_ns, period_key, location)
    files, verify = _verifier(ctx, location, period_key, book)
    report = verify(block_number=None)
    predecessor: PeriodState | None = None
    first_of_chain = False
    candidate: int | None = None
    if report.record is not None and report.record.block_number is None:
        # Only files before V6 need their predecessor (a scan of the state rows before them), so
        # V6 periods never pay for it; the signatures read are cached, the record is read again.
        predecessor, candidate, first_of_chain = _pre_v6_number(ctx, period_key, location, book, sweeping)
        if first_of_chain and candidate is not None and candidate > ctx.settings.first_block:
            # Nothing would ever connect to the watermark's root: say so instead of stalling.
            root = WatermarkRootError(
                f"the deployment's first block is numbered {candidate} (start block or block pin) but "
                f"HEDERA_HISTORY_FIRST_BLOCK is {ctx.settings.first_block}: the contiguous watermark "
                f"could never start; set HEDERA_HISTORY_FIRST_BLOCK={candidate}",
                file=period_key,
            )
            ctx.state.mark_pending(consensus_ns, period_key, location, str(root))
            event(logger, "first block mismatch", logging.ERROR, period=period_key, reason=str(root))
            raise root
        if candidate is not None:
            report = verify(block_number=candidate)
            problem = _pin_problem(ctx, report)
            if problem is not None:
                # The files are not at fault, the numbering is: no quarantine, the period stays
                # pending and the call fails loudly.
                ctx.state.mark_pending(consensus_ns, period_key, location, str(problem))
                event(logger, "block pin mismatch", logging.ERROR, period=period_key, reason=str(problem))
                raise problem
    number = _block_number(report, candidate)
    certain = number is not None and _book_certain(ctx, number)
    if certain and report.record is not None:
        # The book was read before the claim: the keeper may have applied a change since. Read
        # now, after the certainty check, it is the state in force; verify again if it differs
        # (else a rotated-out key could count, and a rotated-in one be quarantined as bad).
        current = ctx.books.consensus_book_at(consensus_ns)
        if current != book:
            book = current
            files, verify = _verifier(ctx, location, period_key, book)
            report = verify(block_number=None if report.record.block_number is not None else number)
    if report.record is not None and not certain and number is not None:
        # The keeper lags: when every earlier block is recorded, their book and stake changes give
        # the state in force exactly; verify again if it keys or weighs the nodes otherwise.
        projected = ctx.books.projected_consensus_book(number, consensus_ns)
        if projected is not None:
            certain = True
            if projected != book:
                book = projected
                files, verify = _verifier(ctx, location, period_key, book)
                report = verify(block_number=None if report.record.block_number is not None else number)
    quarantined = _quarantine_bad_trigger(ctx, trigger, report, files, book) if certain else ()
    if report.block is not None:
        block = report.block
        if block.record.block_number is None and not first_of_chain and not _links(predecessor, block):
            broken = _pre_v6_break(ctx, location, predecessor, block, period_key) if sweeping else None
            reason = broken or "waiting for the previous block (files before V6 carry no block number)"
            ctx.state.mark_pending(consensus_ns, period_key, location, reason)
            return IngestResult(Outcome.PENDING, period_key, reason=reason, quarantined=quarantined)
        broken = _broken_link_before(ctx, block, location, period_key)
        if broken is not None:
            # Never published: the block's link to the one before it is broken (recorded, alerted).
            ctx.state.mark_pending(consensus_ns, period_key, location, broken)
            return IngestResult(Outcome.PENDING, period_key, reason=broken, quarantined=quarantined)
        if not certain:
            # Verified on a state an earlier block not published yet may change (a key rotated, the
            # day's stakes): never published so; verified again once that block is (docs/pipeline.md).
            return _hold(ctx, period_key, location, block.block_number, quarantined)
        published = _publish(ctx, block, location, period_key)
        if trigger is not None and trigger.file.kind is StreamFileKind.RECORD:
            late = _after_publication(ctx, trigger, published, book)  # is the triggering copy the signed one?
            quarantined += late.quarantined
        return IngestResult(Outcome.PUBLISHED, period_key, block.block_number, quarantined=quarantined)

    error = report.error
    assert error is not None
    if isinstance(error, ConfigError) and report.record is not None and report.record.block_number is None:
        error = NoConsensusError("waiting for the previous block (files before V6 carry no block number)")
    reason = str(error)
    ctx.state.mark_pending(consensus_ns, period_key, location, reason)
    if is_transient(error) and not isinstance(error, NoConsensusError):
        raise error  # the store or bucket did not answer: fail the call; the sweep retries too
    if not isinstance(error, NoConsensusError | ObjectNotFoundError):
        quarantined += _quarantine_checked_copy(ctx, report, location, error)
    event(
        logger,
        "period pending",
        logging.INFO,
        period=period_key,
        reason=reason,
        error_type=type(error).__name__,
        lag_seconds=_lag_seconds(consensus_ns),
    )
    if isinstance(error, ConsensusForkError):
        # Two signed histories for one period: held (pending) for an operator, never chosen. Alerted
        # whatever the state: even keys rotated out signing another hash with 1/3 of the stake is
        # an incident (and the period is judged again with every retry).
        event(logger, "consensus fork", logging.ERROR, period=period_key, reason=str(error))
    outcome = Outcome.QUARANTINED if quarantined else Outcome.PENDING
    return IngestResult(outcome, period_key, reason=reason, quarantined=quarantined)


def _verifier(
    ctx: IngestContext, location: StreamLocation, period_key: str, book: AddressBook
) -> tuple[SourcePeriod, Callable[..., PeriodReport]]:
    """The period's files (the nodes of ``book``) and a check of them against ``book``."""
    files = SourcePeriod.for_book(ctx.source, location, period_key, book)
    verify = functools.partial(
        check_period,
        files,
        book,
        ratio=ctx.ratio,
        sidecars=ctx.settings.sidecars_enabled,
        max_decompressed=ctx.settings.max_decompressed_bytes,
    )
    return files, verify


def _block_number(report: PeriodReport, candidate: int | None) -> int | None:
    """The block's number: the record's (V6), else the one it was verified with (before V6)."""
    record = report.record
    if record is None:
        return None
    if record.block_number is not None:
        return record.block_number
    return report.block.block_number if report.block else candidate


def _book_certain(ctx: IngestContext, number: int) -> bool:
    """Every block before this one has had its address-book and stake changes applied."""
    return ctx.books.applied_through() >= number - 1


def _hold(
    ctx: IngestContext, period_key: str, location: StreamLocation, number: int, quarantined: tuple[str, ...]
) -> IngestResult:
    """Keep a period verified on a state that is not certain pending (``HELD_FOR_STATE``)."""
    applied = ctx.books.applied_through()
    reason = (
        f"{HELD_FOR_STATE}: block {number} needs the changes of blocks {applied + 1}-{number - 1}, "
        "not all published yet"
    )
    consensus_ns = parse_timestamp(period_key)
    ctx.state.mark_pending(consensus_ns, period_key, location, reason)
    event(
        logger,
        "period pending",
        logging.INFO,
        period=period_key,
        reason=reason,
        error_type="held",
        lag_seconds=_lag_seconds(consensus_ns),
    )
    return IngestResult(Outcome.PENDING, period_key, number, reason=reason, quarantined=quarantined)


def recheck_signatures(ctx: IngestContext, consensus_ns: int, period_key: str, block_number: int) -> bool:
    """Verify again, on the now certain book, every node signature of a period published on an
    uncertain one: valid ones get their cells, the others are quarantined; and weigh the block's
    consensus again (:func:`_check_consensus_held`). False: not certain yet."""
    if ctx.books.applied_through() < block_number - 1:
        return False
    known = ctx.state.period(consensus_ns)
    if known is None or known.published is None or known.location is None:
        ctx.state.clear_recheck(consensus_ns)
        return True
    book = ctx.books.consensus_book_at(consensus_ns)
    name = parse_stream_file_name(period_key + ".rcd_sig")
    for node in known.location.identities(book):
        path = parse_object_path(known.location.path(node, name, book))
        _after_publication(ctx, path, known.published, book)
    _check_consensus_held(ctx, known.location, period_key, known.published, book)
    ctx.state.clear_recheck(consensus_ns)
    return True


def _check_consensus_held(
    ctx: IngestContext, location: StreamLocation, period_key: str, published: Published, book: AddressBook
) -> None:
    """A block published before the state in force was certain (a predecessor carrying a stake or
    book update was not published yet) may lack consensus once weighed with it. History is never
    taken back: such a block is an ERROR for the operator (``consensus lost``), to be corrected by
    an errata if it is wrong."""
    files = SourcePeriod.for_book(ctx.source, location, period_key, book)
    result = count_signatures(collect_signatures(files), book, ratio=ctx.ratio)
    if result.reached and result.file_hash == published.file_hash:
        return
    reason = (
        f"weighed with the state in force, the published file hash holds stake {result.stake} of {result.total_stake}"
        if result.file_hash == published.file_hash
        else "weighed with the state in force, another file hash leads"
    )
    event(
        logger,
        "consensus lost",
        logging.ERROR,
        period=period_key,
        block=published.block_number,
        reason=reason,
    )


def _pre_v6_number(
    ctx: IngestContext, period_key: str, location: StreamLocation, book: AddressBook, sweeping: bool
) -> tuple[PeriodState | None, int | None, bool]:
    """(the published predecessor, the block number to verify with, whether it starts the chain)."""
    consensus_ns = parse_timestamp(period_key)
    predecessor = ctx.state.published_before(consensus_ns)
    if predecessor is not None and predecessor.published is not None:
        return predecessor, predecessor.published.block_number + 1, False
    if sweeping and not ctx.state.any_period_before(consensus_ns):
        # Only the sweep numbers the first pre-V6 block, so a period that merely arrived early
        # does not take the number of the one before it. With a block pin, one listing of the
        # node folders between this period and the pin counts its number.
        first = range_numbering(
            [ListedPeriod(period_key, consensus_ns, 0)],
            pin=BlockPin.parse(ctx.settings.block_pin),
            start_block=ctx.settings.start_block,
            start_ns=consensus_ns,
            end_ns=consensus_ns + 1,
            source=ctx.source,
            location=location,
            nodes=location.identities(book),
            book=book,
            max_decompressed=ctx.settings.max_decompressed_bytes,
        ).start_block
        return predecessor, first, True
    return predecessor, None, False


def _pin_problem(ctx: IngestContext, report: PeriodReport) -> BlockPinMismatchError | None:
    """How the verified block and the block pin disagree, if they do (the file ending at the pin
    numbered otherwise, or a file straddling the pin)."""
    pin = BlockPin.parse(ctx.settings.block_pin)
    block = report.block
    if pin is None or block is None:
        return None
    return pin_problem(
        pin,
        name=block.record.name,
        consensus_start=block.record.consensus_start,
        consensus_end=block.record.consensus_end,
        number=block.block_number,
        previous_end=None,
    )


def _links(predecessor: PeriodState | None, block: VerifiedBlock) -> bool:
    published = predecessor.published if predecessor is not None else None
    return published is not None and published.hash == block.previous_hash


def _publish(ctx: IngestContext, block: VerifiedBlock, location: StreamLocation, period_key: str) -> Published:
    ctx.books.record_block(block)
    messages = publish_batch(ctx, block)
    record = block.record
    ctx.state.record_link(block.block_number, block.hash, block.previous_hash, period_key)
    _check_links(ctx, block, location, period_key)
    published = Published(block.block_number, record.file_hash, block.hash, block.previous_hash, block_time_ns(record))
    ctx.state.mark_published(parse_timestamp(period_key), location, published)
    event(
        logger,
        "period verified",
        period=period_key,
        block=block.block_number,
        items=len(record.items),
        sidecars=len(block.sidecars),
        signatures=len(block.signatures),
        messages=messages,
        lag_seconds=_lag_seconds(record.consensus_end),
    )
    return published


def publish_batch(ctx: IngestContext, block: VerifiedBlock) -> int:
    """Write the block's signature cells and publish its Cardinal batch (the same bytes every time:
    publishing again is harmless). Returns the number of messages."""
    stream = block_for_stream(block, block_to_rows(block, ctx.settings))
    _write(ctx, list(stream.signature_rows))
    messages = [
        OutgoingMessage(topic, message.key, message.value)
        for topic, topic_messages in ctx.producer.produce(stream.batch).items()
        for message in topic_messages
    ]
    ctx.publisher.publish_all(messages)
    return len(messages)


def _broken_link_before(
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


def _check_links(ctx: IngestContext, block: VerifiedBlock, location: StreamLocation, period_key: str) -> None:
    """A published block against the files of the next number published before it (out of order).

    Those are in the history already, so a break found from this side is recorded and alerted, not
    undone; a period between the two files in time may be a twin not published yet (see
    :func:`_broken_link_before`), and then nothing is reported from this side.
    """
    number = block.block_number
    links = ctx.state.links([number, number + 1])
    here = {block.hash} | {link.hash for link in links.get(number, [])}
    for after in links.get(number + 1, []):
        if after.previous not in here and not _twin_may_lie_between(ctx, location, period_key, after.period_key):
            _record_break(ctx, period_key, number + 1, block.hash, after.previous)


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


def _pre_v6_break(
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
    later = published.block_number + 1
    problem = (
        f"block {later - 1} ends with {published.hash.hex()[:16]}…, block {later} names its predecessor "
        f"{block.previous_hash.hex()[:16]}…"
    )
    ctx.state.record_broken_link(later, problem)
    event(logger, "chain link broken", logging.ERROR, period=period_key, block=later, reason=problem)
    return f"broken chain link, kept out of the history: {problem}"


def _after_publication(
    ctx: IngestContext, trigger: ObjectPath, published: Published, book: AddressBook
) -> IngestResult:
    """A file of an already published period: add a late signature, check a late copy."""
    period_key = trigger.file.period_key
    data = _read(ctx.source, trigger.path)
    if data is None:
        return IngestResult(Outcome.ALREADY_PUBLISHED, period_key, published.block_number)
    account = _node_account(trigger, book)
    try:
        if trigger.file.kind is StreamFileKind.SIGNATURE:
            entry = next((n for n in book.nodes if n.account == account), None)
            if entry is None:
                raise VerificationError(f"node {account} is not in the address book in force", node=account)
            sig = parse_signature_file(data, trigger.file.name, node=account)
            verify_node_signature(sig, entry)
            if sig.file_hash != published.file_hash:
                raise VerificationError(
                    f"signed file hash {sig.file_hash.hex()[:16]}… differs from the published block's "
                    f"{published.file_hash.hex()[:16]}…",
                    node=account,
                )
            signature = NodeSignature(account, entry.node_id, sig.file_signature, sig.metadata_signature)
            duplicates = parse_duplicate_blocks(ctx.settings.duplicate_blocks)
            _write(ctx, [signature_row(published.block_number, published.block_time_ns, signature, duplicates)])
            return IngestResult(Outcome.SIGNATURE_ADDED, period_key, published.block_number)
        if trigger.file.kind is StreamFileKind.RECORD:
            record = parse_record_file(data, trigger.file.name, max_decompressed=ctx.settings.max_decompressed_bytes)
            if record.file_hash != published.file_hash:
                raise VerificationError(
                    f"file hash {record.file_hash.hex()[:16]}… differs from the signed "
                    f"{published.file_hash.hex()[:16]}…",
                    node=account,
                )
    except (FormatError, VerificationError) as e:
        consensus_ns = parse_timestamp(period_key)
        if isinstance(e, VerificationError) and ctx.books.applied_through() < published.block_number - 1:
            # The book in force may still change (a key rotated in an earlier block not applied yet).
            ctx.state.mark_recheck(consensus_ns, period_key, published.block_number)
            return IngestResult(Outcome.ALREADY_PUBLISHED, period_key, published.block_number, str(e))
        if isinstance(e, VerificationError):
            # ``book`` was read before the keeper may have applied the change: judge by the book now.
            current = ctx.books.consensus_book_at(consensus_ns)
            if current != book:
                return _after_publication(ctx, trigger, published, current)
        _quarantine(ctx, trigger.path, data, e, node=account, consensus_ns=consensus_ns)
        return IngestResult(Outcome.QUARANTINED, period_key, published.block_number, str(e), (trigger.path,))
    return IngestResult(Outcome.ALREADY_PUBLISHED, period_key, published.block_number)


def _quarantine_bad_trigger(
    ctx: IngestContext,
    trigger: ObjectPath | None,
    report: PeriodReport,
    files: SourcePeriod,
    book: AddressBook,
) -> tuple[str, ...]:
    """The triggering signature file, when its node's signature can never count."""
    if trigger is None or trigger.file.kind is not StreamFileKind.SIGNATURE or report.consensus is None:
        return ()
    account = _node_account(trigger, book)
    outcome = report.consensus.outcomes.get(account, OK)
    final = outcome.startswith(("bad signature", "unreadable", "unknown node")) or (
        report.consensus.reached and outcome != OK and not outcome.startswith("no signature")
    )
    if outcome == OK or not final:
        return ()
    fetched = files.signature(trigger.node)
    data = fetched.data if fetched is not None else b""
    error = VerificationError(f"{account}: {outcome}", file=trigger.path, node=account)
    _quarantine(ctx, trigger.path, data, error, node=account, consensus_ns=files.consensus_ns)
    return (trigger.path,)


def _quarantine_checked_copy(
    ctx: IngestContext, report: PeriodReport, location: StreamLocation, error: HistoryError
) -> tuple[str, ...]:
    """The record copy that failed its checks (hashes that differ from the signed ones)."""
    record = report.record
    node = error.node or ""
    if record is None or not node:
        return ()
    agreeing = report.consensus.agreeing if report.consensus else ()
    entry = next((n for n, _ in agreeing if n.account == node), None)
    if entry is None:
        return ()
    identity = (
        NodeIdentity(account=node) if location.layout is BucketLayout.ACCOUNT else NodeIdentity(node_id=entry.node_id)
    )
    path = location.path(identity, parse_stream_file_name(record.name.rsplit("/", 1)[-1]))
    data = _read(ctx.source, path) or b""
    _quarantine(ctx, path, data, error, node=node, consensus_ns=parse_timestamp(report.period_key))
    return (path,)


def _quarantine(
    ctx: IngestContext, path: str, data: bytes, error: HistoryError, *, node: str, consensus_ns: int
) -> None:
    copy = ""
    if ctx.quarantine is not None and data:
        # Never replaced: the first copy stays as evidence (the identity may create, not delete).
        ctx.quarantine.create(path, data)
        copy = f"{ctx.quarantine.url.rstrip('/')}/{path}"
    ctx.state.quarantine(consensus_ns, path, reason=str(error), error=type(error).__name__, node=node, copy=copy)
    event(logger, "period quarantined", logging.WARNING, file=path, node=node, reason=str(error), copy=copy)


def _write(ctx: IngestContext, rows: list[Row]) -> None:
    if rows:
        write_or_raise(ctx.gateway, s.BLOCKS, rows, "signature cells")


def _read(source: ObjectSource, path: str) -> bytes | None:
    try:
        return source.read(path)
    except ObjectNotFoundError:
        return None


def _node_account(path: ObjectPath, book: AddressBook) -> str:
    try:
        return node_account(path.node, book)
    except FileNameError:
        return str(path.node)


def _lag_seconds(consensus_ns: int) -> float:
    return round(max(0, time.time_ns() - consensus_ns) / 1e9, 3)
