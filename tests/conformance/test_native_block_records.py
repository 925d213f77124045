"""Real native blocks (``blocks/tss-schnorr`` and ``blocks/mirror-node-blockstreams``) become records:
the counts and consensus times the reference's tests assert, every record's id, time, status and
hash, balanced transfers, and receipts checked against the chain itself (every topic message's
running hash recomputed from its topic's creation; every new account credited its initial
balance). The records then feed the row builder as a record file does."""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path
from typing import Any

import pytest
from hedera_history import hapi
from hedera_history.block import ConsensusSummary, VerifiedBlock
from hedera_history.config import Settings
from hedera_history.formats.block import parse_block_file
from hedera_history.formats.block_protos import BlockItem
from hedera_history.formats.block_record_file import block_record_file, block_sidecar_files, native_block_files
from hedera_history.formats.block_records import BlockRecords, block_records, transaction_hash
from hedera_history.formats.block_transactions import BlockTransaction, block_transactions
from hedera_history.store import schema
from hedera_history.store.rows import block_to_rows

from .tss_blocks import ROOTS as TSS_ROOTS

TSS = "blocks/tss-schnorr/{}.blk.gz"
MIRROR = "blocks/mirror-node-blockstreams/0000/0000/0000/0000/{:03d}.blk.zstd"
TSS_COUNTS = (759, 59, 171, 24, 22, 25)
"""Transactions per block: its ``transaction_result`` items (README)."""
MIRROR_NODE_BLOCKS = {7: (1770842061390565879, 1), 8: (1770842063775529380, 1), 16: (None, 0)}
"""Block -> (consensus start = end, count), as ``BlockStreamReaderTest`` asserts."""
MIRROR_NODE_HASHES = {
    7: (
        "8b98440b3fa8b13d9d7f82e92ceb246c9707cf6c11ba38997385e7ea1097f06d752736753fe40b9ff06096211a11066a",
        "e11e44567f5ca4ae23b75467b75d83c8880d0888f5c4154f08b8f221bf269b2e4f3f1686e8dcb9694beaaf287313b0fb",
    ),
    8: (
        "78ef36dc7c7cb57cfb212966b768a0fbc9b0f5045574c6b3bfa0cccdcef9401b7edda1cf05ada60dedd7e0b435e0d81d",
        "8b98440b3fa8b13d9d7f82e92ceb246c9707cf6c11ba38997385e7ea1097f06d752736753fe40b9ff06096211a11066a",
    ),
    16: (
        "c61a2439f0754008932fe10155ce2c61b32457d6ec30e632a71eafeeef44b1df64b1cfd966c6325c0c5766431f5441f9",
        "449c52f8efe0e284aac3a0961efb2403a7337a0fc519c1b5231a07ce6d3eae9e9b9d8809782202a5fd40048ddd533098",
    ),
}
"""Block -> (hash, previous hash), as ``BlockStreamReaderTest`` asserts (README)."""
MIRROR_NODE_EMPTY_BLOCK_TIME = 1770842078844243554
"""Block 16's consensus start and end: its header's timestamp (no transactions)."""
GENESIS_MINT = (0, 1, 2, 5_000_000_000_000_000_000)
"""Block 0's second transaction creates the treasury 11.12.2 with all the hbar there is: the one
transfer list that does not balance (block, transaction, account, amount)."""


def read_block(path: Path) -> list[BlockItem]:
    return [item.message(path.name) for item in parse_block_file(path.read_bytes(), path.name).items]


@pytest.fixture(scope="module")
def tss_blocks(hedera_data: Path) -> list[tuple[list[BlockItem], tuple[BlockTransaction, ...], BlockRecords]]:
    blocks = []
    for number in range(len(TSS_COUNTS)):
        items = read_block(hedera_data / TSS.format(number))
        transactions = block_transactions(items)
        blocks.append((items, transactions, block_records(transactions)))
    return blocks


@pytest.mark.parametrize("number", sorted(MIRROR_NODE_BLOCKS))
def test_the_mirror_node_blocks_have_the_count_and_times_its_reader_asserts(hedera_data: Path, number: int) -> None:
    consensus, count = MIRROR_NODE_BLOCKS[number]
    records = block_records(block_transactions(read_block(hedera_data / MIRROR.format(number))))
    assert len(records.items) == count
    if count:
        assert records.items[0].consensus_ns == records.items[-1].consensus_ns == consensus


