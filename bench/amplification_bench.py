"""Write amplification: bytes stored in the history tables per byte of stream files read.

Read side: one node's record files (``.rcd.gz``) and sidecar files, as the stream and a backfill
fetch them. Signature files are printed apart and left out of the ratio: a block is read with one
node's data files, while the signatures of every node are stored (the ``sig`` cells count on the
stored side), so counting one node's signature file would flatter the ratio for nothing.

Stored side, per table, two figures:

- **raw**: the cells as Bigtable's data model holds them, each cell carrying its row key, family,
  qualifier, an 8-byte timestamp and its value (what a ReadRows answer carries);
- **on disk (estimate)**: what Bigtable bills. Its pricing page says storage is "the physical
  storage used by Bigtable's internal representation on disk" and that Bigtable compresses the
  data; the Bigtable paper (OSDI 2006, section 6) compresses SSTable blocks of sorted cells (a long
  window pass, then a fast 16 KB window pass). The estimate lays the table's cells out sorted, each
  as ``u16 key length, key, family, u16 qualifier length, qualifier, u64 timestamp, u32 value
  length, value`` (no prefix sharing), and compresses them in 64 KiB blocks with zlib level 1: a
  stand-in, since Bigtable's own algorithm is not published. Values already compressed (the items
  table) do not shrink again.

Inputs: a generated mainnet-shaped stream (crypto and token transfers, NFTs, HCS, contract calls
with sidecars), the real V6 files of the test data (two small blocks: the fixed cost of a block,
four nodes' signatures, dominates them) and the real native blocks of ``blocks/tss-schnorr`` (read
side: the ``.blk.gz`` files; a native block's items row keeps the whole block, its signature and
state changes included, so its transactions' records are stored nowhere else).
"""

from __future__ import annotations

import math
import sys
import tempfile
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.sources.local_blocks import find_block_runs
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store import schema as s
from hedera_history.store.model import Row
from hedera_history.store.rows import block_to_rows
from hedera_history.verify.block_tss import LedgerTssCheck
from hedera_history.verify.block_verified import verified_block
from hedera_history.verify.blocks import BlockCheckOptions, verify_blocks
from hedera_history.verify.stream import verify_stream

from bench.machine import reports_machine

STREAM = GeneratorConfig(nodes=4, periods=10, transactions=2000, seed=5)

# ---- one month of mainnet history, and list prices (us-central1, USD) ----------------------------
MONTH_TRANSACTIONS = 2_600_000_000
MONTH_STREAM_GIB = 630
"""Record and sidecar files of one node for a month (about 21 GiB a day)."""
BIGTABLE_SSD_GIB_MONTH = 0.17
BIGTABLE_HDD_GIB_MONTH = 0.026
BIGTABLE_NODE_HOUR = 0.65
"""https://cloud.google.com/bigtable/pricing (storage is billed on the compressed size on disk)."""
BIGTABLE_ROWS_PER_NODE_SECOND = 14_000
BIGTABLE_PLANNED_LOAD = 0.7
"""https://cloud.google.com/bigtable/docs/performance: SSD, writes of 1 KB rows per node; planned at 70 %."""
DATAPROC_VCPU_HOUR = 0.010
"""https://cloud.google.com/dataproc/pricing, on top of the VMs."""
N2_VCPU_HOUR = 0.194236 / 4
"""n2-standard-4 (4 vCPU, 16 GB) per hour over its vCPUs: https://cloud.google.com/compute/vm-instance-pricing."""
BACKFILL_BYTES_PER_CORE_SECOND = 4.04e6
"""Stream bytes one backfill task core handles per second of its CPU, the lowest of the backfill bench's
runs (docs/backfill.md: 4.04 to 4.76 MB)."""
SETTINGS = Settings()
TIMESTAMP_BYTES = 8
SSTABLE_BLOCK = 64 * 1024
ESTIMATE_LEVEL = 1


@dataclass(frozen=True, slots=True)
class StreamBytes:
    records: int
    sidecars: int
    signatures: int
    """One node's signature files: printed, not in the ratio (see the module docstring)."""

    @property
    def read(self) -> int:
        return self.records + self.sidecars


