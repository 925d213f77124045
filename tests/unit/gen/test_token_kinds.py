"""The token service kinds, allowances, airdrops, account updates and schedule signs
(``GeneratorConfig.tokens``): every kind is played, the records say what a consensus node's do,
native blocks give the same records back through the block transformer, and the truth's token
state follows from the transactions."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history import hapi
from hedera_history.books.parse import parse_address_book
from hedera_history.cli.main import cli
from hedera_history.derived.snapshot import parse_snapshot
from hedera_history.formats.block import parse_block_file
from hedera_history.formats.block_record_file import native_block_files
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream
from hedera_history.gen.books import ENDPOINT_PORTS
from hedera_history.gen.config_and_output import PeriodKind
from hedera_history.gen.facts import GeneratedItem
from hedera_history.gen.live_schedule import LiveConfig
from hedera_history.store.accounts import accounts_touched
from hedera_history.verify.block_tss import LedgerTssCheck
from hedera_history.verify.blocks import BlockCheckOptions, verify_blocks
from hedera_history.verify.tss import TssTrust, find_publication

TOKENS = GeneratorConfig(
    nodes=4, periods=9, transactions=60, seed=3, tokens=True, cutover_after=3, wrapped_periods=1, rotate_key=False
)
"""Record files 0-2, wrapped block 3, native blocks 4-8."""
TOKEN_KINDS = {
    "tokenCreation",
    "tokenAssociate",
    "tokenMint",
    "tokenBurn",
    "cryptoApproveAllowance",
    "tokenAirdrop",
    "tokenClaimAirdrop",
    "tokenCancelAirdrop",
    "cryptoUpdateAccount",
    "scheduleCreate",
    "scheduleSign",
}


class _Captured:
    """The items each period was generated with, by consensus time."""

    def __init__(self) -> None:
        self.items: dict[int, GeneratedItem] = {}

    def __call__(self, _period: int, items: list[GeneratedItem]) -> list[GeneratedItem]:
        self.items.update((item.facts.consensus_ns, item) for item in items)
        return items


@pytest.fixture(scope="module")
def captured() -> tuple[GeneratedStream, dict[int, GeneratedItem]]:
    capture = _Captured()
    return generate_stream(TOKENS, edit_items=capture), capture.items


@pytest.fixture(scope="module")
def stream(captured: tuple[GeneratedStream, dict[int, GeneratedItem]]) -> GeneratedStream:
    return captured[0]


def _records(items: dict[int, GeneratedItem]) -> Iterator[tuple[Any, Any]]:
    for item in items.values():
        signed = hapi.SignedTransaction.FromString(
            hapi.Transaction.FromString(item.transaction_bytes).signedTransactionBytes
        )
        yield hapi.TransactionBody.FromString(signed.bodyBytes), hapi.TransactionRecord.FromString(item.record_bytes)


def test_every_kind_is_played(stream: GeneratedStream) -> None:
    types = Counter(t["type"] for t in stream.truth["transactions"])
    assert set(types) >= TOKEN_KINDS
    transactions = stream.truth["transactions"]
    assert any(t.get("automatic_associations") and t["type"] == "cryptoTransfer" for t in transactions)
    assert any(t.get("pending_airdrops") for t in transactions)
    assert any(t["type"] == "tokenMint" and t["nft_transfers"] for t in transactions)
    assert any(t["type"] == "tokenMint" and t["token_transfers"] for t in transactions)
    assert any(
        s["executed_ns"] and len(s["signatures"]) == 2 for s in stream.truth["token_state"]["schedules"].values()
    )
    assert any(len(states) > 1 for states in stream.truth["token_state"]["account_keys"].values())


def test_records_carry_what_a_consensus_node_writes(
    captured: tuple[GeneratedStream, dict[int, GeneratedItem]],
) -> None:
    _, items = captured
    seen: set[str] = set()
    for body, record in _records(items):
        kind = body.WhichOneof("data")
        receipt = record.receipt
        if kind == "tokenCreation":
            assert receipt.tokenID.tokenNum and receipt.newTotalSupply == body.tokenCreation.initialSupply
            treasury = body.tokenCreation.treasury
            assert [(a.token_id, a.account_id) for a in record.automatic_token_associations] == [
                (receipt.tokenID, treasury)
            ]
        elif kind == "tokenMint" and body.tokenMint.metadata:
            serials = [n.serialNumber for t in record.tokenTransferLists for n in t.nftTransfers]
            assert list(receipt.serialNumbers) == sorted(serials) and len(serials) == len(body.tokenMint.metadata)
            assert all(not n.HasField("senderAccountID") for t in record.tokenTransferLists for n in t.nftTransfers)
            seen.add("nft mint")
        elif kind == "tokenAirdrop":
            pending = {(p.pending_airdrop_id.receiver_id.accountNum) for p in record.new_pending_airdrops}
            credited = {a.accountID.accountNum for t in record.tokenTransferLists for a in t.transfers if a.amount > 0}
            sent = {
                a.accountID.accountNum for t in body.tokenAirdrop.token_transfers for a in t.transfers if a.amount > 0
            }
            sent |= {n.receiverAccountID.accountNum for t in body.tokenAirdrop.token_transfers for n in t.nftTransfers}
            assert pending and pending | credited == sent and not pending & credited
        elif kind == "cryptoTransfer" and (owners := _approved_owners(body.cryptoTransfer)):
            assert record.transactionID.accountID.accountNum not in owners  # the spender pays
            seen.add("approved transfer")
        elif kind == "scheduleSign":
            assert receipt.scheduledTransactionID.scheduled
            seen.add(kind)
        elif kind == "cryptoUpdateAccount" and body.cryptoUpdateAccount.HasField("key"):
            signed = hapi.SignedTransaction.FromString(
                hapi.Transaction.FromString(items[_ns(record)].transaction_bytes).signedTransactionBytes
            )
            assert len(signed.sigMap.sigPair) == 2
            assert signed.sigMap.sigPair[1].pubKeyPrefix == body.cryptoUpdateAccount.key.ed25519
            seen.add("rekey")
    assert seen == {"nft mint", "approved transfer", "scheduleSign", "rekey"}


def _approved_owners(transfer: Any) -> set[int]:
    """The accounts whose hbar, units or NFTs a transfer moves under an allowance."""
    amounts = [*transfer.transfers.accountAmounts, *(a for t in transfer.tokenTransfers for a in t.transfers)]
    owners = {a.accountID.accountNum for a in amounts if a.is_approval}
    return owners | {
        n.senderAccountID.accountNum for t in transfer.tokenTransfers for n in t.nftTransfers if n.is_approval
    }


def _ns(record: Any) -> int:
    return int(record.consensusTimestamp.seconds) * 10**9 + int(record.consensusTimestamp.nanos)


def test_native_blocks_give_back_the_records_of_the_record_stream(
    captured: tuple[GeneratedStream, dict[int, GeneratedItem]],
) -> None:
    """The block transformer rebuilds each native transaction's record as the generator wrote it
    (receipt ids and supplies from state changes, pending airdrops from the body and result),
    but for the receipt's exchange rate, which blocks do not carry."""
    stream, items = captured
    compared = Counter[str]()
    for block in stream.blocks:
        if block.kind is not PeriodKind.NATIVE:
            continue
        record_file, _ = native_block_files(parse_block_file(stream.objects[block.path], block.path))
        for item in record_file.items:
            rebuilt = hapi.TransactionRecord.FromString(item.record_bytes)
            original = hapi.TransactionRecord.FromString(items[_ns(rebuilt)].record_bytes)
            original.receipt.ClearField("exchangeRate")
            kind = hapi.TransactionBody.FromString(
                hapi.SignedTransaction.FromString(
                    hapi.Transaction.FromString(item.transaction_bytes).signedTransactionBytes
                ).bodyBytes
            ).WhichOneof("data")
            if kind in ("contractCall", "contractCreateInstance"):
                continue
            assert rebuilt == original, kind
            compared[kind or ""] += 1
    assert {"tokenCreation", "tokenMint", "tokenBurn", "tokenAirdrop", "tokenClaimAirdrop"} <= set(compared)


