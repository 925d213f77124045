"""``hedera-history generate`` with format eras, a duplicate block, stake updates and signers."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from hedera_history.cli.main import cli


def test_generate_eras_and_options(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["generate", str(out), "--nodes", "4", "--transactions", "6", "--eras", "2:2,5:2,6:3"]
    args += ["--duplicate-block", "5", "--stake-update", "4:60,10,10,20", "--signers", "6:0"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    truth = json.loads((out / "ground-truth.json").read_text())
    assert [b["version"] for b in truth["blocks"]] == [2, 2, 5, 5, 6, 6, 6]
    assert [b["number"] for b in truth["blocks"]] == [0, 1, 2, 3, 4, 5, 5]
    assert truth["stake_updates"][0]["stakes"] == {"0.0.3": 60, "0.0.4": 10, "0.0.5": 10, "0.0.6": 20}
    assert truth["blocks"][6]["signers"] == ["0.0.3"]
    assert len(list((out / "recordstreams").glob("record0.0.3/*.rcd"))) == 4
    assert "blocks 0-5 from 4 nodes" in result.stdout


def test_bad_eras_flag(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["generate", str(tmp_path), "--eras", "2-3"])
    assert result.exit_code == 2 and "--eras" in result.output
