"""Mainnet's known errata: the shipped missing transactions (checked against the reference's real
files) and the 2019 spurious-transfer rule, applied block by block by the network errata pass."""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

import pytest
from hedera_history import hapi
from hedera_history.derived.applier import BalanceApplier
from hedera_history.derived.balances import account_balance
from hedera_history.derived.snapshot import BalanceSnapshot, load_snapshot
from hedera_history.errata.errata_file import EntryKind
from hedera_history.errata.network import (
    MAINNET_MISSING_RESOURCE,
    MAINNET_MISSING_SHA256,
    mainnet_errata,
    network_errata,
    parse_missing_transactions,
    spurious_transfers,
)
from hedera_history.errata.network_pass import NetworkErrataPass
from hedera_history.errata.read import errata_marker, inserted_entries, mirror_errata_field, original_entry
from hedera_history.formats.names import parse_stream_file_name
from hedera_history.store.accounts import entity_text
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter

from tests.unit.store.builders import NS, Tx, body, make_block, record_for, signed_transaction_bytes, transfer_tx

from .fakes import VersionedGateway
from .helpers import MS, SETTINGS

INSUFFICIENT_ACCOUNT_BALANCE = 28
SEPT_17 = 1_568_680_377 * NS  # 2019-09-17T00:32:57Z: 27 missing transactions in the next 3 s


def _originals(hedera_data: Path) -> list[Path]:
    files = sorted((hedera_data / "errata/mainnet/missingtransactions").glob("*.bin"))
    assert len(files) == 113
    return files


def _packaged() -> bytes:
    return resources.files("hedera_history.errata").joinpath("data", MAINNET_MISSING_RESOURCE).read_bytes()


def test_every_reference_file_decodes_at_the_time_its_name_says(hedera_data: Path) -> None:
    for path in _originals(hedera_data):
        items = list(parse_missing_transactions(path.read_bytes(), path.name))
        assert len(items) == 1, path.name
        assert items[0].consensus_ns == parse_stream_file_name(path.name.replace(".bin", ".rcd")).consensus_ns
        hapi.Transaction.FromString(items[0].transaction_bytes)


def test_the_packaged_file_is_the_reference_files_byte_for_byte(hedera_data: Path) -> None:
    originals = [path.read_bytes() for path in _originals(hedera_data)]
    by_time = sorted(originals, key=lambda data: next(iter(parse_missing_transactions(data, "x"))).consensus_ns)
    packaged = _packaged()
    assert packaged == b"".join(by_time)
    assert hashlib.sha256(packaged).hexdigest() == MAINNET_MISSING_SHA256


def test_mainnet_ships_113_insert_errata_and_other_networks_none() -> None:
    errata = network_errata("mainnet")
    assert errata is not None and errata is mainnet_errata()
    assert len(errata.missing) == 113
    assert [e.time_of_error for e in errata.missing] == sorted(e.time_of_error for e in errata.missing)
    for e in errata.missing:
        assert e.consensus_ns == e.time_of_error + 1 and not e.council_signatures
        assert e.entry_kind is EntryKind.UPDATE  # an INSERT once the store has nothing there
        assert e.body.correct_item is not None and len(e.body.compensating_items) == 1
        assert errata.vouches_for(e, None)
    assert network_errata("testnet") is None and network_errata(None) is None


# ---- the missing transactions, inserted by the pass ----------------------------------------------


def _missing_in(low: int, high: int) -> list[int]:
    return [e.time_of_error for e in mainnet_errata().missing if low <= e.time_of_error <= high]


def _stream_around_sept_17() -> tuple[VersionedGateway, list[Tx]]:
    """Three blocks from 2019-09-17T00:32:57 to 00:32:59.5 (the missing ones are not in them)."""
    txs = [transfer_tx(SEPT_17 + k * 500 * MS, 1001 + k % 3, 2001, 100 + k) for k in range(6)]
    gateway = VersionedGateway()
    blocks = [make_block(0, txs[0:2]), make_block(1, txs[2:4]), make_block(2, txs[4:6])]
    assert all(r.complete for r in BlockWriter(gateway, SETTINGS).write_blocks(blocks))
    return gateway, txs


