"""The small parts: period plans, gzip copies, wire encoding, address-book chunks."""

from __future__ import annotations

import gzip
import random

import pytest
from hedera_history import hapi
from hedera_history.errors import ConfigError
from hedera_history.formats.compression import deflate, gzip_member
from hedera_history.formats.parsed_files import RecordItem, SidecarMetadata
from hedera_history.formats.record_v6 import write_record_v6
from hedera_history.formats.wire import varint
from hedera_history.gen import GeneratorConfig
from hedera_history.gen.books import FILE_CHUNK_BYTES, file_chunks
from hedera_history.gen.period_mix import COVERAGE, TxKind, group_size, plan_period


@pytest.mark.parametrize("capacity", [1, 2, 7, 40])
def test_plan_fills_the_period_exactly(capacity: int) -> None:
    pending = list(COVERAGE)
    groups = plan_period(random.Random(capacity), capacity, pending)
    assert sum(group_size(kind, 2) for kind in groups) == capacity
    placed = set(COVERAGE) - set(pending)
    assert placed <= set(groups)


def test_plan_places_the_address_book_update() -> None:
    groups = plan_period(random.Random(0), 10, [], address_book_update=True, book_chunks=3)
    assert groups.count(TxKind.ADDRESS_BOOK_UPDATE) == 1
    assert sum(group_size(kind, 3) for kind in groups) == 10


def test_gzip_copies_share_the_deflate_stream() -> None:
    data = b"record file " * 100
    deflated = deflate(data)
    first = gzip_member(deflated, mtime=1, file_name="a.rcd")
    second = gzip_member(deflated, mtime=2, file_name="a.rcd")
    assert gzip.decompress(first) == gzip.decompress(second) == data
    assert first != second and first[10:] == second[10:]


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 2**35, -1])
def test_varint_matches_protobuf(value: int) -> None:
    encoded = hapi.TransactionRecord(transactionFee=value & (2**64 - 1)).SerializeToString()
    assert encoded == (b"\x30" + varint(value) if value else b"")


def test_record_file_bytes_match_protobuf_serialisation() -> None:
    transaction = hapi.Transaction(signedTransactionBytes=b"signed").SerializeToString()
    record = hapi.TransactionRecord(memo="m").SerializeToString()
    data = write_record_v6(
        [RecordItem(transaction, record, 0)],
        hapi_version=(0, 56, 0),
        start_running_hash=b"\x01" * 48,
        end_running_hash=b"\x02" * 48,
        block_number=7,
        sidecars=[SidecarMetadata(1, (1, 3), b"\x03" * 48)],
    )
    expected = hapi.RecordStreamFile()
    expected.hapi_proto_version.minor = 56
    expected.start_object_running_hash.algorithm = 1
    expected.start_object_running_hash.length = 48
    expected.start_object_running_hash.hash = b"\x01" * 48
    item = expected.record_stream_items.add()
    item.transaction.signedTransactionBytes = b"signed"
    item.record.memo = "m"
    expected.end_object_running_hash.algorithm = 1
    expected.end_object_running_hash.length = 48
    expected.end_object_running_hash.hash = b"\x02" * 48
    expected.block_number = 7
    sidecar = expected.sidecars.add()
    sidecar.hash.algorithm = 1
    sidecar.hash.length = 48
    sidecar.hash.hash = b"\x03" * 48
    sidecar.id = 1
    sidecar.types.extend([1, 3])
    assert data == b"\x00\x00\x00\x06" + expected.SerializeToString()


@pytest.mark.parametrize("size", [1000, 4096, 9000, 20000])
def test_file_chunks(size: int) -> None:
    contents = bytes(range(256)) * (size // 256 + 1)
    contents = contents[:size]
    chunks = file_chunks(contents)
    assert b"".join(chunks) == contents
    assert len(chunks) >= 2 and max(map(len, chunks)) <= FILE_CHUNK_BYTES


@pytest.mark.parametrize(
    "changes",
    [
        {"nodes": 0},
        {"periods": 0},
        {"transactions": 0},
        {"accounts": 1},
        {"stakes": (1,)},
        {"network": "a/b"},
    ],
)
def test_bad_configs_are_config_errors(changes: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        GeneratorConfig(**changes)  # type: ignore[arg-type]
