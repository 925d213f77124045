from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from hedera_history.cli.main import cli


def test_demo_generates_and_verifies_every_period(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = CliRunner().invoke(
        cli, ["demo", "--out", str(out), "--periods", "5", "--transactions", "8"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "5 of 5" in result.output
    assert (out / "ground-truth.json").is_file()
