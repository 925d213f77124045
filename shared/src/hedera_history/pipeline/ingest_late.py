"""Files of a period already published: a late node signature is verified and its cell added, a
late record copy is checked against the signed hash (a differing one is quarantined); and the
sweep's recheck of signatures that failed while the book in force was not certain yet."""

from __future__ import annotations

import logging

from hedera_history.block import NodeSignature
from hedera_history.books.address_book import AddressBook, NodeEntry
from hedera_history.errors import FormatError, VerificationError
from hedera_history.formats.dispatch import parse_signature_file, record_file_hash
from hedera_history.formats.names import StreamFileKind, parse_stream_file_name, parse_timestamp
from hedera_history.formats.parsed_files import SignatureFile
from hedera_history.formats.stream_paths import ObjectPath, parse_object_path
from hedera_history.logs import event
from hedera_history.pipeline.ingest_context import (
    IngestContext,
    IngestResult,
    Outcome,
    logger,
    node_account_of,
    read_object,
    write_block_cells,
)
from hedera_history.pipeline.ingest_quarantine import quarantine
from hedera_history.pipeline.period_state import PeriodProgress, Stage, stage_of
from hedera_history.pipeline.state_cells import Published
from hedera_history.sources.period_files import SourcePeriod, StreamLocation
from hedera_history.store.duplicates import parse_duplicate_blocks
from hedera_history.store.rows import signature_row
from hedera_history.verify.consensus import count_signatures
from hedera_history.verify.period import collect_signatures
from hedera_history.verify.signatures import verify_node_signature

READ_LATE = frozenset({StreamFileKind.SIGNATURE, StreamFileKind.RECORD})
"""The kinds of file :func:`after_publication` may read once their period is published: a late
sidecar copy never is (the block's sidecars were verified with it)."""


def after_publication(ctx: IngestContext, trigger: ObjectPath, published: Published, book: AddressBook) -> IngestResult:
    """A file of an already published period: add a late signature, check a late copy."""
    period_key = trigger.file.period_key
    account = node_account_of(trigger, book)
    data = read_object(ctx.source, trigger.path) if _worth_reading(ctx, trigger, account, published, book) else None
    if data is None:
        return IngestResult(Outcome.ALREADY_PUBLISHED, period_key, published.block_number)
    try:
        if trigger.file.kind is StreamFileKind.SIGNATURE:
            _add_late_signature(ctx, trigger, data, account, published=published, book=book)
            return IngestResult(Outcome.SIGNATURE_ADDED, period_key, published.block_number)
        if trigger.file.kind is StreamFileKind.RECORD:
            _check_late_copy(ctx, trigger, data, account, published)
    except (FormatError, VerificationError) as e:
        consensus_ns = parse_timestamp(period_key)
        if isinstance(e, VerificationError) and ctx.books.applied_through() < published.block_number - 1:
            # The book in force may still change (a key rotated in an earlier block not applied yet).
            progress = PeriodProgress.of(ctx.state, period_key, None, Stage.PUBLISHED)
            progress.await_recheck(published.block_number)
            return IngestResult(Outcome.ALREADY_PUBLISHED, period_key, published.block_number, str(e))
        if isinstance(e, VerificationError):
            # ``book`` was read before the keeper may have applied the change: judge by the book now.
            current = ctx.books.consensus_book_at(consensus_ns)
            if current != book:
                return after_publication(ctx, trigger, published, current)
        quarantine(ctx, trigger.path, data, e, node=account, consensus_ns=consensus_ns)
        return IngestResult(Outcome.QUARANTINED, period_key, published.block_number, str(e), (trigger.path,))
    return IngestResult(Outcome.ALREADY_PUBLISHED, period_key, published.block_number)


