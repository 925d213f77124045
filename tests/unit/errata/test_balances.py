"""Derived hbar balances: order, gaps, crash and re-run, late compensations, snapshots, queries."""

from __future__ import annotations

import gzip
import json
import logging

import pytest
from hedera_history import hapi  # noqa: F401 (registers the SDK package the balance message comes from)
from hedera_history.derived import applier as applier_module
from hedera_history.derived.applier import BalanceApplier, ItemTransfers, item_transfers_of
from hedera_history.derived.balances import account_balance, latest_entry, read_progress
from hedera_history.derived.query import rest_balances_body, rpc_get_balance_result
from hedera_history.derived.rows import PROGRESS_KEY, Q_NEXT, STATE_TIMESTAMP, encode_pair, one_cell_row
from hedera_history.derived.snapshot import BalanceSnapshot, load_snapshot, parse_snapshot
from hedera_history.errata.apply import apply_errata
from hedera_history.errors import ConfigError
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.store.decode import StoredBlock
from hedera_history.store.writer import BlockWriter
from hiero_sdk_python.hapi.streams import account_balance_file_pb2 as pb

from tests.unit.store.builders import BASE_NS, NS

from .fakes import VersionedGateway
from .helpers import BLOCK_TXS, BLOCKS, MS, SETTINGS, D, errata_file, stored_history

GENESIS = {"0.0.1001": 1_000, "0.0.1002": 1_000, "0.0.1003": 1_000, "0.0.1004": 1_000}
SNAPSHOT = BalanceSnapshot(BASE_NS, GENESIS)


def _expected(blocks: int, extra: dict[str, int] | None = None) -> dict[str, int]:
    balances = dict(GENESIS)
    for txs in BLOCK_TXS[:blocks]:
        for tx in txs:
            for amount in tx.record.transferList.accountAmounts:
                account = f"0.0.{amount.accountID.accountNum}"
                balances[account] = balances.get(account, 0) + amount.amount
    for account, delta in (extra or {}).items():
        balances[account] = balances.get(account, 0) + delta
    return balances


def _balances(gateway: VersionedGateway, at_ns: int | None = None) -> dict[str, int]:
    out = {}
    for account in _expected(3):
        found = account_balance(gateway, account, at_ns)
        if found is not None:
            out[account] = found.balance
    return out


def _seeded(blocks: tuple[int, ...] = (0, 1, 2)) -> VersionedGateway:
    gateway = stored_history(blocks)
    load_snapshot(gateway, SETTINGS, SNAPSHOT, first_block=0)
    return gateway


def test_blocks_are_applied_in_order_from_the_snapshot() -> None:
    gateway = _seeded()
    report = BalanceApplier(gateway, SETTINGS).run()
    assert report.applied == [0, 1, 2] and report.stopped_at == 3
    assert _balances(gateway) == _expected(3)
    assert _balances(gateway, BLOCKS[0].record.consensus_end) == _expected(1)
    assert _balances(gateway, BASE_NS) == GENESIS  # the snapshot itself
    assert account_balance(gateway, "0.0.1001", BASE_NS - 1) is None  # before application began


def test_application_stops_at_the_first_gap() -> None:
    gateway = _seeded(blocks=(0, 2))
    report = BalanceApplier(gateway, SETTINGS).run()
    assert report.applied == [0] and report.stopped_at == 1
    assert _balances(gateway) == _expected(1)
    assert all(r.complete for r in BlockWriter(gateway, SETTINGS).write_blocks([BLOCKS[1]]))
    assert BalanceApplier(gateway, SETTINGS).run().applied == [1, 2]
    assert _balances(gateway) == _expected(3)


def test_a_crashed_block_is_recomputed_identically() -> None:
    gateway = _seeded()
    BalanceApplier(gateway, SETTINGS).run()
    done = gateway.snapshot()
    # As if the run died after block 1's rows but before its progress: the progress says block 1 is next.
    bound = BLOCKS[0].record.consensus_end
    progress = one_cell_row(PROGRESS_KEY, Q_NEXT, encode_pair(1, bound), STATE_TIMESTAMP)
    BlockWriter(gateway, SETTINGS).write_rows([progress])
    assert BalanceApplier(gateway, SETTINGS).run().applied == [1, 2]
    assert gateway.snapshot() == done


