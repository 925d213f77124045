"""Record codec throughput: full V6 parse and hashing against a floor measured on the same files.

The floor is what a verifying reader cannot skip: gunzip, one SHA-384 over the decompressed
bytes, one ``RecordStreamFile.FromString`` and, per item, the two SHA-384 of the running hash
(item hash, then running hash) over item bytes taken out before the clock starts, through the
same recipe the codec uses. The codec does that plus a raw-view parse that yields the exact
transaction and record bytes, each item's consensus time and one ``RecordItem`` per item.

Each sample is one file (5,000 transfers) on each side, in random order, timed in CPU seconds of
this thread (``time.thread_time``) so that other work on a busy machine is charged to neither.
Goal: floor / codec >= 0.8 at p50 and at p99.
"""

from __future__ import annotations

import gzip
import hashlib
import random
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from hedera_history import hapi, speedups
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.hashing import EMPTY_HASH, item_hash, next_running_hash, running_hash_over
from hedera_history.formats.record_v6 import VERSION_PREFIX
from hedera_history.formats.wire import length_delimited

from bench.timing import p50_p99, paired_samples

FILES = 5
ITEMS_PER_FILE = 5000
ROUNDS = 7
SAMPLES = 300
"""Paired samples (one file each side): enough for p99 to stand on three samples."""
GOAL = 0.8
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


def build_files(count: int = FILES, items: int = ITEMS_PER_FILE, seed: int = 435) -> list[BenchFile]:
    rng = random.Random(seed)
    files: list[BenchFile] = []
    running = EMPTY_HASH
    start_ns = 1_700_000_000 * NS
    for index in range(count):
        built, running = build_v6_file(index, items, start_ns, running, rng)
        files.append(built)
        start_ns += 2 * NS
    return files


def _gunzip(data: bytes) -> bytes:
    return zlib.decompress(data, 16 + zlib.MAX_WBITS)


def floor_one(file: BenchFile) -> None:
    content = _gunzip(file.data)
    hashlib.sha384(content).digest()
    hapi.RecordStreamFile.FromString(memoryview(content)[4:])
    running_hash_over(file.start_hash, file.records, file.transactions)


def codec_one(file: BenchFile) -> None:
    parse_record_file(file.data, file.name)


def best_times(files: list[BenchFile], works: list[Callable[[BenchFile], object]], rounds: int = ROUNDS) -> list[float]:
    """Best wall time of each work over all files. Rounds interleave the works, so that noise from
    other processes on the machine hits them alike."""
    best = [float("inf")] * len(works)
    for _ in range(rounds):
        for index, work in enumerate(works):
            started = time.perf_counter()
            for file in files:
                work(file)
            best[index] = min(best[index], time.perf_counter() - started)
    return best


def _stages(files: list[BenchFile]) -> dict[str, Callable[[BenchFile], object]]:
    """Each stage of the floor alone, to show what bounds the codec."""
    contents = {f.name: _gunzip(f.data) for f in files}
    return {
        "gunzip": lambda f: _gunzip(f.data),
        "sha384 of the file": lambda f: hashlib.sha384(contents[f.name]).digest(),
        "upb parse": lambda f: hapi.RecordStreamFile.FromString(memoryview(contents[f.name])[4:]),
        "2 SHA-384 per item": lambda f: running_hash_over(f.start_hash, f.records, f.transactions),
    }


def _line(label: str, seconds: float, transactions: int, megabytes: float) -> str:
    rate = f"{transactions / seconds:10,.0f} tx/s  {megabytes / seconds:7.1f} MB/s"
    return f"{label:38s} {seconds * 1e3:8.1f} ms  {rate}"


def main() -> None:
    print(f"building {FILES} V6 files x {ITEMS_PER_FILE} crypto transfers ...", flush=True)
    files = build_files()
    for file in files:
        record = parse_record_file(file.data, file.name)
        assert record.computed_end_running_hash == record.end_running_hash, "bench file is inconsistent"
    transactions = sum(f.items for f in files)
    megabytes = sum(f.decompressed_size for f in files) / 1e6
    compressed = sum(len(f.data) for f in files) / 1e6
    print(f"{transactions} transactions, {megabytes:.1f} MB decompressed ({compressed:.1f} MB gzip)")
    print(f"compiled core (hedera_history._speedups): {'yes' if speedups.available else 'NO, pure-Python fallback'}")

    rng = random.Random(5)

    def pair() -> tuple[Callable[[], object], Callable[[], object]]:
        file = rng.choice(files)
        return (lambda: codec_one(file)), (lambda: floor_one(file))

    codec_samples, floor_samples = paired_samples(pair, SAMPLES, rng, clock=time.thread_time)
    (codec50, codec99), (floor50, floor99) = p50_p99(codec_samples), p50_p99(floor_samples)
    per_file = ITEMS_PER_FILE
    print(f"{SAMPLES} paired samples of one file ({per_file} transactions), CPU ms of this thread: p50 / p99")
    print(f"  floor (gunzip + sha384 + upb parse + 2 SHA-384/item) {floor50 * 1e3:7.2f} / {floor99 * 1e3:7.2f}")
    print(f"  codec (parse_record_file)                           {codec50 * 1e3:7.2f} / {codec99 * 1e3:7.2f}")
    print(f"  codec {per_file / codec50:,.0f} tx/s at p50, floor {per_file / floor50:,.0f} tx/s")
    ratio50, ratio99 = floor50 / codec50, floor99 / codec99
    verdict = "OK" if min(ratio50, ratio99) >= GOAL else "BELOW GOAL"
    print(f"ratio floor/codec = {ratio50:.2f} at p50, {ratio99:.2f} at p99 (goal >= {GOAL} at both) {verdict}")

    stages = _stages(files)
    codec, *stage_times = best_times(files, [codec_one, *stages.values()])
    print(_line("codec, best of all files", codec, transactions, megabytes))

    print("what bounds the codec (each stage alone, share of codec time):")
    shares = [
        *zip(stages, stage_times, strict=True),
        ("rest: item bytes, times, items", codec - sum(stage_times)),
    ]
    for label, seconds in shares:
        per_tx = seconds / transactions * 1e6
        print(f"  {label:34s} {seconds * 1e3:8.1f} ms  {seconds / codec:5.0%}  {per_tx:5.2f} us/tx")


if __name__ == "__main__":
    main()
