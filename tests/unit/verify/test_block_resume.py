"""A run that resumes (``BlockCheckOptions.stored``): a block stored with its own hash is reported
already stored without its proof checked; one stored with another hash is ConflictingBlockError."""

from __future__ import annotations

from hedera_history.books.parse import parse_address_book
from hedera_history.errors import ConflictingBlockError
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.verify.blocks import BlockCheckOptions, BlockReport, verify_blocks

from tests.helpers.block_files import block_sources


def _reports(stream: GeneratedStream, stored: dict[int, bytes]) -> list[BlockReport]:
    book = parse_address_book(stream.book_for_block(stream.blocks[0].block_number).book)
    sources = block_sources(stream)
    # No TSS check: a native block that is not skipped reports its proof unverified.
    return list(verify_blocks(sources, book, BlockCheckOptions(stored=stored.get)))


def _identity(report: BlockReport) -> bytes:
    assert report.hashes is not None
    return report.wrapped.record.hash if report.wrapped is not None else report.hashes.root


def test_blocks_stored_with_their_own_hash_are_already_stored_the_others_conflict(
    generated_cutover_stream: GeneratedStream,
) -> None:
    stream = generated_cutover_stream
    first = _reports(stream, {})
    assert [r.already_stored for r in first] == [False] * len(first)
    hashes = {b.block_number: _identity(r) for b, r in zip(stream.blocks, first, strict=True)}
    wrapped, native = stream.blocks[0].block_number, stream.blocks[-1].block_number
    resumed = _reports(stream, hashes)
    assert all(r.already_stored and r.ok and r.signature is None for r in resumed)
    other = {**hashes, wrapped: b"\x01" * 48, native: b"\x02" * 48}
    mixed = {r.block.number: r for r in _reports(stream, other) if r.block is not None}
    for number in (wrapped, native):
        assert isinstance(mixed[number].error, ConflictingBlockError) and not mixed[number].already_stored
    assert all(r.already_stored for n, r in mixed.items() if n not in (wrapped, native))
