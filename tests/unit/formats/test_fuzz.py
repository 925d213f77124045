"""Fuzzing the readers with truncations, bit flips and splices of real and generated files.

Two properties:

1. Whatever the bytes, a reader returns a value or raises a ``FormatError`` subclass; nothing
   else escapes (no IndexError, struct.error, DecodeError, zlib.error, ...).
2. A mutated record or sidecar file never reproduces what verification compares: the file hash
   (the value nodes sign) and, for V5/V6, the running hash recomputed over the items. The one
   way to keep them is a mutation that leaves the *content* unchanged, which only gzip allows
   (header bytes such as mtime, FNAME or OS, or the padding bits after the deflate stream): the
   hashes are defined over the decompressed bytes, so those files are the same file.
3. A mutated block file that still reads keeps its root hash exactly when every byte the root
   covers is unchanged.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hedera_history.errors import FormatError
from hedera_history.formats.block import block_content, parse_block_file
from hedera_history.formats.block_hash import block_hashes, subtree_of
from hedera_history.formats.dispatch import parse_record_file, parse_sidecar_file, parse_signature_file
from hedera_history.formats.names import StreamFileKind, is_block_file_name, parse_stream_file_name
from hedera_history.formats.parsed_files import RecordFile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .writers import (
    bytecode_record,
    gz,
    make_items,
    state_change_record,
    write_sidecar_content,
    write_signature_v2,
    write_signature_v5,
    write_signature_v6,
    write_v2,
    write_v5,
    write_v6_content,
)

FUZZ = settings(
    max_examples=int(os.environ.get("HEDERA_HISTORY_FUZZ_EXAMPLES", "150")),
    deadline=None,
    database=None,
    derandomize="HEDERA_HISTORY_FUZZ_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

SIDECAR_NAME = "2022-07-13T08_46_11.304284003Z_01.rcd.gz"
SIG_NAME = "2022-07-13T08_46_11.304284003Z.rcd_sig"


@dataclass(frozen=True)
class Sample:
    label: str
    name: str
    data: bytes
    kind: str  # record, sidecar, signature


def _generated() -> list[Sample]:
    items = make_items(3)
    h = hashlib.sha384(b"x").digest()
    sig = bytes(range(256)) + bytes(128)
    sidecar = write_sidecar_content([state_change_record(10, 1002, b"\x03\xeb"), bytecode_record(11, 1003, b"`\x80")])
    return [
        Sample("v1", "2019-09-13T21_53_51.396440Z.rcd", write_v2(items, version=1), "record"),
        Sample("v2", "2019-09-13T21_53_51.396440Z.rcd", write_v2(items, version=2), "record"),
        Sample("v5", "2021-01-11T22_09_24.063739000Z.rcd", write_v5(items), "record"),
        Sample("v6", "2022-07-13T08_46_11.304284003Z.rcd.gz", gz(write_v6_content(items, start=h)), "record"),
        Sample("v6-plain", "2022-07-13T08_46_11.304284003Z.rcd", write_v6_content(items, start=h), "record"),
        Sample("sidecar", SIDECAR_NAME, gz(sidecar), "sidecar"),
        Sample("sig-v2", SIG_NAME, write_signature_v2(h, sig), "signature"),
        Sample("sig-v5", SIG_NAME, write_signature_v5(h, sig, h, sig), "signature"),
        Sample("sig-v6", SIG_NAME, write_signature_v6(h, sig, h, sig), "signature"),
    ]


GENERATED = _generated()


def _real(folder: Path) -> list[Sample]:
    samples = []
    for path in sorted(folder.rglob("*")):
        name = path.as_posix()
        if name.endswith(".rcd_sig"):
            kind = "signature"  # node_0.0.3.rcd_sig in the block node's fixture layout has no time in its name
        elif name.endswith((".rcd", ".rcd.gz")):
            # A sidecar is <time>_NN.rcd[.gz], in a sidecar/ folder or beside its record file.
            kind = "sidecar" if parse_stream_file_name(path.name).kind is StreamFileKind.SIDECAR else "record"
        elif is_block_file_name(name):
            kind = "block"
        else:
            continue
        samples.append(Sample(str(path.relative_to(folder)), path.name, path.read_bytes(), kind))
    return samples


def _decompressed(samples: list[Sample]) -> list[Sample]:
    """Real gzip files (and small blocks) as their content, so that mutations reach the protobuf
    walk directly."""
    records = [
        Sample(f"{s.label} (content)", s.name.removesuffix(".gz"), gzip.decompress(s.data), s.kind)
        for s in samples
        if s.data[:2] == b"\x1f\x8b" and "record0.0.3/" in s.label
    ]
    blocks = [
        Sample(f"{s.label} (content)", "block.blk", block_content(s.data, s.name, limit=1 << 24), s.kind)
        for s in samples
        if s.kind == "block" and len(s.data) < 30_000
    ]
    return records + blocks


@pytest.fixture(scope="module")
def corpus(hedera_data: Path) -> list[Sample]:
    real = _real(hedera_data)
    assert len(real) >= 30 and sum(1 for sample in real if sample.kind == "block") >= 19
    return real + _decompressed(real) + GENERATED


@pytest.fixture(scope="module")
def running_hash_files(corpus: list[Sample]) -> list[Sample]:
    """The V5 and V6 record files."""
    return [s for s in corpus if s.kind == "record" and parse_record_file(s.data, s.name).version >= 5]


def _parse(sample: Sample, data: bytes) -> object:
    parsers: dict[str, Callable[[bytes, str], object]] = {
        "record": lambda d, n: parse_record_file(d, n, max_decompressed=1 << 20),
        "sidecar": lambda d, n: parse_sidecar_file(d, n, max_decompressed=1 << 20),
        "signature": parse_signature_file,
        "block": _parse_block,
    }
    return parsers[sample.kind](data, sample.name)


@dataclass(frozen=True)
class HashedBlock:
    """What a block's root covers, and the root."""

    root: bytes
    view: tuple[object, ...]


