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
spread), how many tablets take writes at all, the first bytes of the busiest range, and how far
Bigtable's splitting by load can take it: the **hottest front**, the largest share of the writes
falling between two neighbouring rows that were already stored. No split point lies between
them, so a tablet holding that front takes at least that share however the table is split (keys
written in increasing order all land in the one gap after the last row: one front).

The keys are the stored layout's (layout 3: ``transactions`` and ``sidecars`` behind a time
bucket, and the system accounts' ``account_history`` rows, nodes and fee accounts among them,
behind one too); ``--plain`` also prints ``transactions`` and ``sidecars`` keyed by the time alone
(layouts 1 and 2) for comparison. See docs/schema.md, "Scale".
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
    plain_row_key_for_transaction,
    row_key_for_account_history,
    row_key_for_block,
    row_key_for_transaction,
    row_key_for_tx_hash,
    row_key_for_tx_id,
)

from bench.machine import reports_machine

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
NODE_ROWS_PER_SECOND = 9_800
"""What the cost model plans one SSD node to write (14,000 rows/s published, at 70 %)."""

KeysByTable = dict[str, list[bytes]]


@dataclass(frozen=True, slots=True)
class Spread:
    table: str
    writes: int
    busiest_share: float
    tablets_written: int
    busiest_range: bytes
    hottest_front: float
    """The largest share of the writes between two neighbouring stored rows (no split helps)."""

    @property
    def front_rows_per_second(self) -> float:
        return self.hottest_front * self.writes / SECONDS

    @property
    def ceiling_tps(self) -> float:
        """The transaction rate at which the hottest front takes one node's planned rate."""
        return NODE_ROWS_PER_SECOND * TPS / self.front_rows_per_second if self.front_rows_per_second else float("inf")


def zipf_accounts(rng: random.Random, count: int) -> list[int]:
    """Account numbers drawn with weight 1/rank (a few payers submit most transactions)."""
    weights = [1 / rank for rank in range(1, ACCOUNTS + 1)]
    return [FIRST_USER_ACCOUNT + i for i in rng.choices(range(ACCOUNTS), weights=weights, k=count)]


def minute_keys(
    start_ns: int, seconds: int, tps: int, seed: int, sample: int = 1, time_key: Callable[[int], bytes] | None = None
) -> KeysByTable:
    """The history row keys ``seconds`` of transactions at ``tps`` write (every ``sample``-th);
    ``time_key`` keys ``transactions`` and ``sidecars`` (the stored layout's by default)."""
    time_key = time_key or row_key_for_transaction
    rng = random.Random(seed)
    total = seconds * tps // sample
    step = 1_000_000_000 * sample // tps
    payers = zipf_accounts(rng, total)
    receivers = zipf_accounts(rng, total)
    keys: KeysByTable = {name: [] for name in s.HISTORY_TABLES}
    for i in range(total):
        consensus = start_ns + i * step + rng.randrange(step)
        payer = f"0.0.{payers[i]}"
        keys[s.TRANSACTIONS].append(time_key(consensus))
        keys[s.TX_BY_HASH].append(row_key_for_tx_hash(hashlib.sha384(b"%d" % consensus).digest()))
        keys[s.TX_BY_ID].append(row_key_for_tx_id(payer, consensus - 3_000_000_000))
        node = f"0.0.{rng.choice(NODES)}"
        for account in {payer, f"0.0.{receivers[i]}", node, *FEE_ACCOUNTS}:
            keys[s.ACCOUNT_HISTORY].append(row_key_for_account_history(account, consensus))
        if i % SIDECAR_SHARE == 0:
            keys[s.SIDECARS].append(time_key(consensus))
    first_block = (start_ns - START_NS) // (BLOCK_SECONDS * 1_000_000_000)
    for block in range(first_block, first_block + max(1, seconds // BLOCK_SECONDS)):
        keys[s.BLOCKS].append(row_key_for_block(block))
        keys[s.ITEMS].append(row_key_for_block(block))
    return keys


def boundaries(history: list[bytes], tablets: int = TABLETS) -> list[bytes]:
    """Split points that cut the existing rows into ``tablets`` equal parts."""
    ordered = sorted(set(history))
    if len(ordered) < tablets:
        return ordered[1:]
    return [ordered[len(ordered) * i // tablets] for i in range(1, tablets)]


def spread(table: str, writes: list[bytes], history: list[bytes]) -> Spread:
    splits = boundaries(history)
    tablets = Counter(bisect.bisect_right(splits, key) for key in writes)
    busiest, count = tablets.most_common(1)[0]
    start = splits[busiest - 1] if busiest > 0 else b""
    stored = sorted(set(history))
    fronts = Counter(bisect.bisect_right(stored, key) for key in writes)
    hottest = fronts.most_common(1)[0][1]
    return Spread(table, len(writes), count / len(writes), len(tablets), start[:24], hottest / len(writes))


def spreads(time_key: Callable[[int], bytes] | None = None) -> Iterator[Spread]:
    history: KeysByTable = {name: [] for name in s.HISTORY_TABLES}
    for minute in range(HISTORY_MINUTES):
        start = START_NS + minute * 60 * 1_000_000_000
        found = minute_keys(start, 60, TPS, seed=minute, sample=HISTORY_SAMPLE, time_key=time_key)
        for name, keys in found.items():
            history[name].extend(keys)
    now = minute_keys(START_NS + HISTORY_MINUTES * 60 * 1_000_000_000, SECONDS, TPS, seed=99, time_key=time_key)
    for name in s.HISTORY_TABLES:
        yield spread(name, now[name], history[name])


def report(title: str, found: Iterator[Spread]) -> None:
    print(f"-- {title}: {SECONDS} s at {TPS:,} TPS, {TABLETS} tablets cut from the rows before (ideal 1/{TABLETS})")
    print(
        f"{'table':16} {'writes':>9} {'busiest tablet':>15} {'tablets written':>16} {'hottest front':>14} "
        f"{'its rows/s':>11} {'ceiling TPS':>12}  busiest range starts"
    )
    for item in found:
        print(
            f"{item.table:16} {item.writes:9,} {item.busiest_share:14.1%} {item.tablets_written:16} "
            f"{item.hottest_front:13.1%} {item.front_rows_per_second:11,.1f} {item.ceiling_tps:12,.0f}  "
            f"{item.busiest_range.decode('ascii', 'replace') or '(table start)'}"
        )
    print(
        f"A front is never split: at {NODE_ROWS_PER_SECOND:,} rows/s (one node's planned rate) it binds, at the "
        "ceiling TPS; below, Bigtable's load splits give every front a tablet (and a node) of its own."
    )


@reports_machine
def main() -> None:
    report("keys as stored (layout 3)", spreads())
    if "--plain" in sys.argv[1:]:
        report(
            "transactions and sidecars keyed by the time alone (layouts 1 and 2)",
            spreads(plain_row_key_for_transaction),
        )


if __name__ == "__main__":
    main()
