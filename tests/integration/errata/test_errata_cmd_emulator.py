"""``hedera-history errata apply [--dry-run]`` against the Bigtable emulator."""

from __future__ import annotations

from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.store import schema as s

from tests.fixtures.emulators import PROJECT
from tests.integration.store.conftest import Store

from .conftest import WrittenScenario

ALL_TABLES = (*s.HISTORY_TABLES, s.ERRATA_LOG, s.BALANCES)


def test_dry_run_shows_the_cells_then_apply_writes_them(errata_store: Store, written_scenario: WrittenScenario) -> None:
    store = errata_store
    assert all(r.complete for r in store.writer.write_blocks(written_scenario.blocks))
    scenario = written_scenario.scenario
    removal = next(e for e in scenario.errata if e.role == "inconsistent")
    book = written_scenario.root / "address-book.bin"
    instance_id = store.instance.name.rsplit("/", 1)[-1]
    args = [
        "errata",
        "apply",
        str(written_scenario.root / removal.path),
        "--address-book",
        str(book),
        "--council-keys",
        ",".join(scenario.council_keys),
        "--project",
        PROJECT,
        "--instance",
        instance_id,
        "--table-prefix",
        store.settings.table_prefix,
    ]
    before = store.snapshot(ALL_TABLES)
    runner = CliRunner()
    dry = runner.invoke(cli, [*args, "--dry-run"], catch_exceptions=False, terminal_width=250)
    assert dry.exit_code == 0, dry.output
    assert "accepted" in dry.output and "DELETE" in dry.output and "would change" in dry.output
    assert "(removed)" in dry.output and "transactions" in dry.output and "account_history" in dry.output
    assert store.snapshot(ALL_TABLES) == before

    applied = runner.invoke(cli, args, catch_exceptions=False, terminal_width=250)
    assert applied.exit_code == 0, applied.output
    assert "applied:" in applied.output
    assert store.snapshot(ALL_TABLES) != before
    again = runner.invoke(cli, [*args, "--dry-run"], catch_exceptions=False, terminal_width=250)
    assert "already applied" in again.output