def test_the_store_reads_the_accounts_the_truth_says_each_transaction_touches(
    captured: tuple[GeneratedStream, dict[int, GeneratedItem]],
) -> None:
    """From the record stream's records and, after the cutover, from the transformed ones."""
    stream, items = captured
    truth = {t["consensus_ns"]: t for t in stream.truth["transactions"]}
    native = {block.block_number for block in stream.blocks if block.kind is PeriodKind.NATIVE}
    for body, record in _records(items):
        if truth[_ns(record)]["block_number"] not in native:  # a native block's truth is its own
            assert accounts_touched(body, record) == set(truth[_ns(record)]["accounts_touched"])
    for block in stream.blocks:
        if block.kind is PeriodKind.NATIVE:
            record_file, _ = native_block_files(parse_block_file(stream.objects[block.path], block.path))
            for item in record_file.items:
                record = hapi.TransactionRecord.FromString(item.record_bytes)
                body = _body(item.transaction_bytes)
                assert accounts_touched(body, record) == set(truth[_ns(record)]["accounts_touched"])


def _body(transaction_bytes: bytes) -> Any:
    signed = hapi.SignedTransaction.FromString(hapi.Transaction.FromString(transaction_bytes).signedTransactionBytes)
    return hapi.TransactionBody.FromString(signed.bodyBytes)


