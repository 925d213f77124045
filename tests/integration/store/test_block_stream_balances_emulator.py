"""Derived hbar balances on a generated block stream (``generate OUT --block-stream``) through
``load``, on the Bigtable emulator: the transfer lists of the records its native blocks become
move the generated genesis balances to the ground truth's balances after every block, and the
transfers the applier reads from a native block's transaction results are its records' own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.config import Settings
from hedera_history.derived.applier import item_transfers, item_transfers_of, original_items
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader

from tests.unit.api.wsgi_app import query_app

pytestmark = [pytest.mark.emulator]

PERIODS = 5


def _get(client: Any, url: str) -> Any:
    response = client.get(url)
    assert response.status_code == 200, (url, response.data[:300])
    return response.get_json()


def test_native_blocks_balances_equal_the_ground_truth_at_every_block(bigtable_instance: Any, tmp_path: Path) -> None:
    out = tmp_path / "stream"
    runner = CliRunner()
    generate = ["generate", str(out), "--periods", str(PERIODS), "--transactions", "16", "--seed", "11"]
    generated = runner.invoke(cli, [*generate, "--block-stream"], env={}, catch_exceptions=False)
    assert generated.exit_code == 0, generated.output
    prefix = "native_balances_"
    load = ["load", str(out), "--address-book", str(out / "address-book.bin"), "--table-prefix", prefix]
    loaded = runner.invoke(cli, [*load, "--instance", bigtable_instance.instance_id], catch_exceptions=False)
    assert loaded.exit_code == 0, loaded.output
    assert f"balances: {PERIODS} block(s) applied" in loaded.output

    balances = json.loads((out / "ground-truth.json").read_text())["balances"]
    gateway = gateway_for_instance(bigtable_instance, Settings(table_prefix=prefix))
    try:
        reader = HistoryReader(gateway)
        for number in range(PERIODS):
            stored = reader.get_block(number)
            assert stored is not None
            assert item_transfers(reader, stored) == tuple(item_transfers_of(original_items(reader, stored)))
        client = query_app(reader).test_client()
        assert sorted(balances["by_block"], key=int) == [str(n) for n in range(PERIODS)]
        compared = 0
        for number, changed in balances["by_block"].items():
            block = _get(client, f"/api/v1/blocks/{number}")
            assert block["name"].endswith(".blk"), block["name"]
            at = block["timestamp"]["to"]
            for account, tinybar in changed.items():
                body = _get(client, f"/api/v1/balances?account.id={account}&timestamp={at}")
                assert body["balances"][0]["balance"] == tinybar, (number, account)
                compared += 1
        assert compared > PERIODS
        for account, tinybar in balances["final"].items():
            found = _get(client, f"/api/v1/balances?account.id={account}")["balances"]
            # An account no transfer ever touched (a contract created without value) has no row.
            assert [entry["balance"] for entry in found] == ([tinybar] if found or tinybar else []), account
    finally:
        gateway.close()
