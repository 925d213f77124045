"""The project's own readers and verification accept every generated period (key rotation
included), and the tampering hooks break exactly what they say."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.books.parse import parse_address_book
from hedera_history.errors import BadSignatureError, NoConsensusError, SidecarMismatchError
from hedera_history.formats.dispatch import parse_record_file, parse_sidecar_file, parse_signature_file
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.gen import (
    GeneratedStream,
    GeneratorConfig,
    TamperTarget,
    drop_signatures,
    generate_stream,
    only_nodes,
    tamper,
    write_stream,
)
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.period import PeriodReport, check_period
from hedera_history.verify.signatures import verify_node_signature
from hedera_history.verify.stream import verify_stream


def test_readers_parse_every_file(generated_stream: GeneratedStream) -> None:
    for path, data in generated_stream.objects.items():
        name = path.rsplit("/", 1)[1]
        if path.endswith(".rcd_sig"):
            signature = parse_signature_file(data, name)
            assert signature.version == 6
        elif "/sidecar/" in path:
            sidecar = parse_sidecar_file(data, name)
            assert sidecar.id == 1
        else:
            record = parse_record_file(data, name)
            block = generated_stream.truth["blocks"][record.block_number]
            assert record.file_hash.hex() == block["file_hash"]
            assert record.metadata_hash is not None and record.metadata_hash.hex() == block["metadata_hash"]
            assert record.computed_end_running_hash == record.end_running_hash
            assert len(record.items) == block["item_count"]


def test_verify_stream_accepts_every_period(generated_stream: GeneratedStream, generated_stream_dir: Path) -> None:
    book = parse_address_book((generated_stream_dir / "address-book.bin").read_bytes())
    results = list(verify_stream(find_local_periods(generated_stream_dir), book))
    assert [r.error for r in results] == [None] * 6
    assert [r.block_number for r in results] == [0, 1, 2, 3, 4, 5]
    changed = [r.block_number for r in results if r.new_book is not None]
    assert changed == [3]
    rotated = results[3].new_book
    assert rotated is not None and rotated == parse_address_book(generated_stream.address_books[1].book)
    truth_blocks = generated_stream.truth["blocks"]
    for result, block in zip(results, truth_blocks, strict=True):
        assert result.report.block is not None
        assert result.report.block.record.file_hash.hex() == block["file_hash"]
        assert len(result.report.block.signatures) == 4


def test_node_id_layout_verifies(tmp_path: Path) -> None:
    stream = generate_stream(
        GeneratorConfig(nodes=3, periods=2, transactions=10, layout=BucketLayout.NODE_ID, rotate_key=False)
    )
    write_stream(stream, tmp_path)
    assert (tmp_path / "demo" / "0" / "2" / "record").is_dir()
    book = parse_address_book(stream.address_book)
    assert all(r.ok for r in verify_stream(find_local_periods(tmp_path), book))


def _period_report(stream: GeneratedStream, tmp_path: Path, period: int = 0) -> PeriodReport:
    write_stream(stream, tmp_path)
    book = parse_address_book(stream.book_for_block(stream.periods[period].block_number).book)
    return check_period(find_local_periods(tmp_path / "recordstreams")[period], book)


def test_tampered_record_copy_is_skipped(generated_stream: GeneratedStream, tmp_path: Path) -> None:
    damaged = tamper(generated_stream, "0.0.3", 0)
    assert damaged.objects[damaged.record_path(0, 0)] != generated_stream.objects[generated_stream.record_path(0, 0)]
    report = _period_report(damaged, tmp_path)
    assert report.ok  # the other nodes' copies carry the signed hash


def test_tampered_record_on_every_node_fails(generated_stream: GeneratedStream, tmp_path: Path) -> None:
    damaged = generated_stream
    for node in damaged.nodes:
        damaged = tamper(damaged, node.node_id, 0)
    report = _period_report(damaged, tmp_path)
    assert not report.ok


def test_resigned_tampered_record_is_a_minority(generated_stream: GeneratedStream) -> None:
    damaged = tamper(generated_stream, 1, 2, resign=True)
    book = parse_address_book(generated_stream.address_book)
    signature = parse_signature_file(damaged.objects[damaged.signature_path(1, 2)], "x.rcd_sig")
    verify_node_signature(signature, book.nodes[1])  # a valid signature...
    assert signature.file_hash != generated_stream.periods[2].file_hash  # ...of another file


def test_tampered_signature_does_not_verify(generated_stream: GeneratedStream) -> None:
    damaged = tamper(generated_stream, 2, 1, TamperTarget.SIGNATURE)
    book = parse_address_book(generated_stream.address_book)
    signature = parse_signature_file(damaged.objects[damaged.signature_path(2, 1)], "x.rcd_sig")
    with pytest.raises(BadSignatureError):
        verify_node_signature(signature, book.nodes[2])


def test_tampered_sidecar_on_every_node_fails(generated_stream: GeneratedStream, tmp_path: Path) -> None:
    period = next(i for i, p in enumerate(generated_stream.periods) if p.sidecars)
    damaged = generated_stream
    for node in damaged.nodes:
        damaged = tamper(damaged, node.account, period, TamperTarget.SIDECAR)
    report = _period_report(damaged, tmp_path, period)
    assert isinstance(report.error, SidecarMismatchError)


def test_too_few_signatures_is_no_consensus(generated_stream: GeneratedStream, tmp_path: Path) -> None:
    kept = drop_signatures(generated_stream, nodes=[0, 1, 2], periods=[0])
    assert generated_stream.signature_path(0, 0) not in kept.objects
    assert generated_stream.signature_path(0, 1) in kept.objects
    report = _period_report(kept, tmp_path)
    assert isinstance(report.error, NoConsensusError)


def test_only_some_nodes(generated_stream: GeneratedStream) -> None:
    two = only_nodes(generated_stream, ["0.0.4", "0.0.6"])
    folders = {path.split("/")[1] for path in two.objects}
    assert folders == {"record0.0.4", "record0.0.6"}
    assert len(two.objects) == len(generated_stream.objects) // 2
