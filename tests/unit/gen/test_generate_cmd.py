"""``hedera-history generate``: files, summary line, flags."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.derived.snapshot import parse_snapshot
from hedera_history.errors import ConfigError
from hedera_history.gen.ledger import TOTAL_TINYBAR


def test_generate_writes_a_stream(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli,
        [
            "generate",
            str(out),
            "--nodes",
            "2",
            "--periods",
            "2",
            "--transactions",
            "8",
            "--start-block",
            "40",
        ],
        env={"HEDERA_HISTORY_SIDECARS_ENABLED": "true"},
    )
    assert result.exit_code == 0, result.output
    assert "blocks 40-41 from 2 nodes, 16 transactions" in result.stdout
    truth = json.loads((out / "ground-truth.json").read_text())
    assert [b["number"] for b in truth["blocks"]] == [40, 41]
    assert (out / "address-book.bin").is_file()
    assert len(list((out / "recordstreams").glob("record0.0.*/*.rcd_sig"))) == 4
    # The genesis balances, as a snapshot derived balances can start from (just before block 40).
    snapshot = parse_snapshot((out / "genesis-balances.json").read_bytes(), "genesis-balances.json")
    assert snapshot.consensus_ns < min(t["consensus_ns"] for t in truth["transactions"])
    assert dict(snapshot.balances) == truth["balances"]["genesis"]
    assert sum(snapshot.balances.values()) == TOTAL_TINYBAR and min(snapshot.balances.values()) >= 0


def test_generate_node_id_layout_without_sidecars(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "generate",
            str(tmp_path),
            "--nodes",
            "1",
            "--periods",
            "1",
            "--transactions",
            "5",
            "--layout",
            "node-id",
            "--no-sidecars",
            "--network",
            "testnet",
        ],
    )
    assert result.exit_code == 0, result.output
    assert list((tmp_path / "testnet" / "0" / "0" / "record").glob("*.rcd.gz"))
    assert not list(tmp_path.rglob("sidecar"))


def test_bad_values_are_reported(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["generate", str(tmp_path), "--nodes", "0"])
    assert isinstance(result.exception, ConfigError)
    assert "nodes must be" in str(result.exception)