def _parse_block(data: bytes, name: str) -> HashedBlock:
    block = parse_block_file(data, name, max_decompressed=1 << 24)
    hashes = block_hashes(block)
    hashed = tuple(item.data for index, item in enumerate(block.items) if subtree_of(item, index, name) is not None)
    return HashedBlock(hashes.root, (block.timestamp_bytes, block.footer, hashes.layout, hashed))


def _content(data: bytes) -> bytes:
    """What the hashes cover: the decompressed bytes, or the file itself."""
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


@st.composite
def mutations(draw: st.DrawFn, data: bytes) -> bytes:
    size = len(data)
    how = draw(st.sampled_from(["truncate", "flip", "flip-many", "splice", "insert", "delete", "append"]))
    if how == "truncate":
        return data[: draw(st.integers(0, size - 1))]
    if how == "flip":
        at = draw(st.integers(0, size - 1))
        return data[:at] + bytes([data[at] ^ (1 << draw(st.integers(0, 7)))]) + data[at + 1 :]
    if how == "flip-many":
        out = bytearray(data)
        for at in draw(st.lists(st.integers(0, size - 1), min_size=2, max_size=8)):
            out[at] ^= draw(st.integers(1, 255))
        return bytes(out)
    if how == "splice":
        at = draw(st.integers(0, size))
        removed = draw(st.integers(0, min(16, size - at)))
        return data[:at] + draw(st.binary(min_size=1, max_size=16)) + data[at + removed :]
    if how == "insert":
        at = draw(st.integers(0, size))
        return data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    if how == "delete":
        at = draw(st.integers(0, size - 1))
        return data[:at] + data[at + draw(st.integers(1, 16)) :]
    return data + draw(st.binary(min_size=1, max_size=8))


def _outcome(sample: Sample, data: bytes) -> object | None:
    """The parsed value, or None for a FormatError; anything else fails the test."""
    try:
        return _parse(sample, data)
    except FormatError:
        return None


@FUZZ
@given(st.data())
def test_mutations_raise_only_format_errors(corpus: list[Sample], data: st.DataObject) -> None:
    sample = data.draw(st.sampled_from(corpus), label="file")
    mutated = data.draw(mutations(sample.data), label="mutated")
    _outcome(sample, mutated)


def _verdict(record: RecordFile) -> tuple[bytes, bytes | None, bytes | None]:
    """What verification compares: file hash, metadata hash, recomputed running hash."""
    return record.file_hash, record.metadata_hash, record.computed_end_running_hash


