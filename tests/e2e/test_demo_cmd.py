"""`hedera-history demo` on a fresh state folder: the stack comes up following its bucket, a live
network plays into it and cuts over from record files to blocks, each block is shown as it becomes
queryable with the follower's lag and what it reads, every block completes, the example queries
are answered, and with --stop nothing is left running."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.localstack.stack_state import read_state

pytestmark = [pytest.mark.e2e, pytest.mark.emulator]


def test_demo_runs_the_stream_through_the_stack_and_answers_queries(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = CliRunner().invoke(
        cli,
        ["demo", "--out", str(out), "--periods", "4", "--period-seconds", "0.5", "--transactions", "8", "--stop"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    # The live view: every block shown once as it became queryable, with the follower's lag.
    shown = re.findall(r"block +(\d+) queryable .*follower ([\d.]+) s behind", result.output)
    assert sorted(int(number) for number, _ in shown) == [0, 1, 2, 3], result.output
    # The network cuts over after two record periods (a wrapped block, then a native one): the
    # follower switched by itself and read the last blocks as blocks.
    assert "cuts over to blocks after 2 record periods" in " ".join(result.output.split())
    assert re.search(r"block +3 queryable .*reading blocks", result.output), result.output
    assert "blocks complete" in result.output
    assert '"method": "getTransaction"' in result.output
    assert '"transaction_hash"' in result.output
    # Balances start from the generated genesis snapshot: the example account's is not negative.
    assert "balances: starting from the generated genesis" in result.output
    shown = [int(n) for n in re.findall(r'"balance": (-?\d+)', result.output)]
    assert shown and min(shown) >= 0, shown
    assert (out / "network" / "ground-truth.json").is_file()
    assert read_state(out / "stack") is None  # --stop stopped it and removed the state file
