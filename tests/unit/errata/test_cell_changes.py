"""Applying errata to stored history: replace, insert, remove; supersede (T1, T2, T3); idempotency."""

from __future__ import annotations

import itertools

import pytest
from hedera_history.errata.apply import apply_errata
from hedera_history.errata.cells import is_tombstone
from hedera_history.errata.errata_file import EntryKind
from hedera_history.errata.read import errata_marker, inserted_entries, original_entry
from hedera_history.errors import ErrataPlacementError
from hedera_history.store import schema as s
from hedera_history.store.encoding import decode_value
from hedera_history.store.keys import (
    account_prefix,
    plain_row_key_for_transaction,
    row_key_for_account_history,
    row_key_for_transaction,
)
from hedera_history.store.reader import HistoryReader
from hedera_history.store.values import decode_position
from hedera_history.store.writer import BlockWriter

from tests.unit.store.builders import BASE_NS, NS, transfer_tx

from .fakes import VersionedGateway
from .helpers import BLOCKS, MS, SETTINGS, B, D, errata_file, stored_as_layout_2, stored_history, visible

T_D = D.consensus_ns
# Three errata for D's time: the first wrong (to 0.0.1005), the second right (to 0.0.1006), issued later.
WRONG = transfer_tx(T_D, 1003, 1005, 20, valid_start_ns=T_D - 5 * NS)
RIGHT = transfer_tx(T_D, 1003, 1006, 20, valid_start_ns=T_D - 5 * NS)
E_WRONG = errata_file(BASE_NS + 10 * NS, T_D, WRONG.item, [("0.0.1005", 20), ("0.0.1004", -20)])
E_RIGHT = errata_file(BASE_NS + 20 * NS, T_D, RIGHT.item, [("0.0.1005", -20), ("0.0.1006", 20)])


def _history_of(gateway: VersionedGateway, account: str) -> set[bytes]:
    rows = gateway.tables.get(s.ACCOUNT_HISTORY, {})
    prefix = account_prefix(account)
    return {
        key
        for key, cells in rows.items()
        if key.startswith(prefix) and not is_tombstone(cells[(s.ACCOUNT_HISTORY_FAMILY, s.Q_BLOCK)][1])
    }


def test_update_replaces_the_entry_and_keeps_the_original() -> None:
    gateway = stored_history()
    plan = apply_errata(E_RIGHT, gateway, SETTINGS)
    assert plan.entry_kind is EntryKind.UPDATE and (plan.block_number, plan.index) == (1, 1)
    cells = gateway.tables[s.TRANSACTIONS][row_key_for_transaction(T_D)]
    assert decode_value(cells[(s.TRANSACTION_FAMILY, s.Q_RECORD)][1]) == RIGHT.record_bytes
    # Account history: 0.0.1006 gained the entry, 0.0.1004 (only in the original) lost it.
    assert row_key_for_account_history("0.0.1006", T_D) in _history_of(gateway, "0.0.1006")
    assert row_key_for_account_history("0.0.1004", T_D) not in _history_of(gateway, "0.0.1004")
    assert row_key_for_account_history("0.0.1003", T_D) in _history_of(gateway, "0.0.1003")
    marker = errata_marker(gateway, T_D)
    assert marker is not None and marker.kind is EntryKind.UPDATE and marker.errata_id == E_RIGHT.errata_id
    original = original_entry(gateway, T_D)
    assert original is not None and original.item() == D.item


@pytest.mark.parametrize("order", list(itertools.permutations([0, 1])))
def test_later_errata_supersedes_in_any_order(order: tuple[int, int]) -> None:
    gateway = stored_history()
    errata = [E_WRONG, E_RIGHT]
    plans = [apply_errata(errata[i], gateway, SETTINGS) for i in order]
    assert all(p.in_force == E_RIGHT.errata_id for p in plans[1:])
    reference = stored_history()
    apply_errata(E_RIGHT, reference, SETTINGS)
    assert visible(gateway, s.HISTORY_TABLES) == visible(reference, s.HISTORY_TABLES)
    assert not _history_of(gateway, "0.0.1005")
    # Both compensations stay: each errata's take effect at its own time.
    compensations = [k for k in gateway.tables[s.BALANCES] if k.startswith(b"c/")]
    assert len(compensations) == 2


def test_superseded_errata_arriving_late_still_plans_its_compensation_only() -> None:
    gateway = stored_history()
    apply_errata(E_RIGHT, gateway, SETTINGS)
    before = visible(gateway, s.HISTORY_TABLES)
    plan = apply_errata(E_WRONG, gateway, SETTINGS)
    assert plan.superseded and plan.history == ()
    assert visible(gateway, s.HISTORY_TABLES) == before


