"""Ingest's block trust on the Bigtable emulator: a second, different block N is refused whatever
its proof, and a wrapped record block after a native block is checked across that boundary.

Under a weak trust root (no ledger publication; blocks stored unsigned, their proofs pre-TSS
placeholders that anyone can make), two different blocks N can both verify. One number holds one
block: the second is quarantined with ``ConflictingBlockError`` and alerted on (``block conflict``),
whether block N's link was recorded by ingest or the block was written complete by a ``load``."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hedera_history.books.parse import parse_address_book
from hedera_history.formats.block import parse_block_file, serialize_block
from hedera_history.formats.block_hash import block_hashes
from hedera_history.formats.block_protos import BlockItem
from hedera_history.formats.hashing import sha384
from hedera_history.gen.block_proofs import signed_block_proof_item
from hedera_history.gen.block_tamper import tamper_block
from hedera_history.gen.blocks import zstd_compress
from hedera_history.gen.config_and_output import GeneratedStream, PeriodKind
from hedera_history.gen.stream import generate_stream
from hedera_history.gen.writer import write_stream
from hedera_history.pipeline.block_load import load_block_runs
from hedera_history.pipeline.ingest import ingest_object
from hedera_history.pipeline.ingest_context import Outcome
from hedera_history.sources.local_blocks import find_block_runs
from hedera_history.store.reader import HistoryReader
from hedera_history.verify.consensus import DEFAULT_RATIO

from tests.integration.follow.harness import Followed, make_followed

pytestmark = [pytest.mark.emulator]

RECORD_PERIODS = 3
"""The cutover stream: record files 0-2, wrapped record blocks 3-4, native blocks 5-7."""


def placeholder_proven(data: bytes, name: str) -> bytes:
    """The block file with its proof replaced by a pre-TSS placeholder (SHA-384 of its root)."""
    block = parse_block_file(data, name)
    root = block_hashes(block).root
    items = [item.data for item in block.items if BlockItem.FromString(item.data).WhichOneof("item") != "block_proof"]
    return zstd_compress(serialize_block([*items, signed_block_proof_item(block.number, sha384(root))]))


def block_name(number: int) -> str:
    return f"demo/block/0000/0000/0000/0000/{number:03d}.blk.zstd"


@pytest.fixture
def unsigned_stream(generated_cutover_stream: GeneratedStream) -> GeneratedStream:
    """The cutover stream, its native blocks proven by placeholders only."""
    stream = generated_cutover_stream
    objects = dict(stream.objects)
    for block in stream.blocks[2:]:
        objects[block.path] = placeholder_proven(objects[block.path], block.path)
    return replace(stream, objects=objects)


@pytest.fixture
def followed(bigtable_instance: Any, tmp_path: Path, unsigned_stream: GeneratedStream) -> Iterator[Followed]:
    """Followed through the record periods; the block files then in the bucket, not yet ingested."""
    bucket = tmp_path / "bucket"
    write_stream(unsigned_stream, bucket)
    held = {p: p.read_bytes() for p in (bucket / "demo").rglob("*.blk.zstd")}
    for path in held:
        path.unlink()
    with make_followed(
        bigtable_instance, tmp_path, unsigned_stream, str(bucket), block_source=str(bucket), unsigned_blocks=True
    ) as followed:
        records = [p.block_number for p in unsigned_stream.periods[:RECORD_PERIODS]]
        followed.follower().run(lambda: followed.complete(records))
        for path, data in held.items():
            path.write_bytes(data)
        yield followed


def _forged(stream: GeneratedStream, number: int) -> bytes:
    """Another block ``number``: one transaction changed, chained to the same predecessor,
    proven by a placeholder over its own root."""
    path = stream.block(number).path
    return placeholder_proven(tamper_block(stream, number).objects[path], path)


def _stored_hash(followed: Followed, number: int) -> bytes:
    stored = HistoryReader(followed.gateway).get_block(number)
    assert stored is not None
    return stored.end_running_hash or stored.file_hash


def test_a_second_block_n_after_an_ingested_one_is_refused_and_alerted(
    followed: Followed, unsigned_stream: GeneratedStream, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ctx = followed.ctx
    numbers = [b.block_number for b in unsigned_stream.blocks]
    assert ingest_object(ctx, block_name(numbers[0])).outcome is Outcome.PUBLISHED
    assert followed.complete(numbers), "the upload's call published the blocks waiting after it"
    last = numbers[-1]
    before = _stored_hash(followed, last)
    (tmp_path / "bucket" / block_name(last)).write_bytes(_forged(unsigned_stream, last))
    caplog.set_level(logging.INFO, "hedera_history.pipeline.ingest")
    result = ingest_object(ctx, block_name(last))
    assert result.outcome is Outcome.QUARANTINED, result
    assert "already stored with hash" in result.reason
    assert any(path == block_name(last) for path, _ in ctx.state.quarantined())
    conflicts = [r for r in caplog.records if r.getMessage().startswith("block conflict")]
    assert conflicts and conflicts[0].levelno == logging.ERROR
    rejected = [r for r in caplog.records if r.getMessage().startswith("block rejected")]
    assert rejected and rejected[0].fields["error"] == "ConflictingBlockError"  # type: ignore[attr-defined]
    assert _stored_hash(followed, last) == before, "the block stored is the first one"
    assert len(ctx.state.links([last])[last]) == 1, "no second link recorded"


def test_a_second_block_n_after_a_loaded_one_is_refused(
    followed: Followed, unsigned_stream: GeneratedStream, tmp_path: Path
) -> None:
    """Blocks written complete by ``load`` (no ingest link): the stored block is what the second
    is compared with; the same block again is published as before (the same bytes)."""
    ctx = followed.ctx
    wrapped = [b.block_number for b in unsigned_stream.blocks[:2]]
    native = [b.block_number for b in unsigned_stream.blocks[2:]]
    held = tmp_path / "bucket" / block_name(native[0])
    held.rename(tmp_path / "held")
    assert ingest_object(ctx, block_name(wrapped[0])).outcome is Outcome.PUBLISHED
    (tmp_path / "held").rename(held)
    assert followed.complete(wrapped)
    folder = tmp_path / "native"
    for number in native:
        target = folder / block_name(number)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(unsigned_stream.objects[block_name(number)])
    (run,) = find_block_runs(folder)
    book = parse_address_book(unsigned_stream.address_book)
    report = load_block_runs([run], book, ratio=DEFAULT_RATIO, settings=followed.settings, gateway=followed.gateway)
    assert report.written == len(native), report
    first = native[0]
    (tmp_path / "bucket" / block_name(first)).write_bytes(_forged(unsigned_stream, first))
    result = ingest_object(ctx, block_name(first))
    assert result.outcome is Outcome.QUARANTINED, result
    assert "already stored with hash" in result.reason
    assert not ctx.state.links([first]).get(first)
    (tmp_path / "bucket" / block_name(first)).write_bytes(unsigned_stream.objects[block_name(first)])
    assert ingest_object(ctx, block_name(first)).outcome is Outcome.PUBLISHED


def test_a_wrapped_block_after_a_native_block_must_name_its_root(
    followed: Followed, unsigned_stream: GeneratedStream, tmp_path: Path
) -> None:
    """A wrapped record block whose stored predecessor is a native block has no running hash to
    link to: its footer must name the native block's root, else ``BrokenChainError``."""
    ctx = followed.ctx
    native = [b.block_number for b in unsigned_stream.blocks[2:]]
    bucket = tmp_path / "bucket"
    for number in native[1:]:
        (bucket / block_name(number)).unlink()
    assert ingest_object(ctx, block_name(unsigned_stream.blocks[0].block_number)).outcome is Outcome.PUBLISHED
    assert followed.complete(native[:1])
    # The same network with a later cutover: block native[1] is a wrapped record block there,
    # signed by the same nodes, chained to that network's own record file before it.
    later = generate_stream(replace(unsigned_stream.config, cutover_after=native[1]))
    wrapped = later.block(native[1])
    assert wrapped.kind is PeriodKind.WRAPPED
    (bucket / block_name(native[1])).write_bytes(later.objects[wrapped.path])
    result = ingest_object(ctx, block_name(native[1]))
    assert result.outcome is Outcome.QUARANTINED, result
    assert "previous block root hash" in result.reason
    assert not followed.complete(native[1:2])


