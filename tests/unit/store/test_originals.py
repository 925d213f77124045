from __future__ import annotations

import gzip
import hashlib
import struct
from dataclasses import replace
from pathlib import Path

import pytest
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.store.originals import encode_item_list, signed_file_bytes

from .builders import BASE_NS, NS, transfer_tx


def _record_files(root: Path) -> list[Path]:
    return sorted(p for p in root.glob("v*/recordstreams/record0.0.3/*") if p.name.endswith((".rcd", ".rcd.gz")))


def test_real_files_are_rebuilt_byte_for_byte(hedera_data: Path) -> None:
    paths = _record_files(hedera_data)
    assert {p.parent.parent.parent.name for p in paths} == {"v1", "v2", "v5", "v6"}
    assert len(paths) == 8
    for path in paths:
        data = path.read_bytes()
        original = gzip.decompress(data) if path.name.endswith(".gz") else data
        assert signed_file_bytes(parse_record_file(data, path.name)) == original, path.name


@pytest.mark.parametrize("version", [1, 2])
def test_v1_and_v2_files_are_rebuilt(version: int) -> None:
    txs = [transfer_tx(BASE_NS + i * NS, 1001, 1002) for i in range(3)]
    header = struct.pack(">ii", version, 3) + b"\x01" + hashlib.sha384(b"previous").digest()
    body = b"".join(
        b"\x02"
        + struct.pack(">i", len(t.transaction_bytes))
        + t.transaction_bytes
        + struct.pack(">i", len(t.record_bytes))
        + t.record_bytes
        for t in txs
    )
    data = header + body
    name = "2023-11-14T22_13_20.000000000Z.rcd"
    assert signed_file_bytes(parse_record_file(data, name)) == data


def test_a_file_that_cannot_be_rebuilt_gives_none(hedera_data: Path) -> None:
    path = _record_files(hedera_data)[-1]
    record = parse_record_file(path.read_bytes(), path.name)
    assert signed_file_bytes(replace(record, file_hash=bytes(48))) is None
    listed = encode_item_list(record)
    assert struct.unpack(">I", listed[:4])[0] == len(record.items)
    assert record.items[0].transaction_bytes in listed
