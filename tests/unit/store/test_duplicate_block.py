"""A block number carried by two record files (mainnet's 44029066), on a generated stream that
reproduces it: one merged block as the mirror node gives it, both files kept with their signatures,
and the same cells whichever path writes them (single process, the stream's sink, the backfill)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hedera_history.block import VerifiedBlock
from hedera_history.block_identity import block_header
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.derived.applier import original_items
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream, write_stream
from hedera_history.pipeline.publish import block_for_stream
from hedera_history.pipeline.store import BigtableBlockSink
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.duplicates import DuplicateBlock, parse_duplicate_blocks
from hedera_history.store.reader import HistoryReader
from hedera_history.store.rows import block_to_rows, signature_row, split_block
from hedera_history.store.schema import HISTORY_TABLES
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.helpers.backfill import backfill_in_process, stream_job
from tests.unit.store.fakes import MemoryGateway

DUPLICATE = 3
CONFIG = GeneratorConfig(periods=7, transactions=4, seed=11, duplicate_block_at=DUPLICATE, rotate_key=False)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[GeneratedStream, Path]:
    stream = generate_stream(CONFIG)
    folder = tmp_path_factory.mktemp("duplicate")
    write_stream(stream, folder)
    return stream, folder


def _settings(stream: GeneratedStream) -> Settings:
    first, second = (p for p in stream.periods if p.block_number == DUPLICATE)
    fact = DuplicateBlock(DUPLICATE, first.consensus_end_ns, second.consensus_end_ns)
    return Settings(duplicate_blocks=str(fact))


def _blocks(stream: GeneratedStream, folder: Path) -> list[VerifiedBlock]:
    results = verify_stream(find_local_periods(folder), parse_address_book(stream.address_book))
    blocks = [r.report.block for r in results]
    assert all(b is not None for b in blocks)
    return [b for b in blocks if b is not None]


def _history(gateway: MemoryGateway) -> dict[str, Any]:
    return {t: rows for t, rows in gateway.snapshot().items() if t in HISTORY_TABLES}


def test_the_setting_and_the_mainnet_preset() -> None:
    assert parse_duplicate_blocks("") == ()
    mainnet = Settings.from_env({"HEDERA_HISTORY_NETWORK": "mainnet"})
    assert parse_duplicate_blocks(mainnet.duplicate_blocks) == (
        DuplicateBlock(44029066, 1675962000231859003, 1675962001984524003),
    )
    assert Settings.from_env({}).duplicate_blocks == ""


def test_one_merged_block_as_the_mirror_node_gives_it(generated: tuple[GeneratedStream, Path]) -> None:
    stream, folder = generated
    settings = _settings(stream)
    gateway = MemoryGateway()
    assert all(r.complete for r in BlockWriter(gateway, settings).write_blocks(_blocks(stream, folder)))
    reader = HistoryReader(gateway)

    first, second = (b for b in stream.truth["blocks"] if b["number"] == DUPLICATE)
    block = reader.get_block(DUPLICATE)
    assert block is not None and len(block.parts) == 2
    assert (block.consensus_start, block.consensus_end) == (first["consensus_start_ns"], second["consensus_end_ns"])
    assert block.name == first["name"] and block.previous_hash.hex() == first["previous_hash"]
    assert block.file_hash.hex() == second["file_hash"]
    assert block.item_count == first["item_count"] + second["item_count"]
    # both files are kept, each provable on its own: its header, its signatures, its signed bytes
    for part, truth in zip(block.parts, (first, second), strict=True):
        assert part.name == truth["name"] and part.file_hash.hex() == truth["file_hash"]
        assert {s.node_account for s in part.signatures} == set(truth["signers"])
    files = reader.block_files(DUPLICATE)
    assert files is not None and len(files) == 2
    for stored, truth in zip(files, (first, second), strict=True):
        assert len(parse_record_file(stored.data, truth["name"].removesuffix(".gz")).items) == truth["item_count"]
    assert len(original_items(reader, block)) == block.item_count

    # the chain runs through the merged block: it starts where N-1 ends and ends where N+1 starts
    before, after = reader.get_block(DUPLICATE - 1), reader.get_block(DUPLICATE + 1)
    assert before is not None and after is not None
    assert block.previous_hash == before.end_running_hash and after.previous_hash == block.end_running_hash

    # every transaction where the generator's truth (the reference's merge) puts it
    listed, errors = reader.block_transactions(DUPLICATE)
    assert not errors
    truth = [t for t in stream.truth["transactions"] if t["block_number"] == DUPLICATE]
    assert [(t.consensus_ns, t.index) for t in listed] == [(t["consensus_ns"], t["index"]) for t in truth]
    for t in truth:
        found = reader.transaction(t["consensus_ns"])
        assert found is not None and (found.block_number, found.index) == (DUPLICATE, t["index"])
    assert reader.get_blocks(0, CONFIG.periods) == list(range(CONFIG.periods - 1))


def test_the_block_is_complete_only_with_both_files(generated: tuple[GeneratedStream, Path]) -> None:
    stream, folder = generated
    settings = _settings(stream)
    blocks = _blocks(stream, folder)
    second = next(i for i, b in enumerate(blocks) if b.block_number == DUPLICATE) + 1
    for missing in (second - 1, second):
        gateway = MemoryGateway()
        BlockWriter(gateway, settings).write_blocks(b for i, b in enumerate(blocks) if i != missing)
        assert HistoryReader(gateway).get_block(DUPLICATE) is None
        BlockWriter(gateway, settings).write_blocks([blocks[missing]])
        assert HistoryReader(gateway).get_block(DUPLICATE) is not None


def test_stream_sink_backfill_and_single_process_write_identical_cells(
    generated: tuple[GeneratedStream, Path],
) -> None:
    stream, folder = generated
    settings = _settings(stream)
    blocks = _blocks(stream, folder)

    single = MemoryGateway()
    BlockWriter(single, settings).write_blocks(blocks)

    # the store function's path: the published batch, the signature rows the ingest writes, finish;
    # in reverse order, so the second file of the duplicate block completes first
    streamed = MemoryGateway()
    writer = BlockWriter(streamed, settings)
    sink = BigtableBlockSink(writer)
    for block in reversed(blocks):
        published = block_for_stream(block, split_block(block, settings))
        writer.write_rows(published.signature_rows)
        sink.write(published.batch.hash, published.batch.updates, ())
        sink.finish(block_header(block))

    backfilled = MemoryGateway()
    report = backfill_in_process(stream_job(stream, folder, settings=settings, partitions=3), backfilled)
    assert report.ok, report.summary_lines()

    assert _history(streamed) == _history(single)
    assert _history(backfilled) == _history(single)


def test_a_late_signature_lands_on_its_own_file(generated: tuple[GeneratedStream, Path]) -> None:
    stream, folder = generated
    settings = _settings(stream)
    duplicates = parse_duplicate_blocks(settings.duplicate_blocks)
    first, second = (b for b in _blocks(stream, folder) if b.block_number == DUPLICATE)
    for block, part in ((first, 0), (second, 1)):
        signature = block.signatures[0]
        late = signature_row(DUPLICATE, block.record.consensus_start, signature, duplicates)
        built = block_to_rows(block, settings)
        expected = [
            c
            for r in built.rows
            if r.table == "blocks"
            for c in r.cells
            if c.family == "sig" and c.value == late.cells[0].value
        ]
        assert late.cells == (expected[0],), part
        assert late.cells[0].qualifier.startswith(b"part/1/") == (part == 1)