def test_every_block_verifies(stream: GeneratedStream) -> None:
    zero = stream.periods[0]
    record = parse_record_file(zero.record_bytes, str(zero.record_name).removesuffix(".gz"))
    signed = (hapi.Transaction.FromString(item.transaction_bytes).signedTransactionBytes for item in record.items)
    publication = find_publication(signed)
    assert publication is not None
    first = stream.blocks[0].block_number
    book = parse_address_book(stream.book_for_block(first).book)
    sources = [_Source(b.path, b.block_number, stream.objects[b.path]) for b in stream.blocks]
    options = BlockCheckOptions(tss=LedgerTssCheck(trust=TssTrust(publication)))
    reports = list(verify_blocks(sources, book, options))
    assert len(reports) == len(stream.blocks) and all(report.ok for report in reports)


class _Source:
    def __init__(self, name: str, number: int, data: bytes) -> None:
        self.name, self.number, self.data = name, number, data

    def read(self) -> bytes:
        return self.data


def test_token_balances_of_every_block_follow_from_the_transactions(stream: GeneratedStream) -> None:
    """Genesis plus each block's token transfers (NFTs counted per owner) gives the balances the
    truth states for the block, and the last block's give the final ones."""
    state = stream.truth["token_state"]
    nft_tokens = {t for t, info in state["tokens"].items() if info["type"] == "NON_FUNGIBLE_UNIQUE"}
    held: dict[str, dict[str, int]] = {t: dict(b) for t, b in state["balances"]["genesis"].items()}
    by_block: dict[int, list[dict[str, Any]]] = {}
    for transaction in stream.truth["transactions"]:
        by_block.setdefault(transaction["block_number"], []).append(transaction)
    for number in sorted(by_block):
        for transaction in by_block[number]:
            for move in transaction["token_transfers"]:
                tokens = held.setdefault(move["token"], {})
                tokens[move["account"]] = tokens.get(move["account"], 0) + move["amount"]
            for move in transaction["nft_transfers"]:
                tokens = held.setdefault(move["token"], {})
                for side, change in (("sender", -1), ("receiver", 1)):
                    if move[side] != "0.0.0":
                        tokens[move[side]] = tokens.get(move[side], 0) + change
        for token, accounts in state["balances"]["by_block"].get(str(number), {}).items():
            for account, balance in accounts.items():
                assert held.get(token, {}).get(account, 0) == balance, (number, token, account)
    final = state["balances"]["final"]
    for token, accounts in final.items():
        assert {a: b for a, b in held.get(token, {}).items() if b} == {a: b for a, b in accounts.items() if b}, token
    assert nft_tokens and all(
        sum(final[t].values()) == len(state["nft_owners"][t]) == state["tokens"][t]["total_supply"] for t in nft_tokens
    )
    assert all(balance >= 0 for accounts in final.values() for balance in accounts.values())


