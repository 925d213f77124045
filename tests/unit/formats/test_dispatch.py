from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hedera_history.cli.inspect_cmd import inspect
from hedera_history.errors import (
    CorruptFileError,
    DecompressionError,
    TruncatedFileError,
    UnsupportedVersionError,
)
from hedera_history.formats.dispatch import detect_kind, inspect_file, parse_record_file

from .writers import (
    bytecode_record,
    gz,
    i32,
    make_items,
    write_sidecar_content,
    write_signature_v2,
    write_signature_v5,
    write_signature_v6,
    write_v2,
    write_v5,
    write_v6_content,
)

ITEMS = make_items(2)
HASH = bytes(range(48))
SIG = b"\x01" * 384
RECORD_NAME = "2022-07-13T08_46_11.304284003Z.rcd"


@pytest.mark.parametrize(
    ("data", "version"),
    [
        (write_v2(ITEMS, version=1), 1),
        (write_v2(ITEMS, version=2), 2),
        (write_v5(ITEMS), 5),
        (write_v6_content(ITEMS), 6),  # uncompressed V6 is accepted too
        (gz(write_v6_content(ITEMS)), 6),
    ],
    ids=["v1", "v2", "v5", "v6-plain", "v6-gzip"],
)
def test_dispatch_on_the_version(data: bytes, version: int) -> None:
    assert parse_record_file(data, "f").version == version


def test_gzip_name_needs_gzip_bytes() -> None:
    with pytest.raises(DecompressionError, match=r"expected 1f8b \(the name ends in .gz\) but got 0000"):
        parse_record_file(write_v6_content(ITEMS), RECORD_NAME + ".gz")


def test_gzip_content_must_be_v6() -> None:
    with pytest.raises(UnsupportedVersionError, match="expected 6 in a gzip record file but got 5"):
        parse_record_file(gz(write_v5(ITEMS)), RECORD_NAME + ".gz")


@pytest.mark.parametrize(("data", "error"), [(b"", TruncatedFileError), (i32(3) + bytes(60), UnsupportedVersionError)])
def test_short_or_unknown(data: bytes, error: type[Exception]) -> None:
    with pytest.raises(error):
        parse_record_file(data, RECORD_NAME)


def test_decompression_limit_is_passed_on() -> None:
    with pytest.raises(DecompressionError, match="limit of 100 bytes"):
        parse_record_file(gz(write_v6_content(ITEMS)), RECORD_NAME + ".gz", max_decompressed=100)


def test_errors_name_the_node() -> None:
    with pytest.raises(CorruptFileError) as caught:
        parse_record_file(write_v5(ITEMS) + b"x", RECORD_NAME, node="0.0.3")
    assert (caught.value.file, caught.value.node) == (RECORD_NAME, "0.0.3")
    assert str(caught.value).endswith(f"(file {RECORD_NAME}, node 0.0.3)")


SIDECAR = gz(write_sidecar_content([bytecode_record(5, 1003, b"\x60\x80")]))


@pytest.mark.parametrize(
    ("data", "name", "kind"),
    [
        (write_v5(ITEMS), RECORD_NAME, "record"),
        (gz(write_v6_content(ITEMS)), RECORD_NAME + ".gz", "record"),
        (SIDECAR, "sidecar/2022-07-13T08_46_11.304284003Z_01.rcd.gz", "sidecar"),
        (write_signature_v6(HASH, SIG, HASH, SIG), "2022-07-13T08_46_11.304284003Z.rcd_sig", "signature"),
        # names that say nothing: the bytes decide
        (write_v2(ITEMS), "upload.bin", "record"),
        (gz(write_v6_content(ITEMS)), "upload.bin", "record"),
        (SIDECAR, "upload.bin", "sidecar"),
        (write_signature_v2(HASH, SIG), "upload.bin", "signature"),
        (write_signature_v5(HASH, SIG, HASH, SIG), "upload.bin", "signature"),
    ],
    ids=["v5", "v6", "sidecar", "sig-v6", "v2-bin", "v6-bin", "sidecar-bin", "sig-v2-bin", "sig-v5-bin"],
)
def test_detect_kind(data: bytes, name: str, kind: str) -> None:
    assert detect_kind(data, name) == kind
    shown = inspect_file(data, name)
    assert shown["kind"] == kind
    json.dumps(shown)


def test_detect_kind_of_garbage() -> None:
    with pytest.raises(UnsupportedVersionError):
        detect_kind(b"\x42\x42\x42\x42", "upload.bin")


def test_inspect_record_decodes_items() -> None:
    shown = inspect_file(gz(write_v6_content(ITEMS, block_number=9)), RECORD_NAME + ".gz")
    assert shown["version"] == 6
    assert shown["block_number"] == 9
    assert shown["hapi_version"] == "0.28.0"
    assert shown["item_count"] == 2
    assert shown["end_running_hash"] == shown["computed_end_running_hash"]
    first = shown["items"][0]
    assert first["consensus_ns"] == ITEMS[0].consensus_ns
    assert first["record"]["memo"] == "item 0"
    assert first["transaction"]["decodedBody"]["memo"] == "item 0"
    assert first["transaction"]["decodedBody"]["cryptoTransfer"]["transfers"]["accountAmounts"][0]["amount"] == "-5"


def test_inspect_sidecar_and_signature() -> None:
    sidecar = inspect_file(SIDECAR, "2022-07-13T08_46_11.304284003Z_03.rcd.gz")
    assert sidecar["id"] == 3
    assert sidecar["records"][0]["type"] == "CONTRACT_BYTECODE"
    assert sidecar["records"][0]["record"]["bytecode"]["contractId"]["contractNum"] == "1003"
    signature = inspect_file(write_signature_v2(HASH, SIG), "x.rcd_sig")
    assert signature == {
        "kind": "signature",
        "name": "x.rcd_sig",
        "version": 2,
        "file_hash": HASH.hex(),
        "file_signature": SIG.hex(),
        "metadata_hash": None,
        "metadata_signature": None,
    }


def test_cli_prints_json(tmp_path) -> None:
    path = tmp_path / (RECORD_NAME + ".gz")
    path.write_bytes(gz(write_v6_content(ITEMS)))
    result = CliRunner().invoke(inspect, [str(path)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["item_count"] == 2


def test_cli_typed_error_is_one_line_exit_1(tmp_path) -> None:
    path = tmp_path / RECORD_NAME
    path.write_bytes(write_v5(ITEMS) + b"x")
    result = CliRunner().invoke(inspect, [str(path)])
    assert result.exit_code == 1
    assert result.output.count("\n") == 1
    assert "field end of file: expected no more bytes but got 1" in result.output


def test_cli_limit_flag(tmp_path) -> None:
    path = tmp_path / (RECORD_NAME + ".gz")
    path.write_bytes(gz(write_v6_content(ITEMS)))
    result = CliRunner().invoke(inspect, [str(path), "--max-decompressed-bytes", "10"])
    assert result.exit_code == 1
    assert "limit of 10 bytes" in result.output


def test_inspect_shows_a_sidecar_record_of_an_unknown_type_raw() -> None:
    timestamp_only = b"\x0a\x04\x08\x05\x10\x00"  # consensus_timestamp {seconds: 5}
    unknown = timestamp_only + b"\xc2\x0c\x02\xca\xfe"  # field 200, as a newer HAPI would write it
    shown = inspect_file(gz(write_sidecar_content([unknown])), "2022-07-13T08_46_11.304284003Z_01.rcd.gz")
    assert shown["records"][0]["type"] == "UNKNOWN"
    assert shown["records"][0]["raw"] == unknown.hex()
