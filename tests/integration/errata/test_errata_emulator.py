"""HIP-639 on the Bigtable emulator: a generated stream with a missing record (case 1) and an
inconsistent record (case 2), the errata that fix them (one superseded), and derived balances.

History is checked cell by cell as a reader that honours errata sees it (tombstones do not exist,
the latest version of a cell counts); balances through ``derived.balances``.
"""

from __future__ import annotations

from typing import Any

from hedera_history import hapi
from hedera_history.books.parse import parse_address_book
from hedera_history.derived.applier import BalanceApplier
from hedera_history.derived.balances import account_balance
from hedera_history.derived.query import rest_balances_body, rpc_get_balance_result
from hedera_history.derived.snapshot import BalanceSnapshot, load_snapshot
from hedera_history.errata.cells import is_tombstone
from hedera_history.errata.errata_file import EntryKind
from hedera_history.errata.ingest import ErrataStatus, process_errata_object
from hedera_history.errata.read import errata_history, errata_marker, inserted_entries, original_entry
from hedera_history.sources.local import LocalSource
from hedera_history.store import schema as s
from hedera_history.store.encoding import decode_value
from hedera_history.store.gateway import KeyRange, RowQuery
from hedera_history.store.keys import (
    account_prefix,
    decode_account_history_key,
    qualifier_for_consensus,
    row_key_for_transaction,
    row_key_for_tx_hash,
    row_key_for_tx_id,
)
from hedera_history.store.values import decode_position

from tests.integration.store.conftest import Store

from .conftest import WrittenScenario

ALL_TABLES = (*s.HISTORY_TABLES, s.ERRATA_LOG, s.BALANCES)


