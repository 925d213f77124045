from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.errors import SourceError
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.period import FetchedFile, verify_period

from .streamkit import sidecar, v6_period, v6_record

NS = 1657701971304284003
TS = "2022-07-13T08_46_11.304284003Z"
TS2 = "2022-07-13T08_46_13.000000001Z"


def _name(fetched: FetchedFile | None) -> str | None:
    return fetched.name if fetched else None


def _touch(root: Path, relative: str, data: bytes = b"x") -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.fixture
def account_tree(tmp_path: Path) -> Path:
    for num in (3, 4):
        base = f"bucket/recordstreams/record0.0.{num}"
        _touch(tmp_path, f"{base}/{TS}.rcd.gz")
        _touch(tmp_path, f"{base}/{TS}.rcd_sig")
        _touch(tmp_path, f"{base}/sidecar/{TS}_01.rcd.gz")
        _touch(tmp_path, f"{base}/{TS2}.rcd_sig")
    _touch(tmp_path, "bucket/recordstreams/record0.0.3/notes.txt")
    _touch(tmp_path, "bucket/README.md")
    return tmp_path


def test_periods_group_files_by_node(account_tree: Path):
    periods = find_local_periods(account_tree)
    assert [p.period_key for p in periods] == [TS, TS2]
    first = periods[0]
    assert first.nodes() == [NodeIdentity(account="0.0.3"), NodeIdentity(account="0.0.4")]
    assert _name(first.record(NodeIdentity(account="0.0.3"))) == f"{TS}.rcd.gz"
    assert _name(first.signature(NodeIdentity(account="0.0.4"))) == f"{TS}.rcd_sig"
    assert _name(first.sidecar(NodeIdentity(account="0.0.4"), 1)) == f"{TS}_01.rcd.gz"
    assert first.sidecar(NodeIdentity(account="0.0.4"), 2) is None
    assert periods[1].record(NodeIdentity(account="0.0.3")) is None


@pytest.mark.parametrize(
    "level",
    [
        "",
        "bucket",
        "bucket/recordstreams",
        "bucket/recordstreams/record0.0.3",
        "bucket/recordstreams/record0.0.3/sidecar",
    ],
)
def test_any_level_of_the_layout(account_tree: Path, level: str):
    periods = find_local_periods(account_tree / level)
    assert periods and periods[0].period_key == TS


def test_node_id_layout(tmp_path: Path):
    _touch(tmp_path, f"testnet/0/2/record/{TS}.rcd.gz")
    _touch(tmp_path, f"testnet/0/2/record/sidecar/{TS}_01.rcd.gz")
    _touch(tmp_path, f"testnet/0/3/record/{TS}.rcd_sig")
    (period,) = find_local_periods(tmp_path / "testnet" / "0")
    assert period.nodes() == [NodeIdentity(node_id=2), NodeIdentity(node_id=3)]


def test_not_a_directory(tmp_path: Path):
    with pytest.raises(SourceError):
        find_local_periods(tmp_path / "missing")


def test_files_on_disk_verify(tmp_path: Path, node_keys, book):
    car = sidecar(1, NS)
    memory = v6_period(node_keys, v6_record(NS, start=bytes(48), block_number=1, sidecars=[car]), sidecars=[car])
    for node, fetched in memory.signatures.items():
        _touch(tmp_path, f"recordstreams/record{node.account}/{fetched.name}", fetched.data)
    for node, fetched in memory.records.items():
        _touch(tmp_path, f"recordstreams/record{node.account}/{fetched.name}", fetched.data)
    for (node, _), fetched in memory.sidecars.items():
        _touch(tmp_path, f"recordstreams/record{node.account}/sidecar/{fetched.name}", fetched.data)
    (period,) = find_local_periods(tmp_path)
    block = verify_period(period, book)
    assert block.consensus.stake == 4 and len(block.sidecars) == 1
