"""``hedera-history errata apply [--dry-run]`` against the Bigtable emulator; applying keeps the
ratifying nodes' signature files in the errata log (what a proof of the corrected entry carries)."""

from __future__ import annotations

from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.errata.log import file_row_key, signatures_in_row
from hedera_history.formats.dispatch import parse_signature_file
from hedera_history.store import schema as s
from hedera_history.store.gateway import RowQuery

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
    rows = list(store.gateway.read_rows(s.ERRATA_LOG, RowQuery(keys=(file_row_key(removal.errata_id),))))
    kept = signatures_in_row({c.qualifier: c.value for c in rows[0].cells})
    # every node signed; under the bootstrap book given here the node whose key rotated does not count
    nodes = {node.node_id for node in scenario.stream.nodes}
    assert set(kept) < nodes and len(kept) * 3 > len(nodes) * 2
    assert all(parse_signature_file(raw, "kept").metadata_signature for raw in kept.values())
    again = runner.invoke(cli, [*args, "--dry-run"], catch_exceptions=False, terminal_width=250)
    assert "already applied" in again.output