@dataclass(slots=True)
class TableBytes:
    rows: int = 0
    cells: int = 0
    raw: int = 0
    on_disk: int = 0


@dataclass(slots=True)
class Amplification:
    stream: StreamBytes
    transactions: int
    tables: dict[str, TableBytes] = field(default_factory=dict)

    @property
    def raw(self) -> int:
        return sum(t.raw for t in self.tables.values())

    @property
    def on_disk(self) -> int:
        return sum(t.on_disk for t in self.tables.values())

    @property
    def raw_ratio(self) -> float:
        return self.raw / self.stream.read

    @property
    def on_disk_ratio(self) -> float:
        return self.on_disk / self.stream.read


def node_stream_bytes(folder: Path) -> StreamBytes:
    """Bytes of the first node's record, sidecar and signature files under ``folder``."""
    node = sorted(p.parent for p in folder.rglob("*.rcd.gz") if p.parent.name != "sidecar")[0]
    records = sum(p.stat().st_size for p in node.glob("*.rcd.gz"))
    sidecars = sum(p.stat().st_size for p in (node / "sidecar").glob("*.rcd.gz"))
    signatures = sum(p.stat().st_size for p in node.glob("*.rcd_sig"))
    return StreamBytes(records, sidecars, signatures)


def verified(folder: Path, book: bytes) -> list[VerifiedBlock]:
    results = verify_stream(find_local_periods(folder), parse_address_book(book))
    return [r.report.block for r in results if r.report.block is not None]


def all_rows(blocks: Iterable[VerifiedBlock], settings: Settings = SETTINGS) -> list[Row]:
    rows: list[Row] = []
    for block in blocks:
        built = block_to_rows(block, settings)
        rows.extend(built.rows)
        rows.append(built.completion)
    return rows


def measure(blocks: Sequence[VerifiedBlock], stream: StreamBytes, settings: Settings = SETTINGS) -> Amplification:
    result = Amplification(stream, sum(len(b.record.items) for b in blocks))
    cells: dict[str, list[tuple[bytes, str, bytes, bytes]]] = {name: [] for name in s.HISTORY_TABLES}
    for row in all_rows(blocks, settings):
        table = result.tables.setdefault(row.table, TableBytes())
        table.rows += 1
        for cell in row.cells:
            table.cells += 1
            table.raw += len(row.key) + len(cell.family) + len(cell.qualifier) + TIMESTAMP_BYTES + len(cell.value)
            cells[row.table].append((row.key, cell.family, cell.qualifier, cell.value))
    for name, table in result.tables.items():
        table.on_disk = on_disk_estimate(cells[name])
    return result


def on_disk_estimate(cells: list[tuple[bytes, str, bytes, bytes]]) -> int:
    """The cells sorted as an SSTable holds them, compressed in blocks (see the module docstring)."""
    total = 0
    block = bytearray()
    for key, family, qualifier, value in sorted(cells):
        block += len(key).to_bytes(2, "big") + key + family.encode() + len(qualifier).to_bytes(2, "big") + qualifier
        block += bytes(TIMESTAMP_BYTES) + len(value).to_bytes(4, "big") + value
        if len(block) >= SSTABLE_BLOCK:
            total += len(zlib.compress(bytes(block), ESTIMATE_LEVEL))
            block.clear()
    if block:
        total += len(zlib.compress(bytes(block), ESTIMATE_LEVEL))
    return total


def generated(config: GeneratorConfig = STREAM, settings: Settings = SETTINGS) -> Amplification:
    with tempfile.TemporaryDirectory(prefix="amplification-bench-") as scratch:
        folder = Path(scratch)
        write_stream(generate_stream(config), folder)
        blocks = verified(folder, (folder / "address-book.bin").read_bytes())
        return measure(blocks, node_stream_bytes(folder), settings)


def real_v6(data_dir: Path, settings: Settings = SETTINGS) -> Amplification:
    folder = data_dir / "v6"
    blocks = verified(folder, (data_dir / "addressbook" / "test-v6-sidecar-4n.bin").read_bytes())
    return measure(blocks, node_stream_bytes(folder), settings)


