"""The real V1 and V2 sets (``v1/``, ``v2/``) verify with the values their ``EXPECTED.json`` states,
every real set (V1, V2, V5, V6) is backfilled into blocks carrying the reference's values, and a
real V2 chain followed by a validly signed V5 file that names another file is rejected.

Two splices, each vouched for by every signature, so only the chain link across the V2 -> V5
boundary can tell, and it must:
- the real V5 files after the real V2 files (both sets verify with ``test-resources-testnet.bin``;
  the V5 files start a chain of their own);
- a V5 file naming the *first* V2 file, signed by four more nodes holding half the stake of a book
  that also lists the four real ones.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history.backfill.partition_messages import BackfillJob
from hedera_history.books.address_book import AddressBook, node_entry
from hedera_history.books.parse import address_book_to_bytes, parse_address_book
from hedera_history.cli.verify_cmd import verify
from hedera_history.errors import BadSignatureError
from hedera_history.formats.dispatch import parse_record_file, parse_signature_file
from hedera_history.formats.hashing import running_hash, sha384
from hedera_history.formats.names import parse_stream_file_name
from hedera_history.formats.record_v5 import metadata_hash_v5, write_record_v5
from hedera_history.gen.keys import node_rsa_key, public_der
from hedera_history.gen.signing import signed_signature_file
from hedera_history.store.chain_links import read_broken_links
from hedera_history.store.reader import HistoryReader
from hedera_history.verify.signatures import verify_node_signature

from tests.helpers.backfill import backfill_in_process, folder_job
from tests.unit.store.fakes import MemoryGateway

from .golden import BOOKS, NODES, RECORD_FILES, V1_FILES, V2_FILES, V5_FILE_1, RecordGolden

LEGACY = {"v1": V1_FILES, "v2": V2_FILES}


def _cli(folder: Path, book: Path, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    result = CliRunner().invoke(verify, [str(folder), "--address-book", str(book), "--json", *extra], env={})
    return result.exit_code, [json.loads(line) for line in result.output.splitlines()]


def _expected_line(golden: RecordGolden) -> dict[str, Any]:
    return {
        "name": golden.name,
        "version": golden.version,
        "size": golden.size,
        "item_count": golden.count,
        "consensus_start": golden.consensus_start,
        "consensus_end": golden.consensus_end,
        "hapi_version": "0.0.0",
        "file_hash": golden.file_hash,
        "previous_file_hash": golden.previous_file_hash,
        "previous_hash": golden.previous_hash,
        "hash": golden.end_running_hash,
        "block_number": golden.index,
        "metadata_hash": None,
        "start_running_hash": None,
    }


@pytest.mark.parametrize("folder", ["v1", "v2"])
def test_cli_prints_every_expected_value(hedera_data: Path, folder: str) -> None:
    code, lines = _cli(hedera_data / folder, hedera_data / BOOKS[folder])
    assert code == 0
    goldens = LEGACY[folder]
    assert len(lines) == len(goldens) == 2
    for line, golden in zip(lines, goldens, strict=True):
        expected = _expected_line(golden)
        assert {key: line[key] for key in expected} == expected
        assert line["ok"] is True and line["error"] is None
        assert line["nodes"] == dict.fromkeys(NODES, "ok")
        assert line["consensus"]["file_hash"] == golden.file_hash
        assert (line["consensus"]["stake"], line["consensus"]["total_stake"]) == (4, 4)
    assert lines[1]["link"] == {"previous": goldens[0].name, "status": "ok", "reason": None}


@pytest.mark.parametrize("folder", ["v1", "v2"])
def test_every_node_signature_verifies_with_its_book_only(hedera_data: Path, folder: str) -> None:
    book = parse_address_book((hedera_data / BOOKS[folder]).read_bytes(), BOOKS[folder])
    other = "v2" if folder == "v1" else "v1"
    wrong = parse_address_book((hedera_data / BOOKS[other]).read_bytes(), BOOKS[other])
    files = sorted((hedera_data / folder).rglob("*.rcd_sig"))
    assert len(files) == 8
    for path in files:
        account = path.parent.name.removeprefix("record")
        node, stranger = book.by_account(account), wrong.by_account(account)
        assert node is not None and stranger is not None
        signature = parse_signature_file(path.read_bytes(), path.name)
        assert signature.metadata_hash is None  # V1/V2 signatures sign the file hash only
        verify_node_signature(signature, node)
        with pytest.raises(BadSignatureError):
            verify_node_signature(signature, stranger)


def _splice(hedera_data: Path, target: Path) -> Path:
    """The real V2 files, then the real V5 files (which start a chain of their own)."""
    for folder in ("v2", "v5"):
        shutil.copytree(hedera_data / folder / "recordstreams", target / "recordstreams", dirs_exist_ok=True)
    return target


SIGNERS = (7, 8, 9, 10)
"""Four more nodes with generated keys: with the real four they make an eight-node book in which
either four hold half the stake, so the real V2 files and a generated V5 file both reach consensus."""


def _splice_naming_the_first_v2_file(hedera_data: Path, target: Path) -> tuple[Path, bytes]:
    """The real V2 files, then a V5 file signed by half the stake whose start running hash names
    the *first* V2 file instead of the last (its items are the real first V5 file's)."""
    shutil.copytree(hedera_data / "v2" / "recordstreams", target / "recordstreams")
    real = parse_address_book((hedera_data / BOOKS["v2"]).read_bytes())
    keys = {num: node_rsa_key(seed=12, node_id=num - 3) for num in SIGNERS}
    extra = tuple(node_entry(f"0.0.{num}", num - 3, public_der(key)) for num, key in keys.items())
    book = address_book_to_bytes(AddressBook((*real.nodes, *extra)))

    template = parse_record_file((hedera_data / V5_FILE_1.path("0.0.3")).read_bytes(), V5_FILE_1.name)
    start = bytes.fromhex(V2_FILES[0].file_hash)
    pairs = [(item.record_bytes, item.transaction_bytes) for item in template.items]
    data = write_record_v5(
        template.items,
        hapi_version=template.hapi_version,
        start_running_hash=start,
        end_running_hash=running_hash(start, pairs),
    )
    file_hash, metadata_hash = sha384(data), metadata_hash_v5(data)
    for num, key in keys.items():
        folder = target / "recordstreams" / f"record0.0.{num}"
        folder.mkdir(parents=True)
        (folder / V5_FILE_1.name).write_bytes(data)
        signature = signed_signature_file(key, file_hash, metadata_hash, version=5)
        (folder / V5_FILE_1.name.replace(".rcd", ".rcd_sig")).write_bytes(signature)
    return target, book


def test_a_validly_signed_v5_file_naming_another_v2_file_fails_verify(hedera_data: Path, tmp_path: Path) -> None:
    folder, book = _splice_naming_the_first_v2_file(hedera_data, tmp_path / "spliced")
    (tmp_path / "book.bin").write_bytes(book)
    code, lines = _cli(folder, tmp_path / "book.bin")
    assert code == 1
    assert [line["ok"] for line in lines] == [True, True, False]
    broken = lines[2]
    assert broken["consensus"]["reached"] is True and broken["version"] == 5
    assert broken["error_kind"] == "broken_chain"
    assert broken["previous_hash"] == V2_FILES[0].file_hash
    assert V2_FILES[1].file_hash in broken["error"]


def test_backfill_records_a_v5_file_naming_another_v2_file_as_broken(hedera_data: Path, tmp_path: Path) -> None:
    folder, book = _splice_naming_the_first_v2_file(hedera_data, tmp_path / "spliced")
    (tmp_path / "book.bin").write_bytes(book)
    for partitions in (1, 3):
        gateway = MemoryGateway()
        job = _job(folder, tmp_path / "book.bin", V2_FILES[0].name, V5_FILE_1.name)
        report = _backfill(folder, replace(job, partitions=partitions), gateway)
        assert not report.ok
        assert list(read_broken_links(gateway)) == [2]
        if partitions == 1:
            assert HistoryReader(gateway).get_block(2) is None  # signed by half the stake, never written


def test_a_v5_file_naming_another_file_after_v2_fails_verify(hedera_data: Path, tmp_path: Path) -> None:
    folder = _splice(hedera_data, tmp_path / "spliced")
    code, lines = _cli(folder, hedera_data / BOOKS["v2"])
    assert code == 1
    assert [line["name"] for line in lines] == [g.name for g in V2_FILES] + [
        V5_FILE_1.name,
        "2021-01-11T22_09_34.097416003Z.rcd",
    ]
    assert [line["ok"] for line in lines] == [True, True, False, True]
    broken = lines[2]
    assert broken["error_kind"] == "broken_chain"
    assert V2_FILES[1].file_hash in broken["error"] and "00" * 48 in broken["error"]
    assert broken["consensus"]["reached"] is True  # every node signed it: only the link tells


def _job(folder: Path, book: Path, start_name: str, end_name: str) -> BackfillJob:
    start_ns = parse_stream_file_name(start_name).consensus_ns
    end_ns = parse_stream_file_name(end_name).consensus_ns + 1
    return folder_job(folder, book=book.read_bytes(), start_ns=start_ns, end_ns=end_ns, partitions=2)


def _backfill(folder: Path, job: BackfillJob, gateway: MemoryGateway | None = None) -> Any:
    assert job.source_url == str(folder)
    return backfill_in_process(job, gateway or MemoryGateway())


@pytest.mark.parametrize("folder", ["v1", "v2", "v5", "v6"])
def test_backfill_writes_the_expected_blocks(hedera_data: Path, folder: str) -> None:
    goldens = [g for g in RECORD_FILES if g.folder == folder]
    gateway = MemoryGateway()
    job = _job(hedera_data / folder, hedera_data / BOOKS[folder], goldens[0].name, goldens[-1].name)
    report = _backfill(hedera_data / folder, job, gateway)
    assert report.ok, report.summary_lines()
    numbers = [g.block_number if g.block_number is not None else i for i, g in enumerate(goldens)]
    assert report.blocks == (numbers[0], numbers[-1])
    assert report.counts.transactions == sum(g.count for g in goldens)
    assert all(boundary.ok for boundary in report.boundaries)
    reader = HistoryReader(gateway)
    for number, golden in zip(numbers, goldens, strict=True):
        block = reader.get_block(number)
        assert block is not None
        assert (block.name, block.version, block.item_count) == (golden.name, golden.version, golden.count)
        assert (block.consensus_start, block.consensus_end) == (golden.consensus_start, golden.consensus_end)
        assert block.file_hash.hex() == golden.file_hash
        assert block.previous_hash.hex() == golden.previous_hash
        assert (block.end_running_hash or block.file_hash).hex() == golden.end_running_hash
        assert (block.metadata_hash and block.metadata_hash.hex()) == golden.metadata_hash
        assert block.hapi_version == golden.hapi_version
        assert {s.node_account for s in block.signatures} == set(NODES)
    assert read_broken_links(gateway) == {}


def test_backfill_records_the_spliced_link_as_broken(hedera_data: Path, tmp_path: Path) -> None:
    folder = _splice(hedera_data, tmp_path / "spliced")
    last = "2021-01-11T22_09_34.097416003Z.rcd"
    for partitions in (1, 2, 4):  # the break inside one partition, and on a partition boundary
        job = _job(folder, hedera_data / BOOKS["v2"], V2_FILES[0].name, last)
        gateway = MemoryGateway()
        report = _backfill(folder, replace(job, partitions=partitions), gateway)
        assert not report.ok, partitions
        text = "\n".join(report.summary_lines())
        assert "start running hash" in text and V2_FILES[1].file_hash in text, text
        # Recorded where the stream records its breaks: block 2 (the first V5 file) does not link.
        (reason,) = read_broken_links(gateway).values()
        assert list(read_broken_links(gateway)) == [2]
        assert V2_FILES[1].file_hash in reason
        reader = HistoryReader(gateway)
        if partitions == 1:
            # Found inside a partition: never written; the next block, whose link is unverifiable
            # across the refused one, is.
            assert reader.get_block(2) is None, partitions
            assert "chain link broken" in text and "written with a problem" not in text
            assert reader.get_block(3) is not None
        else:
            # On a partition boundary the break is seen only by the driver, after both tasks
            # wrote their blocks (docs/backfill.md): recorded and reported, not taken back.
            assert "link broken" in text


def test_backfill_refuses_a_real_v5_period_replayed_under_a_later_name(hedera_data: Path, tmp_path: Path) -> None:
    folder = tmp_path / "replayed"
    shutil.copytree(hedera_data / "v5", folder)
    later = "2021-01-11T22_09_44.063739000Z"
    for node in sorted((folder / "recordstreams").iterdir()):
        for suffix in (".rcd", ".rcd_sig"):
            shutil.copy(node / V5_FILE_1.name.replace(".rcd", suffix), node / f"{later}{suffix}")
    for partitions in (1, 3):
        gateway = MemoryGateway()
        job = _job(folder, hedera_data / BOOKS["v5"], V5_FILE_1.name, f"{later}.rcd")
        report = _backfill(folder, replace(job, partitions=partitions), gateway)
        assert not report.ok
        assert [(f.period_key, f.kind) for f in report.failures] == [(later, "file_name_mismatch")]
        assert report.counts.written == 2
        assert HistoryReader(gateway).get_block(2) is None


def test_a_second_backfill_run_still_refuses_the_spliced_block(hedera_data: Path, tmp_path: Path) -> None:
    # The second run skips the stored blocks 0-1 and 3 (their progress rows) and starts a run at
    # block 2: it is checked against the stored block 1 before anything is written.
    folder = _splice(hedera_data, tmp_path / "spliced")
    job = replace(
        _job(folder, hedera_data / BOOKS["v2"], V2_FILES[0].name, "2021-01-11T22_09_34.097416003Z.rcd"),
        partitions=1,
    )
    gateway = MemoryGateway()
    first = _backfill(folder, job, gateway)
    second = _backfill(folder, job, gateway)
    for report in (first, second):
        assert not report.ok
        assert [(f.period_key, f.kind) for f in report.failures] == [
            (V5_FILE_1.name.removesuffix(".rcd"), "broken_chain")
        ]
    assert second.counts.skipped == 3 and second.counts.written == 0
    assert HistoryReader(gateway).get_blocks(0, 10) == [0, 1, 3]
    assert list(read_broken_links(gateway)) == [2]
