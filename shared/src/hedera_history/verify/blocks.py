"""Verify a run of block files in order, reporting each, never stopping at a bad one.

Per block: read it (bounded decompression), compute its root hash, check its footer's links
against the blocks before it (:mod:`~hedera_history.verify.block_chain`), rebuild a wrapped record
file and check it as a record file is checked (running hash, sidecar hashes, its block number),
and check the proof (:mod:`~hedera_history.verify.block_proofs`). A block is verified only when all
of it holds and its proof verified: a proof that cannot be checked is a failure of its own kind
(``unverified_proof``), never a pass.

Wrapped record blocks are signed by the nodes of the address book in force: the book advances with
the wrapped record files as it does with record files (0.0.102 updates and node stakes,
:class:`~hedera_history.books.updates.AddressBookTracker`), from each block that verified.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from hedera_history.books.address_book import AddressBook
from hedera_history.books.updates import AddressBookTracker
from hedera_history.errors import (
    BlockNumberMismatchError,
    ConflictingBlockError,
    CorruptFileError,
    FormatError,
    HistoryError,
    SourceError,
    VerificationError,
)
from hedera_history.formats.block import BlockFile, ProofKind, parse_block_file, parse_message
from hedera_history.formats.block_hash import BlockHashes, block_hashes
from hedera_history.formats.wrapped_record import WrappedRecordFile, rebuild_wrapped_record
from hedera_history.verify.block_chain import BlockChain, BlockLinks
from hedera_history.verify.block_proofs import SignatureCheck, TssProofCheck, check_proofs
from hedera_history.verify.consensus import DEFAULT_RATIO
from hedera_history.verify.period import check_running_hash, check_sidecar

from hiero_sdk_python.hapi.block.stream import signed_record_file_proof_pb2  # isort: skip


class BlockSource(Protocol):
    """One block file to verify: its name, the number its name gives (if any), its bytes."""

    @property
    def name(self) -> str: ...

    @property
    def number(self) -> int | None: ...

    def read(self) -> bytes: ...


@dataclass(frozen=True, slots=True)
class BlockReport:
    """What verifying one block file found; ``error`` is None exactly when it verified."""

    name: str
    block: BlockFile | None
    hashes: BlockHashes | None
    links: BlockLinks | None
    wrapped: WrappedRecordFile | None
    signature: SignatureCheck | None
    error: HistoryError | None
    already_stored: bool = False
    """The block is stored complete with this hash (``BlockCheckOptions.stored``): its root, links
    and wrapped record file were checked, its proof was not (it was when it was stored)."""

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True, slots=True)
class BlockCheckOptions:
    ratio: Fraction = DEFAULT_RATIO
    """The share of stake a wrapped record file's signers must hold."""
    tss: TssProofCheck | None = None
    """Checks TSS proofs; None: they are reported unverified."""
    max_decompressed: int | None = None
    stored: Callable[[int], bytes | None] | None = None
    """The hash of the block stored complete under a number (None: none): a run that resumes. A
    block stored with its own hash (a wrapped block's running hash, a native block's root) is
    reported ``already_stored``, its proof not checked again; one stored with another hash is
    ConflictingBlockError."""


def verify_blocks(
    sources: Iterable[BlockSource],
    book: AddressBook | None = None,
    options: BlockCheckOptions | None = None,
    *,
    tracker: AddressBookTracker | None = None,
) -> Iterator[BlockReport]:
    """One report per block file, in the order given (ascending block numbers)."""
    options = options or BlockCheckOptions()
    books = tracker or (AddressBookTracker(book) if book is not None else None)
    chain = BlockChain()
    for source in sources:
        try:
            data = source.read()
        except SourceError as e:
            chain.lose()
            yield BlockReport(source.name, None, None, None, None, None, e)
            continue
        report = check_block(data, source.name, chain, books, options, expected_number=source.number)
        if report.ok and report.wrapped is not None and books is not None:
            try:
                books.apply_block(report.wrapped.record)
            except CorruptFileError as e:
                report = BlockReport(
                    report.name, report.block, report.hashes, report.links, report.wrapped, report.signature, e
                )
        yield report