def test_every_tss_block_has_a_record_per_transaction_result(tss_blocks: list[Any]) -> None:
    assert tuple(len(records.items) for _, _, records in tss_blocks) == TSS_COUNTS


def test_every_record_states_the_id_time_status_and_hash_of_its_transaction(tss_blocks: list[Any]) -> None:
    previous = 0
    for _, transactions, records in tss_blocks:
        for transaction, item in zip(transactions, records.items, strict=True):
            record = hapi.TransactionRecord.FromString(item.record_bytes)
            body = transaction.body
            assert record.transactionID == body.transactionID
            assert item.consensus_ns == transaction.consensus_ns > previous
            previous = item.consensus_ns
            assert record.consensusTimestamp == transaction.result.consensus_timestamp
            assert record.receipt.status == transaction.result.status
            assert record.transactionFee == transaction.result.transaction_fee_charged
            expected_hash = (
                hashlib.sha384(item.transaction_bytes).digest()
                if transaction.signed_transaction.use_serialized_tx_message_hash_algorithm
                else hashlib.sha384(transaction.signed_transaction_bytes).digest()
            )
            assert record.transactionHash == expected_hash == transaction_hash(transaction)


def test_every_transfer_list_balances_but_the_genesis_mint(tss_blocks: list[Any]) -> None:
    unbalanced = []
    for number, (_, _, records) in enumerate(tss_blocks):
        for index, item in enumerate(records.items):
            amounts = hapi.TransactionRecord.FromString(item.record_bytes).transferList.accountAmounts
            total = sum(a.amount for a in amounts)
            if total:
                unbalanced.append((number, index, [(a.accountID.accountNum, a.amount) for a in amounts]))
    block, transaction, account, amount = GENESIS_MINT
    assert unbalanced == [(block, transaction, [(account, amount)])]


def _next_running_hash(previous: bytes, transaction: BlockTransaction, record: Any) -> bytes:
    """HCS running hash version 3, as the consensus node computes it: a Java object stream of the
    previous hash, the version, payer, topic, consensus time and sequence number, then the
    message's SHA-384 (two byte arrays, the second naming the first's class by reference)."""
    payer = transaction.body.transactionID.accountID
    topic = transaction.body.consensusSubmitMessage.topicID
    time = record.consensusTimestamp
    numbers = (3, payer.shardNum, payer.realmNum, payer.accountNum, topic.shardNum, topic.realmNum, topic.topicNum)
    block = struct.pack(">7qqiq", *numbers, time.seconds, time.nanos, record.receipt.topicSequenceNumber)
    message_hash = hashlib.sha384(transaction.body.consensusSubmitMessage.message).digest()
    stream = (
        bytes.fromhex("aced0005757200025b42acf317f8060854e0020000787000000030")
        + previous
        + bytes([0x77, len(block)])
        + block
        + bytes.fromhex("7571007e000000000030")
        + message_hash
    )
    return hashlib.sha384(stream).digest()


def test_every_topic_message_carries_the_running_hash_its_topic_chain_gives(tss_blocks: list[Any]) -> None:
    """Topics start from 48 zero bytes at their creation: a message's hash matches only if its
    create was given the right topic id and the submit the right state."""
    running: dict[int, bytes] = {}
    checked = 0
    for _, transactions, records in tss_blocks:
        for transaction, item in zip(transactions, records.items, strict=True):
            record = hapi.TransactionRecord.FromString(item.record_bytes)
            case = transaction.body.WhichOneof("data")
            if case == "consensusCreateTopic":
                running[record.receipt.topicID.topicNum] = bytes(48)
            elif case == "consensusSubmitMessage":
                topic = transaction.body.consensusSubmitMessage.topicID.topicNum
                assert record.receipt.topicRunningHashVersion == 3
                assert record.receipt.topicRunningHash == _next_running_hash(running[topic], transaction, record)
                running[topic] = record.receipt.topicRunningHash
                checked += 1
    assert checked == 23 and len(running) == 5