@FUZZ
@given(st.data())
def test_mutated_record_files_never_keep_their_hashes(corpus: list[Sample], data: st.DataObject) -> None:
    sample = data.draw(st.sampled_from([s for s in corpus if s.kind == "record"]), label="file")
    original = _parse(sample, sample.data)
    assert isinstance(original, RecordFile)
    mutated = data.draw(mutations(sample.data), label="mutated")
    if mutated == sample.data:
        return
    parsed = _outcome(sample, mutated)
    if parsed is None:
        return
    assert isinstance(parsed, RecordFile)
    same_content = _content(mutated) == _content(sample.data)
    if same_content:
        # Only gzip can change bytes without changing content; then nothing else changes.
        assert mutated[:2] == b"\x1f\x8b"
        assert _verdict(parsed) == _verdict(original) and parsed.items == original.items
        return
    assert parsed.file_hash != original.file_hash
    if original.version >= 5:
        # The signed file hash differs; and a file whose running hash still reaches the signed
        # end hash must then have changed outside the items (so the metadata or file hash shows it).
        agrees = parsed.computed_end_running_hash == original.end_running_hash
        assert not (agrees and _verdict(parsed) == _verdict(original))


@FUZZ
@given(st.data())
def test_tampered_items_break_the_running_hash(running_hash_files: list[Sample], data: st.DataObject) -> None:
    """Flip bits inside an item's transaction or record bytes (content level, re-gzipped when
    needed): even with the file hash recomputed, the running hash no longer reaches the end hash."""
    sample = data.draw(st.sampled_from(running_hash_files), label="file")
    original = _parse(sample, sample.data)
    assert isinstance(original, RecordFile)
    content = _content(sample.data)
    item = data.draw(st.sampled_from(original.items), label="item")
    part = data.draw(st.sampled_from([item.transaction_bytes, item.record_bytes]), label="part")
    at = content.find(part) + data.draw(st.integers(0, len(part) - 1), label="offset")
    tampered = bytearray(content)
    tampered[at] ^= 1 << data.draw(st.integers(0, 7), label="bit")
    stored = gz(bytes(tampered)) if sample.data[:2] == b"\x1f\x8b" else bytes(tampered)
    parsed = _outcome(sample, stored)
    if parsed is None:
        return
    assert isinstance(parsed, RecordFile)
    assert parsed.computed_end_running_hash != original.end_running_hash
    assert parsed.end_running_hash == original.end_running_hash


@FUZZ
@given(st.data())
def test_mutated_sidecars_never_keep_their_hash(corpus: list[Sample], data: st.DataObject) -> None:
    sample = data.draw(st.sampled_from([s for s in corpus if s.kind == "sidecar"]), label="file")
    original = _parse(sample, sample.data)
    mutated = data.draw(mutations(sample.data), label="mutated")
    parsed = _outcome(sample, mutated)
    if parsed is None or mutated == sample.data:
        return
    same_content = _content(mutated) == _content(sample.data)
    assert (parsed.hash == original.hash) == same_content  # type: ignore[attr-defined]


@FUZZ
@given(st.data())
def test_mutated_block_files_never_keep_their_root(corpus: list[Sample], data: st.DataObject) -> None:
    """A block that still reads with the same root hash holds exactly the hashed bytes it held: the
    changes a root lets through are outside it (the proofs, a Block field after the items, the
    compression's own bytes), and the proof's signature is checked against the root."""
    sample = data.draw(st.sampled_from([s for s in corpus if s.kind == "block"]), label="file")
    original = _parse(sample, sample.data)
    mutated = data.draw(mutations(sample.data), label="mutated")
    parsed = _outcome(sample, mutated)
    if parsed is None or mutated == sample.data:
        return
    assert isinstance(parsed, HashedBlock) and isinstance(original, HashedBlock)
    assert (parsed.root == original.root) == (parsed.view == original.view)


def test_gzip_header_changes_keep_the_file(corpus: list[Sample]) -> None:
    """The allowed exception, shown directly: mtime and OS bytes of the gzip header."""
    for sample in (s for s in corpus if s.data[:2] == b"\x1f\x8b" and s.kind == "record"):
        changed = bytearray(sample.data)
        changed[4:8] = b"\x01\x02\x03\x04"  # mtime
        changed[9] = 0x0B  # OS
        a, b = _parse(sample, sample.data), _parse(sample, bytes(changed))
        assert isinstance(a, RecordFile) and isinstance(b, RecordFile)
        assert _verdict(a) == _verdict(b)


def test_raw_deflate_stream_is_never_taken_for_gzip() -> None:
    with pytest.raises(FormatError):
        parse_record_file(zlib.compress(write_v6_content(make_items(1))), "x.rcd.gz")
