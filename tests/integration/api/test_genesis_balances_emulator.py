"""Mainnet's wrapped genesis block through ``load``, on the Bigtable emulator: its initial account
state changes (15368 ``ACCOUNTS`` map updates) become the opening balances, answered by
``/api/v1/balances`` and ``/api/v1/accounts/{id}``, and the derived balances after block 0's
transfers are those opening balances plus the transfers."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history import hapi
from hedera_history.api.balances_list import ACCOUNT_KEYS
from hedera_history.api.render import timestamp
from hedera_history.cli.main import cli
from hedera_history.config import Settings
from hedera_history.derived.genesis_state import account_balances
from hedera_history.formats.block import ItemKind, parse_block_file
from hedera_history.sources.local_blocks import find_block_runs
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.gateway import RowQuery
from hedera_history.store.keys import hex16, ones_complement
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import BALANCES
from hedera_history.verify.blocks import BlockCheckOptions, verify_blocks

from tests.fixtures.emulators import unique_name
from tests.unit.api.wsgi_app import query_app

pytestmark = [pytest.mark.emulator, pytest.mark.xdist_group("genesis-balances")]

GENESIS = Path("blocks") / "genesis" / "mainnet"
BOOK = Path("addressbook") / "main-resources-mainnet.bin"
ACCOUNTS = 15368
TREASURY_OPENING = 4_647_987_890_704_547_520
TOTAL_SUPPLY = 50_000_000_000 * 100_000_000


@dataclass
class Genesis:
    client: Any
    gateway: Any
    output: str
    opening: dict[str, int]
    consensus_ns: int
    transfers: Counter[str]

    def balance(self, account: str, at_ns: int) -> int:
        response = self.client.get(f"/api/v1/balances?account.id={account}&timestamp={timestamp(at_ns)}")
        assert response.status_code == 200, response.data[:300]
        (entry,) = response.get_json()["balances"]
        assert entry["account"] == account
        return int(entry["balance"])


@pytest.fixture(scope="module")
def genesis(bigtable_client: Any, hedera_data: Path) -> Iterator[Genesis]:
    folder = hedera_data / GENESIS
    path = next(folder.glob("*.blk.zstd"))
    block = parse_block_file(path.read_bytes(), path.name, max_decompressed=1 << 30)
    opening = account_balances(
        item.message().state_changes for item in block.items if item.kind == ItemKind.STATE_CHANGES
    )
    (run,) = find_block_runs(folder)
    (report,) = verify_blocks(run, None, BlockCheckOptions())
    assert report.wrapped is not None
    (item,) = report.wrapped.record.items
    record = hapi.TransactionRecord.FromString(item.record_bytes)
    transfers: Counter[str] = Counter()
    for amount in record.transferList.accountAmounts:
        transfers[f"0.0.{amount.accountID.accountNum}"] += amount.amount

    instance = bigtable_client.instance(unique_name("genesis"))
    prefix = "genesis_balances_"
    command = ["load", str(folder), "--instance", instance.instance_id, "--table-prefix", prefix]
    result = CliRunner().invoke(cli, [*command, "--address-book", str(hedera_data / BOOK)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    gateway = gateway_for_instance(instance, Settings(table_prefix=prefix))
    yield Genesis(
        query_app(HistoryReader(gateway)).test_client(), gateway, result.output, opening, item.consensus_ns, transfers
    )
    gateway.close()
    for table in instance.list_tables():
        with contextlib.suppress(Exception):
            table.delete()


def test_every_account_of_the_initial_state_opens_with_its_balance(genesis: Genesis) -> None:
    assert "initial account state changes loaded as the opening balances" in " ".join(genesis.output.split())
    assert len(genesis.opening) == ACCOUNTS
    assert sum(genesis.opening.values()) == TOTAL_SUPPLY
    assert genesis.opening["0.0.2"] == TREASURY_OPENING
    # One balance row per account at the opening time, just before block 0's transaction.
    opening_suffix = hex16(ones_complement(genesis.consensus_ns - 1))
    rows = genesis.gateway.read_rows(BALANCES, RowQuery(ranges=(ACCOUNT_KEYS,), key_only=True))
    assert sum(1 for row in rows if row.key.endswith(opening_suffix)) == ACCOUNTS
    before = genesis.consensus_ns - 1
    for account in ("0.0.1", "0.0.2", "0.0.3", "0.0.98", "0.0.11337", max(genesis.opening)):
        assert genesis.balance(account, before) == genesis.opening[account], account


def test_block_zero_transfers_move_the_opening_balances(genesis: Genesis) -> None:
    assert sum(genesis.transfers.values()) == 0 and genesis.transfers
    for account, moved in genesis.transfers.items():
        assert genesis.balance(account, genesis.consensus_ns) == genesis.opening[account] + moved, account
    assert genesis.balance("0.0.2", genesis.consensus_ns) == TREASURY_OPENING


def test_accounts_route_answers_the_opening_state(genesis: Genesis) -> None:
    response = genesis.client.get("/api/v1/accounts/0.0.2")
    assert response.status_code == 200, response.data[:300]
    assert response.get_json()["balance"]["balance"] == TREASURY_OPENING
    payer = genesis.client.get("/api/v1/accounts/0.0.11337").get_json()
    assert payer["balance"]["balance"] == genesis.opening["0.0.11337"] + genesis.transfers["0.0.11337"]
