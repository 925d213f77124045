"""Bigtable per table: each identity is granted exactly the tables the code declares it touches
(``deploy.catalogue.TABLES``, ``backfill.partition_messages.TABLES``), ``bigtable.user`` where it writes and
``bigtable.reader`` where it only reads. The contract module's evaluation with the real binary is
in tests/integration/deploy/test_contract_module.py."""

from __future__ import annotations

import json

from hedera_history.backfill.partition_messages import TABLES as BACKFILL_TABLES
from hedera_history.deploy.catalogue import FUNCTIONS, TABLES
from hedera_history.deploy.contracts import table_access, tables_contract
from hedera_history.store import schema as s

from tests.unit.deploy.infra import CONTRACT_MODULE, INFRA, expr, load_module


def test_every_function_and_the_backfill_declare_their_tables():
    assert set(TABLES) == {spec.name for spec in FUNCTIONS}
    assert set(table_access()) == {*TABLES, "backfill"}


def test_declared_tables_are_schema_tables_each_listed_once():
    for name, access in table_access().items():
        assert access.problems() == [], name
        assert access.tables, name


def test_the_query_function_only_reads():
    query = TABLES["query"]
    assert query.writes == frozenset()
    # the state table only for the follower's position (GET /api/v1/status), the address books for proofs
    assert query.reads == frozenset({*s.HISTORY_TABLES, s.ERRATA_LOG, s.BALANCES, s.INGEST_PROGRESS, s.ADDRESS_BOOKS})


def test_the_backfill_writes_the_history_and_its_own_state_only():
    assert BACKFILL_TABLES.reads == frozenset()
    assert set(s.HISTORY_TABLES) <= BACKFILL_TABLES.writes
    state = BACKFILL_TABLES.writes - set(s.HISTORY_TABLES)
    assert state == {s.INGEST_PROGRESS, s.CHAIN_LINKS, s.ADDRESS_BOOKS, s.ERRATA_LOG}
    # never the stream's own state: quarantine, tracking of pushed batches, balances
    assert not BACKFILL_TABLES.tables & {s.QUARANTINE, s.CARDINAL_TRACKING, s.BALANCES}


def test_only_the_store_and_the_sweep_write_the_tracking_table_and_only_the_stream_quarantines():
    writers = {name for name, access in table_access().items() if s.CARDINAL_TRACKING in access.writes}
    assert writers == {"store", "sweep"}  # the sweep connects what a crashed store call left unconnected
    quarantiners = {name for name, access in table_access().items() if s.QUARANTINE in access.tables}
    assert quarantiners == {"ingest", "sweep", "follow"}  # the follower hands periods to ingest


def test_the_generated_contract_says_what_the_code_declares():
    generated = json.loads((INFRA / "generated" / "tables.json").read_text())
    assert generated == tables_contract()
    for name, access in table_access().items():
        entry = generated["identities"][name]
        assert set(entry["writes"]) == access.writes and set(entry["reads"]) == access.reads


def test_every_declaring_identity_has_a_service_account():
    assert set(table_access()) <= set(load_module().locals["identities"])


def test_the_contract_module_maps_writes_to_user_and_reads_to_reader():
    contract = load_module(CONTRACT_MODULE)
    assert contract.locals["table_roles"] == {"writes": "roles/bigtable.user", "reads": "roles/bigtable.reader"}
    assert "tables.json" in contract.locals["tables_contract"]


def test_table_grants_reach_their_resource():
    grant = load_module().resource("google_bigtable_table_iam_member", "grant")
    # every declared grant but those of an idle identity (tests/unit/deploy/test_follow_infra.py)
    assert expr(grant["for_each"]) == (
        "{for key, grant in module.contract.table_grants : key => grant "
        "if !contains(local.idle_identities, grant.identity)}"
    )
    assert expr(grant["instance_name"]) == "google_bigtable_instance.history.name"
    # through the table resource, so a grant waits for its table and names one that exists
    assert expr(grant["table"]) == "google_bigtable_table.table[each.value.table].name"
    assert expr(grant["role"]) == "each.value.role"
    assert expr(grant["member"]) == "local.members[each.value.identity]"
