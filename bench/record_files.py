"""Crypto-transfer V6 record files with valid running hashes, and the floor of reading one.

The floor (``floor_one``) is the raw work a verifying reader cannot skip; the codec bench holds the
codec against it, and ``bench.machine`` times it as the calibration every bench prints, so it is the
same bytes and the same work on every machine.
"""

from __future__ import annotations

import gzip
import hashlib
import random
import zlib
from dataclasses import dataclass, field

from hedera_history import hapi
from hedera_history.formats.hashing import EMPTY_HASH, item_hash, next_running_hash, running_hash_over
from hedera_history.formats.record_v6 import VERSION_PREFIX
from hedera_history.formats.wire import length_delimited

SUCCESS = 22  # ResponseCodeEnum.SUCCESS
NS = 1_000_000_000


@dataclass(frozen=True)
class BenchFile:
    name: str
    data: bytes
    decompressed_size: int
    items: int
    start_hash: bytes = EMPTY_HASH
    transactions: list[bytes] = field(default_factory=list, repr=False)
    records: list[bytes] = field(default_factory=list, repr=False)


def _transfer(rng: random.Random, consensus_ns: int) -> tuple[bytes, bytes]:
    """A crypto transfer as nodes write it: signed transaction bytes and its record."""
    payer = rng.randrange(1001, 500_000)
    receiver = rng.randrange(1001, 500_000)
    node = rng.randrange(3, 30)
    amount = rng.randrange(1, 10_000_000_000)
    fee = rng.randrange(80_000, 200_000)
    valid_start = consensus_ns - rng.randrange(1, 10) * NS

    body = hapi.TransactionBody()
    body.transactionID.accountID.accountNum = payer
    body.transactionID.transactionValidStart.seconds = valid_start // NS
    body.transactionID.transactionValidStart.nanos = valid_start % NS
    body.nodeAccountID.accountNum = node
    body.transactionFee = 100_000_000
    body.transactionValidDuration.seconds = 120
    body.memo = f"transfer {rng.randrange(1_000_000)}"
    transfers = body.cryptoTransfer.transfers.accountAmounts
    transfers.add(accountID=hapi.AccountID(accountNum=payer), amount=-amount)
    transfers.add(accountID=hapi.AccountID(accountNum=receiver), amount=amount)
    signed = hapi.SignedTransaction(bodyBytes=body.SerializeToString())
    pair = signed.sigMap.sigPair.add()
    pair.pubKeyPrefix = rng.randbytes(32)
    pair.ed25519 = rng.randbytes(64)
    transaction = hapi.Transaction(signedTransactionBytes=signed.SerializeToString())

    record = hapi.TransactionRecord()
    record.receipt.status = SUCCESS
    for rate in (record.receipt.exchangeRate.currentRate, record.receipt.exchangeRate.nextRate):
        rate.hbarEquiv = 30_000
        rate.centEquiv = rng.randrange(150_000, 250_000)
        rate.expirationTime.seconds = consensus_ns // NS + 3600
    record.transactionHash = rng.randbytes(48)
    record.consensusTimestamp.seconds = consensus_ns // NS
    record.consensusTimestamp.nanos = consensus_ns % NS
    record.transactionID.CopyFrom(body.transactionID)
    record.memo = body.memo
    record.transactionFee = fee
    paid = record.transferList.accountAmounts
    paid.add(accountID=hapi.AccountID(accountNum=payer), amount=-amount - fee)
    paid.add(accountID=hapi.AccountID(accountNum=receiver), amount=amount)
    paid.add(accountID=hapi.AccountID(accountNum=node), amount=fee // 10)
    paid.add(accountID=hapi.AccountID(accountNum=98), amount=fee - fee // 10 - fee // 10)
    paid.add(accountID=hapi.AccountID(accountNum=800), amount=fee // 10)
    return transaction.SerializeToString(), record.SerializeToString()


def build_v6_file(
    index: int, items: int, start_ns: int, start_hash: bytes, rng: random.Random
) -> tuple[BenchFile, bytes]:
    """A gzip V6 record file with valid running hashes; returns it and its end running hash."""
    head = hapi.RecordStreamFile()
    head.hapi_proto_version.minor = 47
    head.start_object_running_hash.algorithm = 1
    head.start_object_running_hash.length = 48
    head.start_object_running_hash.hash = start_hash
    parts = [VERSION_PREFIX, head.SerializeToString()]
    running = start_hash
    consensus_ns = start_ns
    transactions: list[bytes] = []
    records: list[bytes] = []
    for _ in range(items):
        consensus_ns += rng.randrange(1, 400_000)
        transaction_bytes, record_bytes = _transfer(rng, consensus_ns)
        transactions.append(transaction_bytes)
        records.append(record_bytes)
        item = length_delimited(1, transaction_bytes) + length_delimited(2, record_bytes)
        parts.append(length_delimited(3, item))
        running = next_running_hash(running, item_hash(record_bytes, transaction_bytes))
    tail = hapi.RecordStreamFile(block_number=1_000 + index)
    tail.end_object_running_hash.algorithm = 1
    tail.end_object_running_hash.length = 48
    tail.end_object_running_hash.hash = running
    parts.append(tail.SerializeToString())
    content = b"".join(parts)
    name = f"bench-{index}.rcd.gz"
    data = gzip.compress(content, compresslevel=6, mtime=0)
    return BenchFile(name, data, len(content), items, start_hash, transactions, records), running


def build_files(count: int, items: int, seed: int = 435) -> list[BenchFile]:
    rng = random.Random(seed)
    files: list[BenchFile] = []
    running = EMPTY_HASH
    start_ns = 1_700_000_000 * NS
    for index in range(count):
        built, running = build_v6_file(index, items, start_ns, running, rng)
        files.append(built)
        start_ns += 2 * NS
    return files


def gunzip_content(data: bytes) -> bytes:
    return zlib.decompress(data, 16 + zlib.MAX_WBITS)


def floor_one(file: BenchFile) -> None:
    """What a verifying reader cannot skip: gunzip, one SHA-384 over the decompressed bytes, one
    ``RecordStreamFile`` parse and the two SHA-384 of the running hash per item."""
    content = gunzip_content(file.data)
    hashlib.sha384(content).digest()
    hapi.RecordStreamFile.FromString(memoryview(content)[4:])
    running_hash_over(file.start_hash, file.records, file.transactions)
