"""Every real file under ``../shared/data/hedera`` parses to its golden values (one test per file)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history import hapi
from hedera_history.formats.dispatch import (
    parse_record_file,
    parse_sidecar_file,
    parse_signature_file,
    record_file_hash,
)
from hedera_history.formats.hashing import running_hash
from hedera_history.formats.parsed_files import RecordFile

from .golden import (
    NODES,
    RECORD_CASES,
    RECORD_FILES,
    SIDECAR_CASES,
    SIGNATURE_CASES,
    RecordGolden,
    SidecarFileGolden,
    SignatureGolden,
    all_paths,
)

STREAM_SUFFIXES = (".rcd", ".rcd.gz", ".rcd_sig")


def _record(hedera_data: Path, path: str) -> RecordFile:
    return parse_record_file((hedera_data / path).read_bytes(), path)


@pytest.mark.parametrize(("path", "golden"), RECORD_CASES, ids=[path for path, _ in RECORD_CASES])
def test_record_file(hedera_data: Path, path: str, golden: RecordGolden) -> None:
    record = _record(hedera_data, path)
    assert record.version == golden.version
    assert record.size == golden.size
    assert len(record.items) == golden.count
    assert record.consensus_start == golden.consensus_start
    assert record.consensus_end == golden.consensus_end
    if golden.item_consensus_ns is not None:
        assert tuple(item.consensus_ns for item in record.items) == golden.item_consensus_ns
    assert record.hapi_version == golden.hapi_version
    assert record.block_number == golden.block_number
    assert (record.start_running_hash and record.start_running_hash.hex()) == golden.start_running_hash
    assert record.hash.hex() == golden.end_running_hash
    assert record.previous_hash.hex() == golden.previous_hash
    assert record.file_hash.hex() == golden.file_hash
    assert (record.metadata_hash and record.metadata_hash.hex()) == golden.metadata_hash
    assert [(s.id, s.types, s.hash.hex()) for s in record.sidecars] == [
        (s.id, s.types, s.hash) for s in golden.sidecars
    ]


@pytest.mark.parametrize(("path", "golden"), RECORD_CASES, ids=[path for path, _ in RECORD_CASES])
def test_the_file_hash_alone_is_the_parsed_one(hedera_data: Path, path: str, golden: RecordGolden) -> None:
    """What a late record copy is checked by (its items are not read) is the file hash a parse gives."""
    assert record_file_hash((hedera_data / path).read_bytes(), path).hex() == golden.file_hash


@pytest.mark.parametrize(("path", "golden"), RECORD_CASES, ids=[path for path, _ in RECORD_CASES])
def test_running_hash_recomputed(hedera_data: Path, path: str, golden: RecordGolden) -> None:
    record = _record(hedera_data, path)
    if golden.start_running_hash is None:
        assert record.computed_end_running_hash is None  # V1/V2: the file hash is the chain
        for item in record.items:
            assert hapi.TransactionRecord.FromString(item.record_bytes).consensusTimestamp.seconds > 0
        return
    assert record.computed_end_running_hash is not None
    assert record.computed_end_running_hash.hex() == golden.end_running_hash
    # The same through the plain recipe in formats/hashing.py, over the items' exact bytes.
    start = bytes.fromhex(golden.start_running_hash)
    pairs = [(item.record_bytes, item.transaction_bytes) for item in record.items]
    assert running_hash(start, pairs).hex() == golden.end_running_hash
    for item in record.items:
        hapi.Transaction.FromString(item.transaction_bytes)
        assert hapi.TransactionRecord.FromString(item.record_bytes).consensusTimestamp.seconds > 0


@pytest.mark.parametrize("golden", RECORD_FILES, ids=[g.name for g in RECORD_FILES])
def test_every_node_copy_is_the_same_file(hedera_data: Path, golden: RecordGolden) -> None:
    copies = [_record(hedera_data, golden.path(node)) for node in NODES]
    raw = {(hedera_data / golden.path(node)).read_bytes() for node in NODES}
    if golden.version == 6:
        assert len(raw) > 1, "V6 node copies differ in their gzip bytes"
    for copy in copies[1:]:
        assert (copy.file_hash, copy.metadata_hash, copy.items) == (
            copies[0].file_hash,
            copies[0].metadata_hash,
            copies[0].items,
        )


@pytest.mark.parametrize("folder", ["v1", "v2", "v5", "v6"])
def test_files_chain(hedera_data: Path, folder: str) -> None:
    first, second = (g for g in RECORD_FILES if g.folder == folder)
    a, b = _record(hedera_data, first.path("0.0.3")), _record(hedera_data, second.path("0.0.3"))
    assert b.previous_hash == a.hash
    if a.block_number is not None:
        assert b.block_number == a.block_number + 1


@pytest.mark.parametrize(("path", "golden"), SIDECAR_CASES, ids=[path for path, _ in SIDECAR_CASES])
def test_sidecar_file(hedera_data: Path, path: str, golden: SidecarFileGolden) -> None:
    sidecar = parse_sidecar_file((hedera_data / path).read_bytes(), path)
    assert sidecar.id == golden.id
    assert sidecar.size == golden.size
    assert sidecar.hash.hex() == golden.hash
    assert max(r.consensus_ns for r in sidecar.records) == golden.consensus_end
    if golden.records is None:
        assert len(sidecar.records) == golden.record_count
        assert {int(r.type) for r in sidecar.records} == golden.types
        for record in sidecar.records:
            assert hapi.TransactionSidecarRecord.FromString(record.raw).SerializeToString() == record.raw
        return
    assert len(sidecar.records) == len(golden.records)
    for record, expected in zip(sidecar.records, golden.records, strict=True):
        assert record.consensus_ns == expected.consensus_ns
        assert int(record.type) == expected.type
        message = hapi.TransactionSidecarRecord.FromString(record.raw)
        assert message.SerializeToString() == record.raw
        changes = [
            (c.contract_id.contractNum, s.value_written.value.hex(), s.slot.hex(), s.value_read.hex())
            for c in message.state_changes.contract_state_changes
            for s in c.storage_changes
        ]
        assert changes == [(e.contract_num, e.value_written, e.slot, e.value_read) for e in expected.state_changes]
        if expected.bytecode_contract_num is None:
            assert not message.HasField("bytecode")
        else:
            assert message.bytecode.contract_id.contractNum == expected.bytecode_contract_num
            assert len(message.bytecode.initcode) == expected.initcode_length
            assert len(message.bytecode.runtime_bytecode) == expected.runtime_bytecode_length


def test_sidecar_hash_is_the_one_its_record_file_promises(hedera_data: Path) -> None:
    for path, golden in SIDECAR_CASES:
        sidecar = parse_sidecar_file((hedera_data / path).read_bytes(), path)
        node = path.split("/recordstreams/record", 1)[-1].split("/", 1)[0]
        (meta,) = _record(hedera_data, golden.record_path(node)).sidecars
        assert (meta.id, meta.hash) == (sidecar.id, sidecar.hash)
        expected_types = golden.types if golden.records is None else {r.type for r in golden.records}
        assert set(meta.types) == sidecar.types == expected_types


@pytest.mark.parametrize(("path", "golden"), SIGNATURE_CASES, ids=[path for path, _ in SIGNATURE_CASES])
def test_signature_file(hedera_data: Path, path: str, golden: SignatureGolden) -> None:
    signature = parse_signature_file((hedera_data / path).read_bytes(), path)
    assert signature.version == golden.version
    assert signature.file_hash.hex() == golden.file_hash
    assert (signature.metadata_hash and signature.metadata_hash.hex()) == golden.metadata_hash
    assert len(signature.file_signature) == golden.signature_length
    if golden.metadata_hash is None:
        assert signature.metadata_signature is None
    else:
        assert signature.metadata_signature is not None
        assert len(signature.metadata_signature) == golden.signature_length
    if golden.file_signature is not None:
        assert signature.file_signature.hex() == golden.file_signature
        assert (signature.metadata_signature and signature.metadata_signature.hex()) == golden.metadata_signature


def test_golden_values_cover_every_stream_file(hedera_data: Path) -> None:
    present = {
        p.relative_to(hedera_data).as_posix() for p in hedera_data.rglob("*") if p.name.endswith(STREAM_SUFFIXES)
    }
    assert present == all_paths()
