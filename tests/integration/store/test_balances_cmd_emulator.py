"""``hedera-history balances load``: a snapshot seeds an empty balances table, once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.derived.balances import account_balance, read_start

from tests.fixtures.emulators import PROJECT
from tests.integration.store.conftest import Store

pytestmark = [pytest.mark.emulator]


def test_a_snapshot_seeds_the_balances_and_only_an_empty_table(store: Store, tmp_path: Path) -> None:
    snapshot = tmp_path / "genesis-balances.json"
    snapshot.write_text(
        json.dumps({"consensus_ns": 1_700_000_000_000_000_000, "balances": {"0.0.2": 50, "0.0.1001": 7}})
    )
    instance_id = store.instance.name.rsplit("/", 1)[-1]
    args = ["balances", "load", str(snapshot), "--first-block", "12", "--project", PROJECT, "--instance", instance_id]
    args += ["--table-prefix", store.settings.table_prefix]
    runner = CliRunner()
    result = runner.invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "loaded 2 balances" in result.output and "from block 12" in result.output
    found = account_balance(store.gateway, "0.0.1001")
    assert found is not None and found.balance == 7
    assert read_start(store.gateway) is not None
    again = runner.invoke(cli, args)
    assert again.exit_code != 0 and "already started" in str(again.exception)