def test_the_truth_holds_allowances_airdrops_schedules_and_keys(stream: GeneratedStream) -> None:
    state = stream.truth["token_state"]
    assert state["allowances"]["hbar"] and state["allowances"]["token"]
    assert state["pending_airdrops"]
    keys = state["account_keys"]
    assert keys["0.0.2"][0]["from_ns"] is None and len(bytes.fromhex(keys["0.0.1001"][0]["key"])) == 32
    # What is pending at the end is what the last airdrop of each pair left pending (none claimed
    # or cancelled since).
    last: dict[tuple[str, str, str, int | None], int] = {}
    for transaction in stream.truth["transactions"]:
        for p in transaction.get("pending_airdrops", []):
            last[(p["sender"], p["receiver"], p["token"], p["serial"])] = p["amount"]
    for p in state["pending_airdrops"]:
        assert last[(p["sender"], p["receiver"], p["token"], p["serial"])] == p["amount"]


def test_a_stream_without_tokens_is_unchanged() -> None:
    config = GeneratorConfig(nodes=2, periods=3, transactions=12)
    plain = generate_stream(config)
    assert "token_state" not in plain.truth
    assert not any(t.get("automatic_associations") for t in plain.truth["transactions"])


def test_the_same_config_gives_the_same_stream(stream: GeneratedStream) -> None:
    again = generate_stream(TOKENS)
    assert again.objects == stream.objects and again.truth == stream.truth


def test_generate_tokens_and_node_endpoints(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["generate", str(out), "--nodes", "2", "--periods", "4", "--transactions", "40"]
    result = CliRunner().invoke(cli, [*args, "--tokens", "--node-endpoints"])
    assert result.exit_code == 0, result.output
    truth = json.loads((out / "ground-truth.json").read_text())
    assert set(truth["token_state"]) >= {"tokens", "balances", "allowances", "pending_airdrops", "schedules"}
    snapshot = json.loads((out / "genesis-balances.json").read_text())
    assert snapshot["token_balances"] == truth["token_state"]["balances"]["genesis"]
    assert set(snapshot["balances"]) - set(snapshot["keys"]) == {truth["contracts"][0]}  # the genesis contract
    assert dict(parse_snapshot((out / "genesis-balances.json").read_bytes(), "g").balances) == snapshot["balances"]
    for book_file in [out / "address-book.bin", *sorted((out / "address-books").iterdir())]:
        book = hapi.NodeAddressBook.FromString(book_file.read_bytes())
        parse_address_book(book_file.read_bytes())
        for address in book.nodeAddress:
            assert [e.port for e in address.serviceEndpoint] == list(ENDPOINT_PORTS)
            assert len(bytes.fromhex(address.nodeCertHash.decode())) == 48 and address.description
    assert len(list((out / "address-books").iterdir())) == 2  # the rotated key's book carries them too


def test_a_live_network_plays_the_token_kinds_too() -> None:
    live = LiveConfig(nodes=2, transactions=40, periods=3, tokens=True, node_endpoints=True)
    config = live.generator_config(TOKENS.start_time_ns)
    assert config.tokens and config.node_endpoints
    assert "token_state" in generate_stream(config).truth
