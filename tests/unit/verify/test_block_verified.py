"""A verified block file becomes the VerifiedBlock the row builder reads: a wrapped record block
gives the rows of the record file it wraps, cell for cell (the node signatures without the metadata
signatures a block does not carry); a native block keeps its own bytes and its proof, and its
records come back from the stored block exactly."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.errors import TssLedgerError, TssUnverifiableProofError, UnverifiedProofError
from hedera_history.formats.block import parse_block, serialize_block
from hedera_history.formats.rebuild import signed_file_bytes
from hedera_history.formats.wrapped_envelope import restore_block
from hedera_history.gen.tss_signer import TssSigner
from hedera_history.sources.local_blocks import LocalBlock, find_block_runs
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store import schema as s
from hedera_history.store.block_items import file_item_bytes
from hedera_history.store.decode import BlockFile
from hedera_history.store.encoding import decode_value
from hedera_history.store.model import Row
from hedera_history.store.rows import block_to_rows
from hedera_history.store.values import decode_block_proof
from hedera_history.verify.block_tss import LedgerTssCheck
from hedera_history.verify.block_verified import verified_block
from hedera_history.verify.blocks import BlockCheckOptions, verify_blocks
from hedera_history.verify.stream import verify_stream
from hedera_history.verify.tss import TssTrust, publication_from_signed_transaction

from tests.conformance.tss_blocks import HINTS_SIGNED_WEIGHT, HINTS_TOTAL_WEIGHT, LEDGER_ID, ROOTS
from tests.helpers.wrapped_records import WRAPPED_EXAMPLES, WrappedExample, bucket_layout

SETTINGS = Settings()


def _rows(block: VerifiedBlock) -> list[Row]:
    built = block_to_rows(block, SETTINGS)
    return [*built.rows, built.completion]


def _one_block(path: Path) -> LocalBlock:
    return LocalBlock(path, path.name, None, "")


@pytest.mark.parametrize("example", WRAPPED_EXAMPLES, ids=lambda e: f"v{e.version}")
def test_a_wrapped_block_gives_the_rows_of_its_record_file(
    hedera_data: Path, tmp_path: Path, example: WrappedExample
) -> None:
    book = parse_address_book((hedera_data / example.book).read_bytes())
    (report,) = verify_blocks([_one_block(hedera_data / example.block)], book)
    from_block = verified_block(report)
    periods = find_local_periods(bucket_layout(hedera_data / example.originals, tmp_path))
    (result,) = verify_stream(periods, book, start_block=example.number)
    from_file = result.report.block
    assert from_file is not None, result.error
    assert from_block.block_number == from_file.block_number == example.number
    assert from_block.record.file_hash == from_file.record.file_hash
    assert [n.node_account for n in from_block.signatures] == [n.node_account for n in from_file.signatures]
    # A block carries each node's signature over the file hash, not the metadata signature; and
    # its envelope (what the block adds to the file) is one cell more.
    without_metadata = tuple(replace(n, metadata_signature=None) for n in from_file.signatures)
    assert _rows(replace(from_block, wrapped_envelope=None)) == _rows(replace(from_file, signatures=without_metadata))
    envelope = from_block.wrapped_envelope
    assert envelope is not None and report.block is not None
    content = serialize_block(item.data for item in report.block.items)
    stored = signed_file_bytes(from_block.record)  # None: its HAPI version has a build the rebuild drops
    assert restore_block(envelope, stored[4:] if stored else b"", "block") == content


def test_a_wrapped_v6_block_whose_file_the_items_row_keeps_leaves_its_contents_out(hedera_data: Path) -> None:
    folder = hedera_data / "blocks" / "genesis" / "testnet"
    book = parse_address_book((hedera_data / "addressbook" / "main-resources-testnet.bin").read_bytes())
    ((report,),) = [list(verify_blocks(run, book)) for run in find_block_runs(folder)]
    block = verified_block(report)
    stored = signed_file_bytes(block.record)
    assert block.wrapped_envelope is not None and stored is not None and report.block is not None
    content = serialize_block(item.data for item in report.block.items)
    assert len(block.wrapped_envelope) < len(content) - len(stored) + 16
    assert restore_block(block.wrapped_envelope, stored[4:], "block") == content


def test_native_blocks_keep_their_bytes_and_proof_and_give_back_their_records(hedera_data: Path) -> None:
    (run,) = find_block_runs(hedera_data / "blocks" / "tss-schnorr")
    check = LedgerTssCheck(bytes.fromhex(LEDGER_ID))
    for report in verify_blocks(run, None, BlockCheckOptions(tss=check)):
        block = verified_block(report)
        native = block.native
        assert native is not None and native.signed
        assert block.record.name == f"{block.block_number:019d}.blk"
        assert block.record.hash.hex() == ROOTS[block.block_number]
        assert parse_block(native.content, "stored").items == report.block.items  # type: ignore[union-attr]
        assert (block.consensus.stake, block.consensus.total_stake) == (HINTS_SIGNED_WEIGHT, HINTS_TOTAL_WEIGHT)
        rows = _rows(block)
        (proof_cell,) = (c for r in rows if r.table == s.BLOCKS for c in r.cells if c.qualifier == s.Q_BLOCK_PROOF)
        proof = decode_block_proof(decode_value(proof_cell.value))
        assert (proof.signed, proof.weight, proof.total_weight, proof.proof) == (True, 3, 4, native.proof)
        (items,) = (row for row in rows if row.table == s.ITEMS)
        assert [c.qualifier for c in items.cells] == [b"block/000000/00000000"]
        stored = file_item_bytes(BlockFile("block", native.content), "stored")
        assert stored == tuple((i.transaction_bytes, i.record_bytes) for i in block.record.items)


def test_a_native_block_of_another_ledger_or_without_block_zero_is_refused(hedera_data: Path) -> None:
    (run,) = find_block_runs(hedera_data / "blocks" / "tss-schnorr")
    (zero,) = verify_blocks(run[:1], None, BlockCheckOptions(tss=LedgerTssCheck(bytes(32))))
    with pytest.raises(TssLedgerError):
        verified_block(zero)
    later = list(verify_blocks(run[1:], None, BlockCheckOptions(tss=LedgerTssCheck(bytes.fromhex(LEDGER_ID)))))
    for report in later:
        with pytest.raises(TssUnverifiableProofError):
            verified_block(report)


def test_a_block_zero_does_not_replace_the_ledger_publication_trusted(hedera_data: Path) -> None:
    (run,) = find_block_runs(hedera_data / "blocks" / "tss-schnorr")
    other = publication_from_signed_transaction(TssSigner.create([1, 1, 1]).ledger_publication())
    assert other is not None
    (zero,) = verify_blocks(run[:1], None, BlockCheckOptions(tss=LedgerTssCheck(trust=TssTrust(other))))
    with pytest.raises(TssLedgerError, match="another ledger roster"):
        verified_block(zero)


def test_a_placeholder_proof_is_stored_only_as_unsigned_when_asked(hedera_data: Path) -> None:
    (run,) = find_block_runs(hedera_data / "blocks" / "mirror-node-blockstreams")
    for report in verify_blocks(run, None, BlockCheckOptions(tss=LedgerTssCheck())):
        with pytest.raises(UnverifiedProofError):
            verified_block(report)
        block = verified_block(report, accept_unsigned=True)
        assert block.native is not None and not block.native.signed
        assert (block.consensus.stake, block.consensus.total_stake) == (0, 0)
