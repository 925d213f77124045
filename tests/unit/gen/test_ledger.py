"""The ledger never lets an account go negative, and the ground-truth balances are genesis plus
the sum of the transfers the record files carry."""

from __future__ import annotations

from collections import Counter

import pytest
from hedera_history.errors import GeneratorError
from hedera_history.gen import GeneratedStream
from hedera_history.gen.ledger import TOTAL_TINYBAR, Ledger, genesis_state

from tests.unit.gen.helpers import account, all_records


def test_overdraft_is_refused_and_nothing_moves() -> None:
    ledger = Ledger(genesis_state(nodes=1, accounts=2))
    before = dict(ledger.hbar)
    rich, poor = 2, 1001
    with pytest.raises(GeneratorError, match="overdrawn"):
        ledger.transfer_hbar([(poor, -(before[poor] + 1)), (rich, before[poor] + 1)])
    assert ledger.hbar == before


def test_unbalanced_transfers_are_refused() -> None:
    ledger = Ledger(genesis_state(nodes=1, accounts=2))
    with pytest.raises(GeneratorError, match="balance"):
        ledger.transfer_hbar([(1001, -5), (1002, 4)])


def test_nft_must_move_from_its_owner() -> None:
    ledger = Ledger(genesis_state(nodes=1, accounts=2))
    owner = ledger.nft_owners[1]
    other = 1002 if owner == 1001 else 1001
    with pytest.raises(GeneratorError):
        ledger.move_nft(1, other, owner)
    ledger.move_nft(1, owner, other)
    assert ledger.nft_owners[1] == other


def test_genesis_holds_the_total_supply() -> None:
    genesis = genesis_state(nodes=4, accounts=12)
    assert sum(genesis.hbar.values()) == TOTAL_TINYBAR
    assert min(genesis.hbar.values()) >= 0


def test_final_balances_are_genesis_plus_record_transfers(generated_stream: GeneratedStream) -> None:
    balances = Counter(generated_stream.truth["balances"]["genesis"])
    for record in all_records(generated_stream):
        for entry in record.transferList.accountAmounts:
            balances[account(entry.accountID.accountNum)] += entry.amount
    final = generated_stream.truth["balances"]["final"]
    assert set(balances) <= set(final)
    assert {a: balances.get(a, 0) for a in final} == final  # created contracts may hold nothing
    assert min(final.values()) >= 0
    assert sum(final.values()) == TOTAL_TINYBAR


def test_token_holdings_are_genesis_plus_record_transfers(generated_stream: GeneratedStream) -> None:
    tokens = generated_stream.truth["tokens"]
    fungible = next(t for t, v in tokens.items() if v["type"] == "FUNGIBLE_COMMON")
    nft = next(t for t, v in tokens.items() if v["type"] == "NON_FUNGIBLE_UNIQUE")
    units = Counter(tokens[fungible]["genesis"])
    owners = dict(tokens[nft]["genesis_owners"])
    for record in all_records(generated_stream):
        for token_list in record.tokenTransferLists:
            token = account(token_list.token.tokenNum)
            for entry in token_list.transfers:
                assert token == fungible
                units[account(entry.accountID.accountNum)] += entry.amount
            for move in token_list.nftTransfers:
                assert token == nft
                assert owners[str(move.serialNumber)] == account(move.senderAccountID.accountNum)
                owners[str(move.serialNumber)] = account(move.receiverAccountID.accountNum)
    assert {a: u for a, u in units.items() if u} == tokens[fungible]["final"]
    assert min(units.values()) >= 0
    assert owners == tokens[nft]["final_owners"]


def test_block_snapshots_replay_to_the_final_balances(generated_stream: GeneratedStream) -> None:
    balances = dict(generated_stream.truth["balances"]["genesis"])
    by_block = generated_stream.truth["balances"]["by_block"]
    assert list(by_block) == [str(b["number"]) for b in generated_stream.truth["blocks"]]
    for snapshot in by_block.values():
        assert snapshot and min(snapshot.values()) >= 0
        balances.update(snapshot)
    final = generated_stream.truth["balances"]["final"]
    assert {a: balances.get(a, 0) for a in final} == final


def test_failed_and_duplicate_transactions_only_charge_the_fee(generated_stream: GeneratedStream) -> None:
    seen = set()
    for entry in generated_stream.truth["transactions"]:
        if entry["status"] in ("INSUFFICIENT_ACCOUNT_BALANCE", "DUPLICATE_TRANSACTION"):
            seen.add(entry["status"])
            moved = {t["account"]: t["amount"] for t in entry["hbar_transfers"]}
            assert moved[entry["payer"]] == -entry["fee"]
            assert sum(moved.values()) == 0
            assert set(moved) == {entry["payer"], entry["node"], "0.0.98"}
            assert not entry["token_transfers"] and not entry["nft_transfers"]
    assert seen == {"INSUFFICIENT_ACCOUNT_BALANCE", "DUPLICATE_TRANSACTION"}
