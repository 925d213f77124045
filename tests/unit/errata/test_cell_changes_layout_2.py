"""Errata over entries stored by layout 2 (``transactions`` rows keyed by the time alone): the
correction goes into the row the entry is in, so readers of layout 3 see it, also after the block
is written again in layout 3; an inserted entry is placed among them and gets a layout-3 key. (A
delete over layout-2 rows: ``test_cell_changes.test_delete_removes_the_entry_everywhere``.)"""

from __future__ import annotations

from hedera_history.errata.apply import apply_errata
from hedera_history.errata.errata_file import EntryKind
from hedera_history.errata.read import errata_marker
from hedera_history.store import schema as s
from hedera_history.store.keys import (
    plain_account_history_key,
    plain_row_key_for_transaction,
    row_key_for_account_history,
    row_key_for_transaction,
)
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter

from tests.unit.store.builders import BASE_NS, NS, transfer_tx

from .helpers import BLOCKS, MS, SETTINGS, D, errata_file, stored_as_layout_2

T_D = D.consensus_ns
RIGHT = transfer_tx(T_D, 1003, 1006, 20, valid_start_ns=T_D - 5 * NS)
E_RIGHT = errata_file(BASE_NS + 20 * NS, T_D, RIGHT.item, [("0.0.1004", -20), ("0.0.1006", 20)])


def test_an_update_corrects_the_plain_row_the_entry_is_in() -> None:
    gateway = stored_as_layout_2()
    plan = apply_errata(E_RIGHT, gateway, SETTINGS)
    assert plan.entry_kind is EntryKind.UPDATE and (plan.block_number, plan.index) == (1, 1)
    assert row_key_for_transaction(T_D) not in gateway.tables[s.TRANSACTIONS]
    assert {c.key for c in plan.history if c.table == s.TRANSACTIONS} == {plain_row_key_for_transaction(T_D)}
    found = HistoryReader(gateway).transaction(T_D)
    assert found is not None and found.record_bytes == RIGHT.record_bytes
    marker = errata_marker(gateway, T_D)
    assert marker is not None and marker.kind is EntryKind.UPDATE


def test_an_update_corrects_the_plain_history_rows_of_system_accounts() -> None:
    gateway = stored_as_layout_2()
    plan = apply_errata(E_RIGHT, gateway, SETTINGS)
    history = {c.key for c in plan.history if c.table == s.ACCOUNT_HISTORY}
    assert row_key_for_account_history("0.0.98", T_D) not in history
    assert plain_account_history_key(row_key_for_account_history("0.0.98", T_D)) in history
    reader = HistoryReader(gateway)
    for account in ("0.0.98", "0.0.3", "0.0.1006"):
        assert [e.consensus_ns for e in reader.account_history(account).entries].count(T_D) == 1, account


def test_writing_the_block_again_in_layout_3_keeps_a_correction_made_before() -> None:
    gateway = stored_as_layout_2()
    apply_errata(E_RIGHT, gateway, SETTINGS)
    assert all(r.complete for r in BlockWriter(gateway, SETTINGS).write_blocks(BLOCKS))
    assert row_key_for_transaction(T_D) in gateway.tables[s.TRANSACTIONS]  # the original, again
    reader = HistoryReader(gateway)
    found = reader.transaction(T_D)
    assert found is not None and found.record_bytes == RIGHT.record_bytes
    listed, _ = reader.block_transactions(1)
    assert [t.record_bytes for t in listed if t.consensus_ns == T_D] == [RIGHT.record_bytes]


def test_an_insert_among_plain_rows_is_placed_and_keyed_by_layout_3() -> None:
    gateway = stored_as_layout_2()
    inside = transfer_tx(BASE_NS + 3 * NS + 200 * MS, 1002, 1004, 7)  # between C and D of block 1
    plan = apply_errata(errata_file(BASE_NS + 30 * NS, inside.consensus_ns, inside.item), gateway, SETTINGS)
    assert (plan.entry_kind, plan.block_number, plan.index) == (EntryKind.INSERT, 1, 1)
    assert row_key_for_transaction(inside.consensus_ns) in gateway.tables[s.TRANSACTIONS]
    found = HistoryReader(gateway).transaction(inside.consensus_ns)
    assert found is not None and found.record_bytes == inside.record_bytes