def test_missing_transactions_in_the_stream_range_are_inserted_with_the_marker() -> None:
    gateway, txs = _stream_around_sept_17()
    expected = _missing_in(txs[0].consensus_ns, txs[-1].consensus_ns)
    assert len(expected) >= 20
    report = NetworkErrataPass(gateway, SETTINGS, mainnet_errata()).run()
    assert report.visited == [0, 1, 2] and report.stopped_at == 3 and not report.pending
    assert len(report.applied) == len(expected)

    reader = HistoryReader(gateway)
    by_time = {e.time_of_error: e for e in mainnet_errata().missing}
    for ns in expected:
        stored = reader.transaction(ns)
        assert stored is not None, ns
        correct = by_time[ns].body.correct_item
        assert correct is not None and stored.record_bytes == correct.record_bytes
        marker = errata_marker(gateway, ns)
        assert marker is not None and mirror_errata_field(marker) == "INSERT"
        original = original_entry(gateway, ns)
        assert original is not None and not original.present
    # between blocks 0 and 1 (after 57.5 s, before 58.0 s): placed after block 0's last item
    between = [ns for ns in expected if txs[1].consensus_ns < ns < txs[2].consensus_ns]
    assert between and set(between) <= set(inserted_entries(gateway, 0))
    # the stream's own transactions are untouched, and a second pass changes nothing
    assert errata_marker(gateway, txs[0].consensus_ns) is None
    assert NetworkErrataPass(gateway, SETTINGS, mainnet_errata()).run().applied == []


def test_a_missing_transaction_the_stream_carries_is_left_alone() -> None:
    ns = mainnet_errata().missing[0].time_of_error  # 2019-09-14T11:18:30.225708Z
    own = transfer_tx(ns, 1001, 1002, 7)
    gateway = VersionedGateway()
    blocks = [make_block(0, [transfer_tx(ns - NS, 1001, 1002, 1), own]), make_block(1, [transfer_tx(ns + NS, 1, 2, 3)])]
    BlockWriter(gateway, SETTINGS).write_blocks(blocks)
    report = NetworkErrataPass(gateway, SETTINGS, mainnet_errata()).run()
    assert report.skipped == [mainnet_errata().missing[0].errata_id]
    assert errata_marker(gateway, ns) is None
    stored = HistoryReader(gateway).transaction(ns)
    assert stored is not None and stored.record_bytes == own.record_bytes


def test_the_pass_waits_for_the_next_block_and_resumes_from_its_progress() -> None:
    gateway, txs = _stream_around_sept_17()
    partial = VersionedGateway()
    partial.tables = {t: {k: dict(v) for k, v in rows.items()} for t, rows in gateway.tables.items()}
    del partial.tables["blocks"][b"%016x" % 2]  # block 2 not stored yet
    first = NetworkErrataPass(partial, SETTINGS, mainnet_errata()).run()
    assert first.visited == [0, 1] and first.stopped_at == 2
    assert NetworkErrataPass(partial, SETTINGS, mainnet_errata()).read_progress() == (2, txs[3].consensus_ns)


def test_derived_balances_include_the_inserted_transactions() -> None:
    gateway, txs = _stream_around_sept_17()
    NetworkErrataPass(gateway, SETTINGS, mainnet_errata()).run()
    load_snapshot(gateway, SETTINGS, BalanceSnapshot(SEPT_17 - NS, {}), first_block=0)
    BalanceApplier(gateway, SETTINGS).run()
    by_time = {e.time_of_error: e for e in mainnet_errata().missing}
    expected: dict[str, int] = {}
    items = [t.item for t in txs] + [
        by_time[ns].body.correct_item for ns in _missing_in(txs[0].consensus_ns, txs[-1].consensus_ns)
    ]
    for item in items:
        assert item is not None
        for amount in hapi.TransactionRecord.FromString(item.record_bytes).transferList.accountAmounts:
            account = entity_text(amount.accountID)
            assert account is not None
            expected[account] = expected.get(account, 0) + amount.amount
    assert "0.0.909" in expected  # the 2019-09-17 payer
    for account, balance in expected.items():
        found = account_balance(gateway, account)
        assert found is not None and found.balance == balance, account


# ---- the 2019 spurious transfers -----------------------------------------------------------------

SEPT_20 = 1_568_937_600 * NS  # 2019-09-20T00:00:00Z


def _failed_transfer(consensus_ns: int, payer: int, to: int, amount: int, *, status: int) -> Tx:
    """A 2019-shaped failed transfer: the record lists the attempted transfer and the fee apart."""
    b = body(payer, consensus_ns - 5 * NS)
    b.cryptoTransfer.SetInParent()
    tx_bytes = signed_transaction_bytes(b)
    transfers = ((payer, -amount), (to, amount), (payer, -30), (3, 10), (98, 20))
    record = record_for(b, consensus_ns, tx_bytes, status=status, transfers=transfers)
    return Tx(consensus_ns, tx_bytes, bytes(record.SerializeToString()))