def test_applying_twice_changes_nothing() -> None:
    gateway = stored_history()
    apply_errata(E_WRONG, gateway, SETTINGS)
    apply_errata(E_RIGHT, gateway, SETTINGS)
    snapshot = gateway.snapshot()
    for errata in (E_WRONG, E_RIGHT):
        plan = apply_errata(errata, gateway, SETTINGS)
        assert plan.already_applied
    assert gateway.snapshot() == snapshot


def test_rewriting_the_original_block_keeps_the_correction() -> None:
    gateway = stored_history()
    apply_errata(E_RIGHT, gateway, SETTINGS)
    apply_errata(errata_file(BASE_NS + 30 * NS, B.consensus_ns, None), gateway, SETTINGS)
    before = visible(gateway)
    assert all(r.complete for r in BlockWriter(gateway, SETTINGS).write_blocks(BLOCKS))
    assert visible(gateway) == before


@pytest.mark.parametrize("layout_2", [False, True])
def test_delete_removes_the_entry_everywhere(layout_2: bool) -> None:
    """Also from rows of layout 2: the tombstones go where the entry is, in its plain-keyed row."""
    gateway = stored_as_layout_2() if layout_2 else stored_history()
    plan = apply_errata(errata_file(BASE_NS + 30 * NS, B.consensus_ns, None), gateway, SETTINGS)
    assert plan.entry_kind is EntryKind.DELETE
    key = (plain_row_key_for_transaction if layout_2 else row_key_for_transaction)(B.consensus_ns)
    row = gateway.tables[s.TRANSACTIONS][key]
    assert all(is_tombstone(v) for (f, q), (_, v) in row.items() if q != b"errata")
    reader = HistoryReader(gateway)
    assert reader.transaction(B.consensus_ns) is None
    listed, errors = reader.block_transactions(0)
    assert not errors and [t.consensus_ns for t in listed] == [BLOCKS[0].record.items[0].consensus_ns]
    for account in ("0.0.1002", "0.0.1003", "0.0.3", "0.0.98"):
        assert row_key_for_account_history(account, B.consensus_ns) not in _history_of(gateway, account)
    marker = errata_marker(gateway, B.consensus_ns)
    assert marker is not None and marker.kind is EntryKind.DELETE


def test_insert_is_placed_in_the_block_holding_its_time() -> None:
    gateway = stored_history()
    inside = transfer_tx(BASE_NS + 3 * NS + 200 * MS, 1002, 1004, 7)  # between C and D of block 1
    after = transfer_tx(BASE_NS + 4 * NS + 500 * MS, 1002, 1004, 8)  # after E, before block 2
    first = apply_errata(errata_file(BASE_NS + 30 * NS, inside.consensus_ns, inside.item), gateway, SETTINGS)
    second = apply_errata(errata_file(BASE_NS + 31 * NS, after.consensus_ns, after.item), gateway, SETTINGS)
    assert (first.entry_kind, first.block_number, first.index) == (EntryKind.INSERT, 1, 1)
    assert (second.entry_kind, second.block_number, second.index) == (EntryKind.INSERT, 1, 3)
    position = gateway.tables[s.TRANSACTIONS][row_key_for_transaction(after.consensus_ns)][
        (s.TRANSACTION_FAMILY, s.Q_POSITION)
    ]
    assert decode_position(decode_value(position[1])).block_number == 1
    assert inserted_entries(gateway, 1) == [inside.consensus_ns, after.consensus_ns]
    absent = original_entry(gateway, inside.consensus_ns)
    assert absent is not None and not absent.present


def test_insert_waits_for_its_block() -> None:
    gateway = stored_history(blocks=(0,))
    late = transfer_tx(BASE_NS + 3 * NS + 200 * MS, 1002, 1004, 7)
    with pytest.raises(ErrataPlacementError):
        apply_errata(errata_file(BASE_NS + 30 * NS, late.consensus_ns, late.item), gateway, SETTINGS)
    assert s.ERRATA_LOG not in gateway.tables


def test_dry_run_writes_nothing() -> None:
    gateway = stored_history()
    snapshot = gateway.snapshot()
    plan = apply_errata(E_RIGHT, gateway, SETTINGS, dry_run=True)
    assert plan.changes and gateway.snapshot() == snapshot
    tables = {c.table for c in plan.changes}
    assert {s.TRANSACTIONS, s.TX_BY_HASH, s.ACCOUNT_HISTORY, s.ERRATA_LOG, s.BALANCES} <= tables
