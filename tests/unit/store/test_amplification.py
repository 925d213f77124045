"""Write amplification (``bench/amplification_bench.py``) on a small generated stream: what
Bigtable bills (the on-disk estimate) stays at most 1.52 bytes per byte of stream read, and each
transaction is stored once (in the items row), its ``transactions`` row only pointing.

The bound was 1.5 (1.49 measured) until layout 3 put ``transactions`` and ``sidecars`` rows behind
a time bucket: neighbouring rows of a bucket are no longer neighbours in time and compress a little
less (1.52 measured on this small stream), the price of spreading their writes over 16 ranges."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.gen import GeneratorConfig
from hedera_history.store import schema as s
from hedera_history.store.keys import TIME_BUCKETS, plain_row_key_for_transaction

from bench import amplification_bench as bench
from bench import key_spread_bench as spread

SMALL = GeneratorConfig(nodes=4, periods=3, transactions=2000, seed=5)


def test_bytes_stored_per_byte_read_stay_within_one_and_a_half_and_a_fiftieth() -> None:
    result = bench.generated(SMALL)
    assert result.transactions == 3 * 2000
    assert result.on_disk_ratio <= 1.52, result.on_disk_ratio
    per_tx = {name: t.raw / result.transactions for name, t in result.tables.items()}
    items = result.tables[s.ITEMS]
    # The items row is the one copy: about the record files' own (gzip) size.
    assert items.on_disk <= 1.05 * result.stream.records
    # A transactions row is a key, one position cell and its timestamp: no copy of the bytes.
    assert per_tx[s.TRANSACTIONS] < 50
    # tx_by_hash keys are 32 hex digits (16 bytes of the hash), not 96.
    assert per_tx[s.TX_BY_HASH] < 80


def test_the_real_v6_files_are_measured(hedera_data: Path) -> None:
    result = bench.real_v6(hedera_data)
    assert result.transactions == 3 and result.stream.read > 0
    # Two tiny blocks: four nodes' signatures (two 384-byte RSA signatures each) outweigh the files.
    assert result.tables[s.BLOCKS].raw > result.stream.read


def test_bucketed_time_keys_spread_over_sixteen_fronts_and_plain_ones_take_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(spread, "TPS", 200)
    found = {item.table: item for item in spread.spreads()}
    for table in (s.TRANSACTIONS, s.SIDECARS):
        assert found[table].tablets_written == TIME_BUCKETS
        assert found[table].hottest_front < 1.5 / TIME_BUCKETS
    assert found[s.TX_BY_HASH].busiest_share < 4 / spread.TABLETS
    plain = {item.table: item for item in spread.spreads(plain_row_key_for_transaction)}
    assert plain[s.TRANSACTIONS].busiest_share == 1.0 and plain[s.TRANSACTIONS].tablets_written == 1
    assert plain[s.TRANSACTIONS].hottest_front == 1.0