def _book(written: WrittenScenario, consensus_ns: int) -> Any:
    stream = written.scenario.stream
    config = stream.config
    block = config.start_block + min(config.periods - 1, (consensus_ns - config.start_time_ns) // config.period_ns)
    return parse_address_book(stream.book_for_block(block).book)


def _apply_all(store: Store, written: WrittenScenario, order: list[int] | None = None) -> list[ErrataStatus]:
    source = LocalSource(str(written.root))
    errata = written.scenario.errata
    statuses = []
    for i in order if order is not None else range(len(errata)):
        outcome = process_errata_object(
            source, errata[i].path, store.settings, store.gateway, _book(written, errata[i].consensus_ns)
        )
        statuses.append(outcome.status)
    return statuses


def _start_balances(store: Store, written: WrittenScenario) -> None:
    snapshot = written.scenario.snapshot
    first = written.scenario.stream.config.start_block
    load_snapshot(store.gateway, store.settings, BalanceSnapshot(snapshot["consensus_ns"], snapshot["balances"]), first)


def _latest(store: Store, table: str, key: bytes, family: str, qualifier: bytes) -> bytes | None:
    for row in store.gateway.read_rows(table, RowQuery(keys=(key,))):
        cell = row.cell(family, qualifier)
        return None if cell is None else cell.value
    return None


def _visible_history(store: Store, account: str) -> list[int]:
    prefix = account_prefix(account)
    end = prefix[:-1] + bytes([prefix[-1] + 1])
    times = []
    for row in store.gateway.read_rows(s.ACCOUNT_HISTORY, RowQuery(ranges=(KeyRange(prefix, end),))):
        cell = row.cell(s.ACCOUNT_HISTORY_FAMILY, s.Q_BLOCK)
        if cell is not None and not is_tombstone(cell.value):
            times.append(decode_account_history_key(row.key)[1])
    return times


def _check_history(store: Store, written: WrittenScenario) -> None:
    corrected = written.scenario.corrected
    phantom = written.scenario.inconsistent
    for tx in corrected["transactions"]:
        key = row_key_for_transaction(tx["consensus_ns"])
        # The entry's bytes: its own cells where an errata wrote them, else the items row it points into.
        stored = store.reader.transaction(tx["consensus_ns"])
        assert stored is not None, tx["consensus_ns"]
        record = stored.record()
        assert record.transactionHash.hex() == tx["hash"]
        assert [(f"0.0.{a.accountID.accountNum}", a.amount) for a in record.transferList.accountAmounts] == [
            (m["account"], m["amount"]) for m in tx["hbar_transfers"]
        ]
        position_value = _latest(store, s.TRANSACTIONS, key, s.TRANSACTION_FAMILY, s.Q_POSITION)
        assert position_value is not None
        position = decode_position(decode_value(position_value))
        assert (position.block_number, position.index) == (tx["block_number"], tx["index"])
        hash_value = _latest(
            store,
            s.TX_BY_HASH,
            row_key_for_tx_hash(bytes.fromhex(tx["hash"])),
            s.TX_BY_HASH_FAMILY,
            qualifier_for_consensus(tx["consensus_ns"]),
        )
        assert hash_value is not None and not is_tombstone(hash_value)
        tid = tx["transaction_id"]
        id_value = _latest(
            store,
            s.TX_BY_ID,
            row_key_for_tx_id(tid["payer"], tid["valid_start_ns"]),
            s.TX_BY_ID_FAMILY,
            qualifier_for_consensus(tx["consensus_ns"]),
        )
        assert id_value is not None and not is_tombstone(id_value)

    # The phantom is gone from every history table, its sidecar-free entry tombstoned.
    key = row_key_for_transaction(phantom["consensus_ns"])
    position_value = _latest(store, s.TRANSACTIONS, key, s.TRANSACTION_FAMILY, s.Q_POSITION)
    assert position_value is not None and is_tombstone(position_value)
    for qualifier in (s.Q_RECORD, s.Q_TRANSACTION):  # the stream's row only pointed: never written
        value = _latest(store, s.TRANSACTIONS, key, s.TRANSACTION_FAMILY, qualifier)
        assert value is None or is_tombstone(value)
    assert store.reader.transaction(phantom["consensus_ns"]) is None
    hash_value = _latest(
        store,
        s.TX_BY_HASH,
        row_key_for_tx_hash(bytes.fromhex(phantom["hash"])),
        s.TX_BY_HASH_FAMILY,
        qualifier_for_consensus(phantom["consensus_ns"]),
    )
    assert hash_value is not None and is_tombstone(hash_value)

    for account_id, times in corrected["accounts"].items():
        visible = _visible_history(store, account_id)
        assert set(times) <= set(visible), account_id
        assert phantom["consensus_ns"] not in visible
        extra = set(visible) - set(times)
        for t in extra:  # only contracts created during a call (the store's rule is wider)
            found = store.reader.transaction(t)
            assert found is not None
            created = found.record().contractCallResult
            assert account_id in {f"0.0.{c.contractNum}" for c in created.createdContractIDs}, (account_id, t)


def _check_balances(store: Store, written: WrittenScenario) -> None:
    corrected = written.scenario.corrected
    blocks = {b["number"]: b for b in written.scenario.stream.truth["blocks"]}
    for number, expected in corrected["balances"]["by_block"].items():
        end = blocks[int(number)]["consensus_end_ns"]
        for account_id, balance in expected.items():
            found = account_balance(store.gateway, account_id, end)
            assert found is not None and found.balance == balance, (number, account_id)
    for account_id, balance in corrected["balances"]["final"].items():
        found = account_balance(store.gateway, account_id)
        assert (found.balance if found is not None else 0) == balance, account_id


def test_errata_fix_history_and_balances_to_the_ground_truth(
    errata_store: Store, written_scenario: WrittenScenario
) -> None:
    store, scenario = errata_store, written_scenario.scenario
    assert all(r.complete for r in store.writer.write_blocks(written_scenario.blocks))
    _start_balances(store, written_scenario)
    # Balances first run over the uncorrected stream: the errata's compensations arrive late.
    assert BalanceApplier(store.gateway, store.settings).run().applied

    assert _apply_all(store, written_scenario) == [ErrataStatus.APPLIED] * len(scenario.errata)
    report = BalanceApplier(store.gateway, store.settings).run()
    assert report.rewound_to is not None
    _check_history(store, written_scenario)
    _check_balances(store, written_scenario)

    missing, phantom = scenario.missing["consensus_ns"], scenario.inconsistent["consensus_ns"]
    fix = next(e for e in scenario.errata if e.role == "missing")
    marker = errata_marker(store.gateway, missing)
    assert marker is not None and (marker.kind, marker.errata_id) == (EntryKind.INSERT, fix.errata_id)
    removed = errata_marker(store.gateway, phantom)
    assert removed is not None and removed.kind is EntryKind.DELETE
    assert missing in inserted_entries(store.gateway, scenario.missing["block_number"])
    history = errata_history(store.gateway, missing)
    assert history is not None and [e for _, e in history.errata][-1] == fix.errata_id
    # The originals stay retrievable.
    original = original_entry(store.gateway, phantom)
    assert original is not None and original.present
    item = original.item()
    assert item is not None
    assert hapi.TransactionRecord.FromString(item.record_bytes).transactionHash.hex() == scenario.inconsistent["hash"]
    absent = original_entry(store.gateway, missing)
    assert absent is not None and not absent.present and absent.item() is None
    block_file = store.reader.block_file(scenario.inconsistent["block_number"])
    assert block_file is not None and item.record_bytes in block_file.data

    # API-shaped balance answers.
    some = next(iter(scenario.corrected["balances"]["final"]))
    body = rest_balances_body(store.gateway, some)
    assert body["balances"][0]["balance"] == scenario.corrected["balances"]["final"][some]
    assert rpc_get_balance_result(store.gateway, some)["value"] == scenario.corrected["balances"]["final"][some]


def test_errata_in_any_order_and_again_change_nothing_more(
    errata_store: Store, written_scenario: WrittenScenario
) -> None:
    store, scenario = errata_store, written_scenario.scenario
    assert all(r.complete for r in store.writer.write_blocks(written_scenario.blocks))
    _start_balances(store, written_scenario)
    # Errata before balances, the fix before the errata it supersedes.
    order = list(reversed(range(len(scenario.errata))))
    assert _apply_all(store, written_scenario, order) == [ErrataStatus.APPLIED] * len(order)
    BalanceApplier(store.gateway, store.settings).run()
    _check_history(store, written_scenario)
    _check_balances(store, written_scenario)
    before = store.snapshot(ALL_TABLES)

    assert _apply_all(store, written_scenario) == [ErrataStatus.ALREADY_APPLIED] * len(order)
    assert BalanceApplier(store.gateway, store.settings).run().applied == []
    assert store.snapshot(ALL_TABLES) == before

    # A backfill (or a redelivery) over the corrected range keeps the corrections.
    assert all(r.complete for r in store.writer.write_blocks(written_scenario.blocks))
    assert store.snapshot(ALL_TABLES) == before
    _check_history(store, written_scenario)
