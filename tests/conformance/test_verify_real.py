"""Verification of the real v5/ and v6/ files with their address books (values from the data README)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history.books.address_book import AddressBook, node_entry
from hedera_history.books.parse import parse_address_book
from hedera_history.cli.verify_cmd import verify
from hedera_history.errors import BadSignatureError, NoConsensusError
from hedera_history.formats.dispatch import parse_signature_file
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.period import check_period, verify_period
from hedera_history.verify.signatures import verify_node_signature
from hedera_history.verify.stream import verify_stream

BOOKS = {"v6": "test-v6-sidecar-4n.bin", "v5": "test-resources-testnet.bin"}
NODES = ("0.0.3", "0.0.4", "0.0.5", "0.0.6")

V6_EXPECTED = [
    {
        "name": "2022-07-13T08_46_08.041986003Z.rcd.gz",
        "version": 6,
        "block_number": 5,
        "item_count": 1,
        "consensus_start": 1657701968041986003,
        "consensus_end": 1657701968041986003,
        "hapi_version": "0.28.0",
        "start_running_hash": "13d2594b9e9dbb73dad0cad67a96ad7a0e249af8693aa894003876c9ddd5534b"
        "3143e4d785e04fc0c461945a03e85178",
        "end_running_hash": "a6c241fad2c636f68a6aa0da9293245a5ef0ebef345cd139858068ff7998716c"
        "efe0fd3afa0d21304725507061975279",
        "file_hash": "69a4354de5aeb12fbc989ae086fc291cfc1b61415391b4a46915b32aef722a511c4ceba60ecda72d527cc4866a4d235b",
        "metadata_hash": "361c0176ba28cc55525c50e7e75e58618b451f3dca402d9be19626159d939e7a"
        "569534658125732c1af31ff6f4a8e283",
        "sidecars": [],
    },
    {
        "name": "2022-07-13T08_46_11.304284003Z.rcd.gz",
        "version": 6,
        "block_number": 6,
        "item_count": 2,
        "consensus_start": 1657701971304284003,
        "consensus_end": 1657701971304284004,
        "hapi_version": "0.28.0",
        "start_running_hash": "a6c241fad2c636f68a6aa0da9293245a5ef0ebef345cd139858068ff7998716c"
        "efe0fd3afa0d21304725507061975279",
        "end_running_hash": "3064b824b8b9f9ece011f88a26c030c9f6b822f30fbcabcc7240a220ea42bbdb"
        "f305db415a4e41307d0630d5cefe4550",
        "file_hash": "ed518c8d05f470d4540db35ea8665ab158f9aeb0bcaa3332d171c1efba119da52c1ee510df599269b022d963d4d1e474",
        "metadata_hash": "b13a2b638c5688dbec43b97dbee8ad637d2d42376fc313c628a990ac65aefdbd"
        "39832cf5ece42b925a520ed2d2bf8eac",
        "sidecars": [
            {
                "id": 1,
                "types": [1, 3],
                "hash": "1ed54ea01aab5e726a087e94a0dd52c0f49b149d7a773ae71a3dc099f623bcf1"
                "840393db68f8db476ab11e6159f030f2",
                "record_count": 2,
            }
        ],
    },
]

V5_EXPECTED = [
    {
        "name": "2021-01-11T22_09_24.063739000Z.rcd",
        "version": 5,
        "item_count": 1,
        "consensus_start": 1610402964063739000,
        "consensus_end": 1610402964063739000,
        "hapi_version": "0.9.0",
        "start_running_hash": "00" * 48,
        "end_running_hash": "151bd3358db59fc7936eff15f1cb6734354e444cf85549a5643e55c9c929cb50"
        "0be712abccd588cd8d20eb92ca55ff49",
        "file_hash": "e8adaac05a62a655a3c476b43f1383f6c5f5bba4bfa6c7b087dc4ee3a9089e232b5d5977bde7fba858fd56987792ece3",
        "metadata_hash": "ffe56840b99145f7b3370367fa5784cbe225278afd1c4c078dfe5b950fee22e2"
        "b9e9a04bde32023c3ba07c057cb54406",
    },
    {
        "name": "2021-01-11T22_09_34.097416003Z.rcd",
        "version": 5,
        "item_count": 1,
        "consensus_start": 1610402974097416003,
        "consensus_end": 1610402974097416003,
        "hapi_version": "0.9.0",
        "start_running_hash": "151bd3358db59fc7936eff15f1cb6734354e444cf85549a5643e55c9c929cb50"
        "0be712abccd588cd8d20eb92ca55ff49",
        "end_running_hash": "514e361089074cb06f984e5a943a20fba2a0d601b766f8adb432d03214c48c3f"
        "f14898e6b78292520340f484e820ea84",
        "file_hash": "06fb76873dcdc3a4fdb67202e64ed735feaf6a6bb80d4f57fd3511df49ef61fc69d7a2414315028b7d77e168169fad22",
        "metadata_hash": "912869b5204ffbb7e437aaa6e7a09e9d53da98ead27942fdf7017e850827e857"
        "fadb1167e8877cfb8175883adcd74f7d",
    },
]


def _book(hedera_data: Path, version: str) -> AddressBook:
    path = hedera_data / "addressbook" / BOOKS[version]
    return parse_address_book(path.read_bytes(), path.name)


def _copy(hedera_data: Path, version: str, tmp_path: Path, nodes: tuple[str, ...]) -> Path:
    target = tmp_path / version
    for node in nodes:
        shutil.copytree(
            hedera_data / version / "recordstreams" / f"record{node}",
            target / "recordstreams" / f"record{node}",
        )
    return target


@pytest.mark.parametrize("version", ["v5", "v6"])
def test_every_node_signature_verifies_with_its_book_only(hedera_data: Path, version: str):
    book = _book(hedera_data, version)
    wrong = _book(hedera_data, "v5" if version == "v6" else "v6")
    files = sorted((hedera_data / version).rglob("*.rcd_sig"))
    assert len(files) == 8
    for path in files:
        node = book.by_account(path.parent.name.removeprefix("record"))
        other = wrong.by_account(path.parent.name.removeprefix("record"))
        assert node is not None and other is not None
        sig = parse_signature_file(path.read_bytes(), path.name)
        verify_node_signature(sig, node)
        with pytest.raises(BadSignatureError):
            verify_node_signature(sig, other)


def test_v6_stream_verifies_with_the_readme_values(hedera_data: Path):
    results = list(verify_stream(find_local_periods(hedera_data / "v6"), _book(hedera_data, "v6")))
    assert [r.ok for r in results] == [True, True]
    assert [r.block_number for r in results] == [5, 6]
    second = results[1].report.block
    assert second is not None and second.consensus.stake == 4 and second.consensus.total_stake == 4
    assert results[1].link is not None and results[1].link.ok
    assert [s.node_account for s in second.signatures] == list(NODES)


def test_v5_stream_verifies_and_numbers_from_start_block(hedera_data: Path):
    results = list(verify_stream(find_local_periods(hedera_data / "v5"), _book(hedera_data, "v5"), start_block=40))
    assert [r.ok for r in results] == [True, True]
    assert [r.block_number for r in results] == [40, 41]


@pytest.mark.parametrize("version", ["v5", "v6"])
def test_three_nodes_are_enough(hedera_data: Path, tmp_path: Path, version: str):
    folder = _copy(hedera_data, version, tmp_path, NODES[:3])
    for period in find_local_periods(folder):
        report = check_period(period, _book(hedera_data, version), block_number=0)
        assert report.ok, report.error
        assert report.consensus is not None and report.consensus.outcomes["0.0.6"] == "no signature file"


@pytest.mark.parametrize("version", ["v5", "v6"])
def test_one_node_of_four_is_not(hedera_data: Path, tmp_path: Path, version: str):
    folder = _copy(hedera_data, version, tmp_path, ("0.0.3",))
    for period in find_local_periods(folder):
        with pytest.raises(NoConsensusError):
            verify_period(period, _book(hedera_data, version), block_number=0)


def _staked(book: AddressBook, stakes: dict[str, int]) -> AddressBook:
    return AddressBook(
        tuple(
            node_entry(n.account, n.node_id, n.public_key, stakes[n.account]) for n in book.nodes if n.account in stakes
        )
    )


def test_one_node_of_total_stake_three_succeeds_and_of_four_fails(hedera_data: Path, tmp_path: Path):
    real = _book(hedera_data, "v6")
    folder = _copy(hedera_data, "v6", tmp_path, ("0.0.3",))
    three = _staked(real, {"0.0.3": 1, "0.0.4": 2})
    four = _staked(real, {"0.0.3": 1, "0.0.4": 1, "0.0.5": 1, "0.0.6": 1})
    for period in find_local_periods(folder):
        assert verify_period(period, three).consensus.total_stake == 3
        with pytest.raises(NoConsensusError):
            verify_period(period, four)


def _corrupt_signature(path: Path) -> None:
    data = bytearray(path.read_bytes())
    sig = parse_signature_file(bytes(data), path.name)
    at = bytes(data).find(sig.file_signature) + 10
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("version", ["v5", "v6"])
def test_corrupted_signatures_fail(hedera_data: Path, tmp_path: Path, version: str):
    folder = _copy(hedera_data, version, tmp_path, NODES)
    for path in folder.rglob("*.rcd_sig"):
        _corrupt_signature(path)
    book = _book(hedera_data, version)
    for period in find_local_periods(folder):
        report = check_period(period, book, block_number=0)
        assert isinstance(report.error, NoConsensusError)
        assert report.consensus is not None
        assert all(o.startswith("bad signature: file signature") for o in report.consensus.outcomes.values())


def test_one_corrupted_signature_is_reported_and_the_rest_carry(hedera_data: Path, tmp_path: Path):
    folder = _copy(hedera_data, "v6", tmp_path, NODES)
    for path in (folder / "recordstreams" / "record0.0.4").glob("*.rcd_sig"):
        _corrupt_signature(path)
    for period in find_local_periods(folder):
        report = check_period(period, _book(hedera_data, "v6"))
        assert report.ok and report.consensus is not None
        assert report.consensus.stake == 3
        assert report.consensus.outcomes["0.0.4"].startswith("bad signature")


@pytest.mark.parametrize("version", ["v5", "v6"])
def test_the_wrong_book_fails(hedera_data: Path, version: str):
    wrong = _book(hedera_data, "v5" if version == "v6" else "v6")
    for period in find_local_periods(hedera_data / version):
        report = check_period(period, wrong, block_number=0)
        assert isinstance(report.error, NoConsensusError)
        assert report.consensus is not None and report.consensus.file_hash is None
        assert all(o.startswith("bad signature") for o in report.consensus.outcomes.values())


def _cli(hedera_data: Path, version: str, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    book = hedera_data / "addressbook" / BOOKS[version]
    result = CliRunner().invoke(
        verify, [str(hedera_data / version), "--address-book", str(book), "--json", *extra], env={}
    )
    return result.exit_code, [json.loads(line) for line in result.output.splitlines()]


def test_cli_over_v6_prints_the_readme_values(hedera_data: Path):
    code, lines = _cli(hedera_data, "v6")
    assert code == 0
    assert len(lines) == 2
    for line, expected in zip(lines, V6_EXPECTED, strict=True):
        assert {key: line[key] for key in expected} == expected
        assert line["ok"] is True and line["error"] is None
        assert line["nodes"] == dict.fromkeys(NODES, "ok")
        assert line["consensus"]["file_hash"] == expected["file_hash"]
        assert (line["consensus"]["stake"], line["consensus"]["total_stake"]) == (4, 4)


def test_cli_over_v5_numbers_from_start_block(hedera_data: Path):
    code, lines = _cli(hedera_data, "v5", "--start-block", "1000")
    assert code == 0
    assert [line["block_number"] for line in lines] == [1000, 1001]
    for line, expected in zip(lines, V5_EXPECTED, strict=True):
        assert {key: line[key] for key in expected} == expected
        assert line["ok"] is True


def test_cli_fails_with_the_wrong_book(hedera_data: Path):
    book = hedera_data / "addressbook" / BOOKS["v5"]
    result = CliRunner().invoke(verify, [str(hedera_data / "v6"), "--address-book", str(book)], env={})
    assert result.exit_code == 1
    assert result.output.count("FAIL") == 2


def test_cli_without_sidecars(hedera_data: Path):
    code, lines = _cli(hedera_data, "v6", "--no-sidecars")
    assert code == 0
    assert lines[1]["sidecars"][0]["record_count"] is None
