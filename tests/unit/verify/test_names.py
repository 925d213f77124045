from __future__ import annotations

import pytest
from hedera_history.errors import FileNameError
from hedera_history.formats.names import (
    StreamFileKind,
    format_timestamp,
    parse_stream_file_name,
    parse_timestamp,
    record_file_name,
    sidecar_file_name,
    signature_file_name,
)
from hypothesis import given
from hypothesis import strategies as st

TS = "2022-07-13T08_46_11.304284003Z"
NS = 1657701971304284003


@pytest.mark.parametrize(
    ("name", "kind", "sidecar_id", "compressed"),
    [
        (f"{TS}.rcd.gz", StreamFileKind.RECORD, None, True),
        (f"{TS}.rcd", StreamFileKind.RECORD, None, False),
        (f"{TS}.rcd_sig", StreamFileKind.SIGNATURE, None, False),
        (f"{TS}_01.rcd.gz", StreamFileKind.SIDECAR, 1, True),
        (f"{TS}_12.rcd", StreamFileKind.SIDECAR, 12, False),
    ],
)
def test_parses_each_kind_and_gives_the_name_back(name, kind, sidecar_id, compressed):
    parsed = parse_stream_file_name(name)
    assert (parsed.kind, parsed.sidecar_id, parsed.compressed) == (kind, sidecar_id, compressed)
    assert parsed.consensus_ns == NS
    assert parsed.period_key == TS
    assert str(parsed) == name


def test_a_path_is_cut_to_its_name():
    assert parse_stream_file_name(f"recordstreams/record0.0.3/sidecar/{TS}_01.rcd.gz").sidecar_id == 1


def test_record_signature_and_sidecars_share_the_period_key():
    record = parse_stream_file_name(f"{TS}.rcd.gz")
    assert record.signature().name == f"{TS}.rcd_sig"
    assert record.sidecar(2).name == f"{TS}_02.rcd.gz"
    assert parse_stream_file_name(f"{TS}.rcd_sig").record(compressed=False).name == f"{TS}.rcd"


def test_old_names_with_fewer_digits_keep_their_text():
    parsed = parse_stream_file_name("2019-06-05T20_29_32.856974Z.rcd_sig")
    assert parsed.consensus_ns == parse_timestamp("2019-06-05T20_29_32.856974000Z")
    assert parsed.record(compressed=False).name == "2019-06-05T20_29_32.856974Z.rcd"
    assert parse_stream_file_name("2021-03-10T16_30_00Z.rcd").consensus_ns % 1_000_000_000 == 0


def test_format_uses_nine_digits():
    assert format_timestamp(NS) == TS
    assert format_timestamp(1610402964063739000) == "2021-01-11T22_09_24.063739000Z"
    assert record_file_name(NS, compressed=True).name == f"{TS}.rcd.gz"
    assert signature_file_name(NS).name == f"{TS}.rcd_sig"
    assert sidecar_file_name(NS, 1).name == f"{TS}_01.rcd.gz"


@pytest.mark.parametrize(
    "name",
    [
        "",
        "README.md",
        f"{TS}.rcd.gzz",
        f"{TS}.evts",
        "2022-07-13T08:46:11.304284003Z.rcd",  # ':' is written as '_'
        "2022-07-13T08_46_11.3042840031Z.rcd",  # ten digits
        "2022-13-13T08_46_11.304284003Z.rcd",  # month 13
        "2022-02-30T08_46_11.304284003Z.rcd",  # February 30
        "2022-07-13T24_46_11.304284003Z.rcd",
        f"{TS}_00.rcd.gz",  # sidecar ids start at 1
        f"{TS}_1.rcd.gz",
        "2022-07-13T08_46_11.304284003.rcd",  # no Z
    ],
)
def test_bad_names_raise_file_name_error(name):
    with pytest.raises(FileNameError):
        parse_stream_file_name(name)


def test_bad_values_raise_file_name_error():
    with pytest.raises(FileNameError):
        format_timestamp(-1)
    with pytest.raises(FileNameError):
        parse_timestamp("yesterday")
    with pytest.raises(FileNameError):
        record_file_name(NS, compressed=True).sidecar(0)


@given(st.integers(min_value=0, max_value=253402300799_999999999))
def test_timestamps_round_trip(ns):
    assert parse_timestamp(format_timestamp(ns)) == ns


@given(
    st.integers(min_value=0, max_value=4102444800_000000000),
    st.sampled_from(["{}.rcd", "{}.rcd.gz", "{}.rcd_sig", "{}_01.rcd.gz", "{}_07.rcd"]),
)
def test_names_round_trip(ns, pattern):
    name = pattern.format(format_timestamp(ns))
    parsed = parse_stream_file_name(name)
    assert parsed.name == name
    assert parsed.consensus_ns == ns