def test_late_compensation_rewinds_to_its_block() -> None:
    gateway = _seeded()
    BalanceApplier(gateway, SETTINGS).run()
    # An errata issued inside block 1's slot, after everything was applied.
    issued = D.consensus_ns + 200 * MS
    apply_errata(errata_file(issued, D.consensus_ns, None, [("0.0.1004", -20), ("0.0.1003", 20)]), gateway, SETTINGS)
    report = BalanceApplier(gateway, SETTINGS).run()
    assert report.rewound_to == 1 and report.applied == [1, 2] and report.compensations == 1
    assert _balances(gateway) == _expected(3, {"0.0.1004": -20, "0.0.1003": 20})
    assert _balances(gateway, issued - 1) != _balances(gateway, issued)  # it lands at the errata's time
    assert _balances(gateway, BLOCKS[0].record.consensus_end) == _expected(1)
    # Nothing more to do, and nothing moves.
    snapshot = gateway.snapshot()
    assert BalanceApplier(gateway, SETTINGS).run().applied == []
    assert gateway.snapshot() == snapshot


def test_compensation_ahead_of_the_stream_waits_for_its_block() -> None:
    gateway = _seeded(blocks=(0, 1))
    issued = BASE_NS + 4 * NS + 700 * MS  # after block 1's last item: block 2's slot
    apply_errata(errata_file(issued, D.consensus_ns, None, [("0.0.1004", -20), ("0.0.1003", 20)]), gateway, SETTINGS)
    BalanceApplier(gateway, SETTINGS).run()
    assert _balances(gateway) == _expected(2)
    BlockWriter(gateway, SETTINGS).write_blocks([BLOCKS[2]])
    BalanceApplier(gateway, SETTINGS).run()
    assert _balances(gateway) == _expected(3, {"0.0.1004": -20, "0.0.1003": 20})


def test_without_a_snapshot_balances_start_from_zero() -> None:
    gateway = stored_history()
    assert BalanceApplier(gateway, SETTINGS).run().applied == [0, 1, 2]
    expected = {a: b - GENESIS.get(a, 0) for a, b in _expected(3).items()}
    assert _balances(gateway) == {a: b for a, b in expected.items() if a in _balances(gateway)}
    assert read_progress(gateway) is not None


def test_snapshot_only_seeds_an_empty_table() -> None:
    gateway = _seeded()
    with pytest.raises(ConfigError, match="already started"):
        load_snapshot(gateway, SETTINGS, SNAPSHOT, first_block=0)


def test_snapshot_formats() -> None:
    document = json.dumps({"consensus_ns": 5, "balances": {"0.0.2": 7}}).encode()
    assert parse_snapshot(document, "s.json") == BalanceSnapshot(5, {"0.0.2": 7})
    message = pb.AllAccountBalances()
    message.consensusTimestamp.seconds, message.consensusTimestamp.nanos = 3, 4
    entry = message.allAccounts.add()
    entry.accountID.accountNum, entry.hbarBalance = 1001, 99
    parsed = parse_snapshot(gzip.compress(message.SerializeToString()), "2024-06-01T00_00_00.000000000Z_Balances.pb.gz")
    assert parsed == BalanceSnapshot(3_000_000_004, {"0.0.1001": 99})
    with pytest.raises(ConfigError):
        parse_snapshot(b'{"balances": {}}', "bad.json")


def test_query_shapes() -> None:
    gateway = _seeded()
    before = rpc_get_balance_result(gateway, "0.0.1001")  # only the snapshot so far
    assert before["value"] == GENESIS["0.0.1001"] and before["context"]["block"] is None
    BalanceApplier(gateway, SETTINGS).run()
    body = rest_balances_body(gateway, "0.0.1001")
    assert body["balances"] == [{"account": "0.0.1001", "balance": _expected(3)["0.0.1001"], "tokens": []}]
    end = BLOCKS[2].record.consensus_end
    assert body["timestamp"] == f"{end // NS}.{end % NS:09d}"
    result = rpc_get_balance_result(gateway, "0.0.1001", BLOCKS[0].record.consensus_end)
    assert result["value"] == _expected(1)["0.0.1001"] and result["context"]["block"] == 0
    assert rest_balances_body(gateway, "0.0.4242")["balances"] == []