def test_the_rule_selects_the_payer_funded_credit_and_its_debit() -> None:
    bad = _failed_transfer(SEPT_20, 1001, 1002, 500, status=INSUFFICIENT_ACCOUNT_BALANCE)
    assert spurious_transfers(bad.item) == (("0.0.1002", 500), ("0.0.1001", -500))
    ok = _failed_transfer(SEPT_20, 1001, 1002, 500, status=22)
    assert spurious_transfers(ok.item) == ()
    late = _failed_transfer(1_577_836_800 * NS, 1001, 1002, 500, status=INSUFFICIENT_ACCOUNT_BALANCE)
    assert spurious_transfers(late.item) == ()
    to_self = _failed_transfer(SEPT_20, 1001, 1001, 500, status=INSUFFICIENT_ACCOUNT_BALANCE)
    assert spurious_transfers(to_self.item) == ()
    special = _failed_transfer(1_570_118_944_399_195_000, 1001, 1001, 500, status=INSUFFICIENT_ACCOUNT_BALANCE)
    assert spurious_transfers(special.item) == (("0.0.1001", 500), ("0.0.1001", -500))


def test_a_spurious_transfer_is_marked_kept_as_original_and_left_out_of_balances() -> None:
    bad = _failed_transfer(SEPT_20 + 100 * MS, 1001, 1002, 500, status=INSUFFICIENT_ACCOUNT_BALANCE)
    good = _failed_transfer(SEPT_20 + 200 * MS, 1001, 1002, 400, status=22)
    blocks = [
        make_block(0, [transfer_tx(SEPT_20, 1003, 1001, 1), bad, good]),
        make_block(1, [transfer_tx(SEPT_20 + 2 * NS, 1003, 1001, 1)]),
    ]
    gateway = VersionedGateway()
    BlockWriter(gateway, SETTINGS).write_blocks(blocks)
    genesis = {"0.0.1001": 10_000, "0.0.1002": 0, "0.0.1003": 10_000}
    load_snapshot(gateway, SETTINGS, BalanceSnapshot(SEPT_20 - NS, genesis), first_block=0)

    report = NetworkErrataPass(gateway, SETTINGS, mainnet_errata()).run()
    assert len(report.applied) == 1
    marker = errata_marker(gateway, bad.consensus_ns)
    assert marker is not None and marker.kind is EntryKind.UPDATE
    stored = HistoryReader(gateway).transaction(bad.consensus_ns)
    assert stored is not None
    kept = [(entity_text(a.accountID), a.amount) for a in stored.record().transferList.accountAmounts]
    assert kept == [("0.0.1001", -30), ("0.0.3", 10), ("0.0.98", 20)]
    original = original_entry(gateway, bad.consensus_ns)
    assert original is not None and original.item() == bad.item
    assert errata_marker(gateway, good.consensus_ns) is None
    untouched = HistoryReader(gateway).transaction(good.consensus_ns)
    assert untouched is not None and untouched.record_bytes == good.record_bytes

    BalanceApplier(gateway, SETTINGS).run()
    # 1001: +1 +1 (two plain transfers in), -30 fee of the failed one, -400 -30 of the successful one
    found = {a: account_balance(gateway, a) for a in genesis}
    assert {a: f.balance for a, f in found.items() if f is not None} == {
        "0.0.1001": 10_000 + 1 + 1 - 30 - 430,
        "0.0.1002": 400,
        "0.0.1003": 10_000 - 4 - 4,
    }


@pytest.mark.parametrize("status", [22, INSUFFICIENT_ACCOUNT_BALANCE])
def test_the_stored_record_is_what_the_pass_reads(status: int) -> None:
    tx = _failed_transfer(SEPT_20, 1001, 1002, 5, status=status)
    gateway = VersionedGateway()
    BlockWriter(gateway, SETTINGS).write_blocks([make_block(0, [tx])])
    block = HistoryReader(gateway).get_block(0)
    assert block is not None
    found, _ = NetworkErrataPass(gateway, SETTINGS, mainnet_errata()).errata_of_block(block, -1)
    assert len(found) == (1 if status != 22 else 0)