def check_block(
    data: bytes,
    name: str,
    chain: BlockChain,
    books: AddressBookTracker | None,
    options: BlockCheckOptions,
    *,
    expected_number: int | None = None,
) -> BlockReport:
    """One block, checked against ``chain`` (which it then extends) and the book in force."""
    try:
        block = parse_block_file(data, name, max_decompressed=options.max_decompressed)
    except FormatError as e:
        chain.lose()
        return BlockReport(name, None, None, None, None, None, e)
    return check_parsed_block(block, chain, books, options, expected_number=expected_number)


def check_parsed_block(
    block: BlockFile,
    chain: BlockChain,
    books: AddressBookTracker | None,
    options: BlockCheckOptions,
    *,
    expected_number: int | None = None,
) -> BlockReport:
    """:func:`check_block` for a block already parsed (a caller that needs its header first)."""
    name = block.name
    try:
        hashes = block_hashes(block)
    except FormatError as e:
        chain.lose()
        return BlockReport(name, None, None, None, None, None, e)
    errors: list[HistoryError] = []
    if expected_number is not None and expected_number != block.number:
        errors.append(
            BlockNumberMismatchError(
                f"the file name says block {expected_number}, the header {block.number}", file=name
            )
        )
    links, link_error = chain.link(block, hashes.root)
    errors.extend([link_error] if link_error is not None else [])
    wrapped: WrappedRecordFile | None = None
    if block.wrapped:
        try:
            wrapped = _wrapped_record(block)
        except (FormatError, VerificationError) as e:
            errors.append(e)
    stored: bytes | None = None
    if options.stored is not None and not errors and (wrapped is not None or not block.wrapped):
        stored = options.stored(block.number)
    if stored is not None:
        identity = wrapped.record.hash if wrapped is not None else hashes.root
        if stored == identity:
            return BlockReport(name, block, hashes, links, wrapped, None, None, already_stored=True)
        errors.append(conflicting_block(block.number, stored, identity, file=name))
    signature, proof_error = check_proofs(
        block,
        hashes.root,
        wrapped=wrapped,
        book=books.consensus_book if books is not None else None,
        ratio=options.ratio,
        tss=options.tss,
    )
    errors.extend([proof_error] if proof_error is not None else [])
    return BlockReport(name, block, hashes, links, wrapped, signature, errors[0] if errors else None)


def conflicting_block(number: int, stored: bytes, found: bytes, *, file: str) -> ConflictingBlockError:
    """Block ``number`` stored with hash ``stored``, another block ``number`` with hash ``found``."""
    return ConflictingBlockError(
        f"block {number} is already stored with hash {stored.hex()[:16]}…, this one's is {found.hex()[:16]}…",
        file=file,
    )


def _wrapped_record(block: BlockFile) -> WrappedRecordFile | None:
    """The wrapped record file, checked as a record file is; None when no proof names its version."""
    proof = next((p for p in block.proofs if p.field == ProofKind.SIGNED_RECORD_FILE_PROOF), None)
    if proof is None or block.record_file is None:
        return None
    version = parse_message(
        signed_record_file_proof_pb2.SignedRecordFileProof, proof.body, "signed_record_file_proof", block.name
    ).version
    wrapped = rebuild_wrapped_record(block.record_file, version, block.name)
    record = wrapped.record
    check_running_hash(record)
    for sidecar, meta in zip(wrapped.sidecars, record.sidecars, strict=True):
        check_sidecar(sidecar, meta, record.name)
    numbers = {wrapped.contents_block_number, *([record.block_number] if record.block_number is not None else [])}
    if numbers != {block.number}:
        raise BlockNumberMismatchError(
            f"the wrapped record file says block {sorted(numbers)}, the header {block.number}", file=block.name
        )
    return wrapped
