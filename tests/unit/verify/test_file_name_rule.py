"""A record file is named after its first transaction's consensus time; a file replayed under
another period's name is refused (real V1, V2, V5 and V6 periods)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hedera_history.books.parse import parse_address_book
from hedera_history.errors import FileNameMismatchError
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.period import check_period
from hedera_history.verify.stream import verify_stream

V5_FIRST = "2021-01-11T22_09_24.063739000Z"
V5_LATER = "2021-01-11T22_09_44.063739000Z"


def replay_v5_period(hedera_data: Path, root: Path, *, as_key: str = V5_LATER) -> Path:
    """The real V5 set plus its first period (record and every node's signature) copied under
    ``as_key``, a later name, as a replay would be uploaded."""
    shutil.copytree(hedera_data / "v5", root / "v5")
    for node in sorted((root / "v5" / "recordstreams").iterdir()):
        for suffix in (".rcd", ".rcd_sig"):
            shutil.copy(node / f"{V5_FIRST}{suffix}", node / f"{as_key}{suffix}")
    return root / "v5"


def _v5_book(hedera_data: Path):
    return parse_address_book((hedera_data / "addressbook" / "test-resources-testnet.bin").read_bytes())


def test_real_periods_of_every_version_pass_the_rule(hedera_data: Path) -> None:
    books = {
        "v1": "test-v1.bin",
        "v2": "test-resources-testnet.bin",
        "v5": "test-resources-testnet.bin",
        "v6": "test-v6-sidecar-4n.bin",
    }
    for version, book_name in books.items():
        book = parse_address_book((hedera_data / "addressbook" / book_name).read_bytes())
        for period in find_local_periods(hedera_data / version):
            report = check_period(period, book, block_number=0)
            assert report.ok, (version, report.error)


def test_a_real_period_under_a_later_name_is_refused(hedera_data: Path, tmp_path: Path) -> None:
    folder = replay_v5_period(hedera_data, tmp_path)
    periods = find_local_periods(folder)
    assert [p.period_key for p in periods][-1] == V5_LATER
    results = list(verify_stream(periods, _v5_book(hedera_data), start_block=0))
    assert [r.ok for r in results] == [True, True, False]
    error = results[2].error
    assert isinstance(error, FileNameMismatchError)
    assert results[2].report.block is None
    assert V5_LATER in str(error) and "1610402964063739000" in str(error)


@pytest.mark.parametrize("key", ["2021-01-11T22_09_24.063739Z", "2021-01-11T22_09_24.063739000Z"])
def test_a_shorter_name_compares_at_its_own_precision(hedera_data: Path, tmp_path: Path, key: str) -> None:
    folder = tmp_path / "v5" / "recordstreams" / "record0.0.3"
    folder.mkdir(parents=True)
    for node in ("record0.0.3", "record0.0.4", "record0.0.5"):
        (tmp_path / "v5" / "recordstreams" / node).mkdir(parents=True, exist_ok=True)
        for suffix in (".rcd", ".rcd_sig"):
            source = hedera_data / "v5" / "recordstreams" / node / f"{V5_FIRST}{suffix}"
            shutil.copy(source, tmp_path / "v5" / "recordstreams" / node / f"{key}{suffix}")
    [period] = find_local_periods(tmp_path / "v5")
    report = check_period(period, _v5_book(hedera_data), block_number=0)
    assert report.ok, report.error


def test_a_name_one_microsecond_off_is_refused(hedera_data: Path, tmp_path: Path) -> None:
    key = "2021-01-11T22_09_24.063740Z"
    for node in ("record0.0.3", "record0.0.4", "record0.0.5"):
        (tmp_path / "v5" / "recordstreams" / node).mkdir(parents=True)
        for suffix in (".rcd", ".rcd_sig"):
            source = hedera_data / "v5" / "recordstreams" / node / f"{V5_FIRST}{suffix}"
            shutil.copy(source, tmp_path / "v5" / "recordstreams" / node / f"{key}{suffix}")
    [period] = find_local_periods(tmp_path / "v5")
    report = check_period(period, _v5_book(hedera_data), block_number=0)
    assert isinstance(report.error, FileNameMismatchError)