def test_the_block_after_blocks_a_load_wrote_must_name_the_stored_one(
    followed: Followed, unsigned_stream: GeneratedStream, tmp_path: Path
) -> None:
    """A follower starting after blocks a backfill or a load wrote (no ingest link of them) takes the
    next block as its first: that block must still name the root of the block stored before it, else
    ``BrokenChainError``. Here a different block 6 was loaded; the network's block 7 names its own 6."""
    native = [b.block_number for b in unsigned_stream.blocks[2:]]
    before, after = native[-2], native[-1]
    folder = tmp_path / "loaded"
    for number in native[:-1]:
        target = folder / block_name(number)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = unsigned_stream.objects[block_name(number)]
        target.write_bytes(_forged(unsigned_stream, number) if number == before else data)
    (run,) = find_block_runs(folder)
    book = parse_address_book(unsigned_stream.address_book)
    report = load_block_runs([run], book, ratio=DEFAULT_RATIO, settings=followed.settings, gateway=followed.gateway)
    assert report.written == len(native) - 1, report
    ctx = replace(followed.ctx, settings=followed.ctx.settings.with_(first_block=after))
    result = ingest_object(ctx, block_name(after))
    assert result.outcome is Outcome.QUARANTINED, result
    assert "previous block root hash" in result.reason
    assert not followed.complete([after])


@pytest.mark.parametrize("loaded", ["own", "other"])
def test_a_wrapped_block_after_a_loaded_wrapped_block_must_name_its_running_hash(
    followed: Followed, unsigned_stream: GeneratedStream, tmp_path: Path, loaded: str
) -> None:
    """The same check for wrapped record blocks: after this network's wrapped block 3 was loaded,
    its block 4 is published; after another network's (same nodes, other transactions), it is
    ``BrokenChainError``."""
    first, second = (b.block_number for b in unsigned_stream.blocks[:2])
    config = unsigned_stream.config
    other = replace(config, transactions=config.transactions + 1)
    source = unsigned_stream if loaded == "own" else generate_stream(other)
    target = tmp_path / "loaded" / block_name(first)
    target.parent.mkdir(parents=True)
    target.write_bytes(source.objects[block_name(first)])
    (run,) = find_block_runs(tmp_path / "loaded")
    book = parse_address_book(unsigned_stream.address_book)
    report = load_block_runs([run], book, ratio=DEFAULT_RATIO, settings=followed.settings, gateway=followed.gateway)
    assert report.written == 1, report
    ctx = replace(followed.ctx, settings=followed.ctx.settings.with_(first_block=second))
    result = ingest_object(ctx, block_name(second))
    if loaded == "own":
        assert result.outcome is Outcome.PUBLISHED, result
    else:
        assert result.outcome is Outcome.QUARANTINED, result
        assert "previous running hash" in result.reason
