from __future__ import annotations

import hashlib

import pytest
from hedera_history import hapi
from hedera_history.errors import CorruptFileError, DecompressionError, FileNameError, FormatError
from hedera_history.formats.dispatch import parse_sidecar_file
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.formats.sidecar import parse_sidecar_content, sidecar_id_from_name

from .writers import actions_record, bytecode_record, gz, len_field, state_change_record, write_sidecar_content

NAME = "2022-07-13T08_46_11.304284003Z_02.rcd.gz"
RECORDS = [
    state_change_record(1_657_701_971_304_284_003, 1002, b"\x03\xeb"),
    actions_record(1_657_701_971_304_284_003),
    bytecode_record(1_657_701_971_304_284_004, 1003, b"\x60\x80\x60\x40"),
]


def test_whole_file() -> None:
    content = write_sidecar_content(RECORDS)
    data = gz(content)
    sidecar = parse_sidecar_file(data, f"recordstreams/record0.0.3/sidecar/{NAME}")
    assert sidecar.id == 2
    assert sidecar.size == len(data)
    assert sidecar.hash == hashlib.sha384(content).digest()
    assert [r.raw for r in sidecar.records] == RECORDS
    assert [r.type for r in sidecar.records] == [
        SidecarType.CONTRACT_STATE_CHANGE,
        SidecarType.CONTRACT_ACTION,
        SidecarType.CONTRACT_BYTECODE,
    ]
    assert [r.consensus_ns for r in sidecar.records] == [1_657_701_971_304_284_003] * 2 + [1_657_701_971_304_284_004]
    assert sidecar.types == frozenset({1, 2, 3})


def test_id_given_wins_over_the_name() -> None:
    assert parse_sidecar_file(gz(write_sidecar_content(RECORDS)), "anything.gz", id=5).id == 5


def test_id_from_name() -> None:
    assert sidecar_id_from_name("sidecar/2022-07-13T08_46_11.304284003Z_01.rcd.gz") == 1
    assert sidecar_id_from_name("2022-07-13T08_46_11.304284003Z_12.rcd") == 12
    with pytest.raises(FileNameError):
        sidecar_id_from_name("2022-07-13T08_46_11.304284003Z.rcd.gz")
    with pytest.raises(FileNameError):
        parse_sidecar_file(gz(write_sidecar_content(RECORDS)), "sidecar.gz")


def test_record_without_a_known_kind_is_unknown() -> None:
    record = hapi.TransactionSidecarRecord(migration=True)
    record.consensus_timestamp.seconds = 5
    sidecar = parse_sidecar_content(write_sidecar_content([record.SerializeToString()]), NAME)
    assert sidecar.records[0].type is SidecarType.UNKNOWN


def test_empty_sidecar_and_unknown_fields() -> None:
    assert parse_sidecar_content(b"", NAME).records == ()
    content = b"\x10\x01" + write_sidecar_content(RECORDS[:1]) + len_field(7, b"future")
    assert [r.raw for r in parse_sidecar_content(content, NAME).records] == RECORDS[:1]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x0a\x05abc", "field sidecar_records|does not parse"),
        (b"\x0f", "does not parse"),
        (len_field(1, b"\x10\x01"), r"sidecar_records\[0\]\.consensus_timestamp: expected a value"),
        (len_field(1, b"\x0a\x03\x08"), "does not parse"),
    ],
)
def test_corrupt_content(content: bytes, message: str) -> None:
    with pytest.raises(FormatError, match=message):
        parse_sidecar_content(content, NAME)


def test_gzip_is_checked() -> None:
    with pytest.raises(DecompressionError, match=r"the name ends in \.gz"):
        parse_sidecar_file(write_sidecar_content(RECORDS), NAME)
    with pytest.raises(DecompressionError, match="limit"):
        parse_sidecar_file(gz(write_sidecar_content(RECORDS)), NAME, max_decompressed=10)


def test_corrupt_error_names_the_node() -> None:
    with pytest.raises(CorruptFileError) as caught:
        parse_sidecar_file(gz(b"\x0f"), NAME, node="0.0.5")
    assert caught.value.node == "0.0.5"
    assert caught.value.file == NAME