def test_every_new_account_is_the_one_credited_its_initial_balance(tss_blocks: list[Any]) -> None:
    created = set()
    for _, transactions, records in tss_blocks:
        for transaction, item in zip(transactions, records.items, strict=True):
            if transaction.body.WhichOneof("data") != "cryptoCreateAccount":
                continue
            record = hapi.TransactionRecord.FromString(item.record_bytes)
            account = record.receipt.accountID
            assert account.accountNum not in created
            created.add(account.accountNum)
            balance = transaction.body.cryptoCreateAccount.initialBalance
            if balance:
                assert (account, balance) in [(a.accountID, a.amount) for a in record.transferList.accountAmounts]
    assert len(created) == 906


def _rows_of(items: list[BlockItem], records: BlockRecords, name: str) -> Any:
    header = items[0].block_header
    version = header.hapi_proto_version
    time = header.block_timestamp
    record_file = block_record_file(
        name,
        header.number,
        (version.major, version.minor, version.patch),
        records,
        timestamp_ns=time.seconds * 1_000_000_000 + time.nanos,
        root_hash=bytes(48),
        previous_root_hash=bytes(48),
        size=1,
    )
    block = VerifiedBlock(
        record=record_file,
        block_number=header.number,
        sidecars=block_sidecar_files(name, records),
        signatures=(),
        consensus=ConsensusSummary(record_file.file_hash, None, 4, 4),
    )
    return block_to_rows(block, Settings())


@pytest.mark.parametrize("number", [0, 2, 5])
def test_the_records_feed_the_row_builder(tss_blocks: list[Any], number: int) -> None:
    items, transactions, records = tss_blocks[number]
    rows = _rows_of(items, records, f"{number}.blk.gz")
    assert rows.undecodable_records == 0
    keys = {row.key for row in rows.rows if row.table == schema.TX_BY_HASH}
    assert len(keys) == len(transactions)
    by_id = {row.key for row in rows.rows if row.table == schema.TX_BY_ID}
    assert by_id and all(key.startswith(b"11.12.") for key in by_id)
    assert any(row.table == schema.ACCOUNT_HISTORY for row in rows.rows)
    assert {row.table for row in rows.rows} >= {schema.TRANSACTIONS, schema.ITEMS, schema.BLOCKS}
    assert rows.block_time_ns == records.items[0].consensus_ns


def test_a_block_without_transactions_is_stamped_with_its_header_time(hedera_data: Path) -> None:
    items = read_block(hedera_data / MIRROR.format(16))
    rows = _rows_of(items, block_records(block_transactions(items)), "016.blk.zstd")
    assert rows.block_time_ns == MIRROR_NODE_EMPTY_BLOCK_TIME


@pytest.mark.parametrize("number", sorted(MIRROR_NODE_HASHES))
def test_a_mirror_node_block_is_the_record_file_its_reader_gives(hedera_data: Path, number: int) -> None:
    path = hedera_data / MIRROR.format(number)
    record, _ = native_block_files(parse_block_file(path.read_bytes(), path.name))
    block_hash, previous_hash = MIRROR_NODE_HASHES[number]
    assert (record.hash.hex(), record.previous_hash.hex()) == (block_hash, previous_hash)
    assert (record.version, record.hapi_version, record.block_number) == (7, (0, 73, 0), number)
    consensus, count = MIRROR_NODE_BLOCKS[number]
    expected = consensus or MIRROR_NODE_EMPTY_BLOCK_TIME
    assert (record.consensus_start, record.consensus_end, len(record.items)) == (expected, expected, count)


def test_a_parsed_block_is_a_record_file_chained_by_its_roots(hedera_data: Path) -> None:
    """Through the block reader: each block's record file has the root the block node's tests
    assert as its hash, names the one before as its previous hash, and keeps its records."""
    previous = None
    for number, count in enumerate(TSS_COUNTS):
        path = hedera_data / TSS.format(number)
        record, sidecars = native_block_files(parse_block_file(path.read_bytes(), path.name))
        assert (record.block_number, len(record.items), sidecars) == (number, count, ())
        assert record.hash.hex() == TSS_ROOTS[number]  # asserted by the block node's tests
        if previous is not None:
            assert record.previous_hash == previous.hash
        previous = record