def _worth_reading(
    ctx: IngestContext, trigger: ObjectPath, account: str, published: Published, book: AddressBook
) -> bool:
    """A signature is always read (it may add a node's cell). A record copy is read only when every
    copy is audited (``check_every_copy``) or its node's signature, read first, names another file
    hash or fails: a copy whose node signed the published hash claims the signed bytes, and the
    block was verified on one copy already, as the mirror node reads one a period. A copy whose
    node's signature is not uploaded yet is not read either (the signature is judged when it comes,
    and quarantined on its own if bad). A late sidecar copy is never read: the block's sidecars
    were verified with it."""
    kind = trigger.file.kind
    if kind is not StreamFileKind.RECORD:
        return kind in READ_LATE
    if ctx.settings.check_every_copy:
        return True
    if account in published.signers:
        return False
    return _signature_disowns(ctx, trigger, account, published, book)


def _signature_disowns(
    ctx: IngestContext, trigger: ObjectPath, account: str, published: Published, book: AddressBook
) -> bool:
    """Whether the node's own signature file of the period fails or names another file hash than
    the published one (False while it is not uploaded)."""
    name = parse_stream_file_name(trigger.file.period_key + ".rcd_sig")
    data = read_object(ctx.source, trigger.sibling(name))
    if data is None:
        return False
    try:
        _signed_published(data, name.name, account, published, book)
    except (FormatError, VerificationError):
        return True
    return False


def _add_late_signature(
    ctx: IngestContext, trigger: ObjectPath, data: bytes, account: str, *, published: Published, book: AddressBook
) -> None:
    sig, entry = _signed_published(data, trigger.file.name, account, published, book)
    signature = NodeSignature(account, entry.node_id, sig.file_signature, sig.metadata_signature)
    duplicates = parse_duplicate_blocks(ctx.settings.duplicate_blocks)
    write_block_cells(ctx, [signature_row(published.block_number, published.block_time_ns, signature, duplicates)])


def _signed_published(
    data: bytes, file_name: str, account: str, published: Published, book: AddressBook
) -> tuple[SignatureFile, NodeEntry]:
    """The node's signature file, verified with its key in ``book`` and naming the published file
    hash, and the node's entry; else a :class:`VerificationError` (or the file's FormatError)."""
    entry = next((n for n in book.nodes if n.account == account), None)
    if entry is None:
        raise VerificationError(f"node {account} is not in the address book in force", node=account)
    sig = parse_signature_file(data, file_name, node=account)
    verify_node_signature(sig, entry)
    if sig.file_hash != published.file_hash:
        raise VerificationError(
            f"signed file hash {sig.file_hash.hex()[:16]}… differs from the published block's "
            f"{published.file_hash.hex()[:16]}…",
            node=account,
        )
    return sig, entry


def _check_late_copy(ctx: IngestContext, trigger: ObjectPath, data: bytes, account: str, published: Published) -> None:
    """Its file hash only: equal to the signed one, it is the verified file byte for byte (and
    parses as that did); different, it is quarantined, whether it would parse or not."""
    file_hash = record_file_hash(data, trigger.file.name, max_decompressed=ctx.settings.max_decompressed_bytes)
    if file_hash != published.file_hash:
        raise VerificationError(
            f"file hash {file_hash.hex()[:16]}… differs from the signed {published.file_hash.hex()[:16]}…",
            node=account,
        )


def recheck_signatures(ctx: IngestContext, consensus_ns: int, period_key: str, block_number: int) -> bool:
    """Verify again, on the now certain book, every node signature of a period published on an
    uncertain one: valid ones get their cells, the others are quarantined; and weigh the block's
    consensus again (:func:`_check_consensus_held`). False: not certain yet."""
    if ctx.books.applied_through() < block_number - 1:
        return False
    known = ctx.state.period(consensus_ns)
    progress = PeriodProgress.of(ctx.state, period_key, None, stage_of(known))
    if known is None or known.published is None or known.location is None:
        progress.rechecked()
        return True
    book = ctx.books.consensus_book_at(consensus_ns)
    name = parse_stream_file_name(period_key + ".rcd_sig")
    for node in known.location.identities(book):
        path = parse_object_path(known.location.path(node, name, book))
        after_publication(ctx, path, known.published, book)
    _check_consensus_held(ctx, known.location, period_key, known.published, book)
    progress.rechecked()
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
    event(logger, "consensus lost", logging.ERROR, period=period_key, block=published.block_number, reason=reason)