def native_blocks(data_dir: Path, settings: Settings = SETTINGS) -> Amplification:
    """The TSS-signed native blocks of ``blocks/tss-schnorr`` against their ``.blk.gz`` files."""
    folder = data_dir / "blocks" / "tss-schnorr"
    (run,) = find_block_runs(folder)
    reports = verify_blocks(run, None, BlockCheckOptions(tss=LedgerTssCheck()))
    blocks = [verified_block(checked) for checked in reports]
    read = sum(path.stat().st_size for path in folder.glob("*.blk.gz"))
    return measure(blocks, StreamBytes(records=read, sidecars=0, signatures=0), settings)


def report(title: str, result: Amplification) -> None:
    stream, n = result.stream, max(result.transactions, 1)
    print(f"-- {title}: {result.transactions:,} transactions")
    print(
        f"stream read (one node): {stream.read:,} bytes = {stream.records:,} record + {stream.sidecars:,} sidecar"
        f" ({stream.read / n:.1f} per transaction); signature files {stream.signatures:,} (not in the ratio)"
    )
    print(f"{'table':16} {'rows':>8} {'cells':>8} {'raw bytes':>11} {'per tx':>7} {'on disk est':>11} {'per tx':>7}")
    for name in s.HISTORY_TABLES:
        t = result.tables.get(name, TableBytes())
        print(f"{name:16} {t.rows:8,} {t.cells:8,} {t.raw:11,} {t.raw / n:7.1f} {t.on_disk:11,} {t.on_disk / n:7.1f}")
    raw, on_disk = result.raw, result.on_disk
    print(f"{'total':16} {'':8} {'':8} {raw:11,} {raw / n:7.1f} {on_disk:11,} {on_disk / n:7.1f}")
    print(
        f"bytes stored per byte of stream read: raw {result.raw_ratio:.2f}, "
        f"on disk (estimate, what Bigtable bills) {result.on_disk_ratio:.2f}"
    )


def month_of_mainnet(result: Amplification) -> None:
    """What one month of mainnet costs at this layout's measured ratios (list prices above)."""
    gib = 1024**3
    stored_gib = MONTH_STREAM_GIB * result.on_disk_ratio
    rows = sum(t.rows for t in result.tables.values()) / max(result.transactions, 1) * MONTH_TRANSACTIONS
    per_node = BIGTABLE_ROWS_PER_NODE_SECOND * BIGTABLE_PLANNED_LOAD
    nodes = math.ceil(rows / 86_400 / per_node)
    core_hours = MONTH_STREAM_GIB * gib / BACKFILL_BYTES_PER_CORE_SECOND / 3600
    month = f"{MONTH_TRANSACTIONS / 1e9:.1f} billion transactions, {MONTH_STREAM_GIB} GiB of stream"
    print(f"-- one month of mainnet ({month})")
    print(
        f"stored (on disk estimate): {stored_gib:,.0f} GiB; each month kept costs "
        f"${stored_gib * BIGTABLE_SSD_GIB_MONTH:,.0f}/month on SSD, "
        f"${stored_gib * BIGTABLE_HDD_GIB_MONTH:,.0f}/month on HDD"
    )
    print(
        f"rows: {rows / 1e9:.1f} billion; written in a day: {rows / 86_400:,.0f} rows/s = {nodes:.0f} nodes at "
        f"{per_node:,.0f} rows/s each, {nodes * 24:.0f} node-hours = ${nodes * 24 * BIGTABLE_NODE_HOUR:,.0f}"
    )
    print(
        f"backfill: {core_hours:,.0f} core-hours at {BACKFILL_BYTES_PER_CORE_SECOND / 1e6:.2f} MB/s per core = "
        f"${core_hours * DATAPROC_VCPU_HOUR:,.2f} Dataproc + ${core_hours * N2_VCPU_HOUR:,.2f} n2 VMs"
    )


@reports_machine
def main() -> None:
    print(f"generating {STREAM.periods} periods x {STREAM.transactions} transactions ...", flush=True)
    result = generated()
    report("generated mainnet-shaped stream", result)
    month_of_mainnet(result)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.data_dir import real_data_dir  # noqa: PLC0415 (the tests package is found from the checkout)

    report("real V6 test files", real_v6(real_data_dir()))
    report("real native blocks (tss-schnorr, read: the .blk.gz files)", native_blocks(real_data_dir()))


if __name__ == "__main__":
    main()
