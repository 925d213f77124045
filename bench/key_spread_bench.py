"""Where a minute of writes at 10,000 transactions per second lands, table by table.

Bigtable keeps a table as tablets, contiguous key ranges, each served by one node at a time; it
splits a tablet that grows large or busy, but never below one row, and a range of keys written in
increasing order always grows its last tablet. A write hotspot is a key range that takes most of
the writes however the table is split.

The bench builds the row keys (with ``store.keys``, as the row builder does) of 600,000
transactions (one minute at 10k TPS): payers and receivers from a skewed (Zipf) mix over 100,000
accounts, every transaction paying its node (0.0.3 to 0.0.31), the fee collector 0.0.98 and the
staking reward account 0.0.800, one in twenty with sidecars, a block every 2 seconds. Tablet
boundaries come from the table as it stood before the minute (keys of the five minutes before,
sampled one in five, cut into TABLETS equal parts, as size-based splitting leaves them). It prints
per table the share of the minute's writes that the busiest tablet takes (1/TABLETS is a perfect
spread), how many tablets take writes at all, and the first bytes of the busiest range.

``--salted`` also prints the spread a one-hex-digit bucket prefix (``<bucket>/<key>``, the bucket
derived from the key) would give the time-ordered tables; see docs/schema.md, "Scale".
"""

from __future__ import annotations

import bisect
import hashlib
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from hedera_history.store import schema as s
from hedera_history.store.keys import (
    row_key_for_account_history,
    row_key_for_block,
    row_key_for_transaction,
    row_key_for_tx_hash,
    row_key_for_tx_id,
)

TPS = 10_000
SECONDS = 60
TABLETS = 64
ACCOUNTS = 100_000
FIRST_USER_ACCOUNT = 1001
NODES = tuple(range(3, 32))
FEE_ACCOUNTS = ("0.0.98", "0.0.800")
SIDECAR_SHARE = 20
"""One transaction in this many carries sidecars."""
BLOCK_SECONDS = 2
START_NS = 1_717_200_000 * 1_000_000_000
HISTORY_MINUTES = 5
HISTORY_SAMPLE = 5
BUCKETS = 16

KeysByTable = dict[str, list[bytes]]


@dataclass(frozen=True, slots=True)
class Spread:
    table: str
    writes: int
    busiest_share: float
    tablets_written: int
    busiest_range: bytes


def zipf_accounts(rng: random.Random, count: int) -> list[int]:
    """Account numbers drawn with weight 1/rank (a few payers submit most transactions)."""
    weights = [1 / rank for rank in range(1, ACCOUNTS + 1)]
    return [FIRST_USER_ACCOUNT + i for i in rng.choices(range(ACCOUNTS), weights=weights, k=count)]


def minute_keys(start_ns: int, seconds: int, tps: int, seed: int, sample: int = 1) -> KeysByTable:
    """The history row keys ``seconds`` of transactions at ``tps`` write (every ``sample``-th)."""
    rng = random.Random(seed)
    total = seconds * tps // sample
    step = 1_000_000_000 * sample // tps
    payers = zipf_accounts(rng, total)
    receivers = zipf_accounts(rng, total)
    keys: KeysByTable = {name: [] for name in s.HISTORY_TABLES}
    for i in range(total):
        consensus = start_ns + i * step + rng.randrange(step)
        payer = f"0.0.{payers[i]}"
        keys[s.TRANSACTIONS].append(row_key_for_transaction(consensus))
        keys[s.TX_BY_HASH].append(row_key_for_tx_hash(hashlib.sha384(b"%d" % consensus).digest()))
        keys[s.TX_BY_ID].append(row_key_for_tx_id(payer, consensus - 3_000_000_000))
        node = f"0.0.{rng.choice(NODES)}"
        for account in {payer, f"0.0.{receivers[i]}", node, *FEE_ACCOUNTS}:
            keys[s.ACCOUNT_HISTORY].append(row_key_for_account_history(account, consensus))
        if i % SIDECAR_SHARE == 0:
            keys[s.SIDECARS].append(row_key_for_transaction(consensus))
    first_block = (start_ns - START_NS) // (BLOCK_SECONDS * 1_000_000_000)
    for block in range(first_block, first_block + max(1, seconds // BLOCK_SECONDS)):
        keys[s.BLOCKS].append(row_key_for_block(block))
        keys[s.ITEMS].append(row_key_for_block(block))
    return keys


def salted(key: bytes) -> bytes:
    """``<bucket>/<key>``: one hex digit from a hash of the key, so one key's bucket is known."""
    return b"%x/" % (hashlib.blake2b(key, digest_size=1).digest()[0] % BUCKETS) + key


def boundaries(history: list[bytes], tablets: int = TABLETS) -> list[bytes]:
    """Split points that cut the existing rows into ``tablets`` equal parts."""
    ordered = sorted(set(history))
    if len(ordered) < tablets:
        return ordered[1:]
    return [ordered[len(ordered) * i // tablets] for i in range(1, tablets)]


def spread(table: str, writes: list[bytes], splits: list[bytes]) -> Spread:
    tablets = Counter(bisect.bisect_right(splits, key) for key in writes)
    busiest, count = tablets.most_common(1)[0]
    start = splits[busiest - 1] if busiest > 0 else b""
    return Spread(table, len(writes), count / len(writes), len(tablets), start[:24])


def spreads(transform: Callable[[bytes], bytes] = lambda k: k) -> Iterator[Spread]:
    history: KeysByTable = {name: [] for name in s.HISTORY_TABLES}
    for minute in range(HISTORY_MINUTES):
        start = START_NS + minute * 60 * 1_000_000_000
        for name, found in minute_keys(start, 60, TPS, seed=minute, sample=HISTORY_SAMPLE).items():
            history[name].extend(transform(k) for k in found)
    now = minute_keys(START_NS + HISTORY_MINUTES * 60 * 1_000_000_000, SECONDS, TPS, seed=99)
    for name in s.HISTORY_TABLES:
        yield spread(name, [transform(k) for k in now[name]], boundaries(history[name]))


def report(title: str, found: Iterator[Spread]) -> None:
    print(f"-- {title}: {SECONDS} s at {TPS:,} TPS, {TABLETS} tablets cut from the rows before (ideal 1/{TABLETS})")
    print(f"{'table':16} {'writes':>9} {'busiest tablet':>15} {'tablets written':>16}  busiest range starts")
    for item in found:
        print(
            f"{item.table:16} {item.writes:9,} {item.busiest_share:14.1%} {item.tablets_written:16}  "
            f"{item.busiest_range.decode('ascii', 'replace') or '(table start)'}"
        )


def main() -> None:
    report("keys as stored", spreads())
    if "--salted" in sys.argv[1:]:
        report(f"every key behind a {BUCKETS}-bucket prefix (not the stored layout)", spreads(salted))


if __name__ == "__main__":
    main()