def test_an_undecodable_record_is_counted_logged_and_moves_nothing(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    gateway = _seeded()
    bad_ns = BLOCKS[1].record.consensus_end - 1
    original = BalanceApplier._item_transfers

    def with_a_bad_item(self: BalanceApplier, block: StoredBlock) -> tuple[ItemTransfers, ...]:
        items = original(self, block)
        bad = RecordItem(b"", b"\xff\xff\xff", bad_ns)
        return (*items, *item_transfers_of([bad])) if block.number == 1 else items

    monkeypatch.setattr(BalanceApplier, "_item_transfers", with_a_bad_item)
    with caplog.at_level(logging.INFO, logger="hedera_history.derived.applier"):
        report = BalanceApplier(gateway, SETTINGS).run()
    assert report.applied == [0, 1, 2] and report.skipped_items == 1
    assert _balances(gateway) == _expected(3)
    [record] = [r for r in caplog.records if r.getMessage() == "balance item undecodable"]
    assert record.levelno == logging.ERROR
    assert getattr(record, "fields", {}) == {"block": 1, "consensus_ns": bad_ns, "record_bytes": 3}
    [summary] = [r for r in caplog.records if r.getMessage() == "balances applied"]
    assert getattr(summary, "fields", {})["skipped_items"] == 1


def _balance_reads(gateway: VersionedGateway, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A counter of the balance rows the applier looks up (one read per account not cached)."""
    counted: list[int] = []

    def counting(gateway: VersionedGateway, account: str, at_ns: int) -> object:
        counted.append(at_ns)
        return latest_entry(gateway, account, at_ns)

    monkeypatch.setattr(applier_module, "latest_entry", counting)
    return counted


def test_an_applier_goes_on_from_its_cache_when_nothing_moved_the_progress_since(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gateway = _seeded(blocks=(0, 1))
    reads = _balance_reads(gateway, monkeypatch)
    applier = BalanceApplier(gateway, SETTINGS)
    assert applier.run().applied == [0, 1]
    first_run = len(reads)
    assert all(r.complete for r in BlockWriter(gateway, SETTINGS).write_blocks([BLOCKS[2]]))
    assert applier.run().applied == [2]
    fresh = {f"0.0.{a.accountID.accountNum}" for tx in BLOCK_TXS[2] for a in tx.record.transferList.accountAmounts}
    seen = {
        f"0.0.{a.accountID.accountNum}"
        for txs in BLOCK_TXS[:2]
        for tx in txs
        for a in tx.record.transferList.accountAmounts
    }
    assert len(reads) - first_run == len(fresh - seen)  # only accounts the first run never touched
    assert _balances(gateway) == _expected(3)


def test_an_applier_starts_from_the_table_when_another_moved_the_progress() -> None:
    gateway = _seeded(blocks=(0,))
    mine, other = BalanceApplier(gateway, SETTINGS), BalanceApplier(gateway, SETTINGS)
    assert mine.run().applied == [0]
    assert all(r.complete for r in BlockWriter(gateway, SETTINGS).write_blocks([BLOCKS[1]]))
    assert other.run().applied == [1]  # mine's cache is now a block behind
    assert all(r.complete for r in BlockWriter(gateway, SETTINGS).write_blocks([BLOCKS[2]]))
    assert mine.run().applied == [2]
    assert _balances(gateway) == _expected(3)


def test_an_applier_whose_progress_came_back_with_a_new_compensation_starts_from_the_table() -> None:
    gateway = _seeded(blocks=(0, 1))
    mine, other = BalanceApplier(gateway, SETTINGS), BalanceApplier(gateway, SETTINGS)
    assert mine.run().applied == [0, 1]
    # In block 1's slot, on accounts block 2 moves: the other applier rewinds to block 1 and ends where
    # mine did, with balances mine has not seen.
    issued = D.consensus_ns + 200 * MS
    apply_errata(errata_file(issued, D.consensus_ns, None, [("0.0.1001", -20), ("0.0.1002", 20)]), gateway, SETTINGS)
    report = other.run()
    assert (report.rewound_to, report.applied) == (1, [1])
    assert all(r.complete for r in BlockWriter(gateway, SETTINGS).write_blocks([BLOCKS[2]]))
    assert mine.run().applied == [2]
    assert _balances(gateway) == _expected(3, {"0.0.1001": -20, "0.0.1002": 20})
