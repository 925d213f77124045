"""Proof size and verify time against the reference's state proof shapes, on generated V6 blocks.

For blocks of 100, 1,000 and 10,000 transactions (one node set, the book carried in every form):

- ``ours``: the canonical ``ProofBundle`` of one transaction (item run, 48-byte hashes after the item
  only, the fewest signatures reaching a third of the stake, the checkpoint book);
- ``reference compact``: the reference's compact record file for the item (header, the item hashes
  before *and* after the item, the item, end hash and block number) plus every node's signature
  file and the book;
- ``reference full``: the stored (gzip) record file plus every node's signature file and the book.

Sizes are p50 over the block's items (our proof shrinks as the item moves towards the block's end)
and the worst case (the first item). Our checkpoint book travels packed (keys as bytes, not hex).
Verify time: p50 of ``verify_proof`` over random items.
Goals: p50 proof at most half the reference compact form; verify p50 under 20 ms at 1,000.
"""

from __future__ import annotations

import random
import statistics
import tempfile
from functools import partial
from pathlib import Path

from hedera_history.formats.hashing import HASH_SIZE
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.proofs.from_files import DirectoryProver
from hedera_history.proofs.transaction_ids import TransactionQuery
from hedera_history.proofs.trust import Trust
from hedera_history.proofs.verify import verify_proof

from bench.machine import reports_machine
from bench.timing import timed

BLOCK_SIZES = (100, 1_000, 10_000)
NODES = 10
SIZE_SAMPLES = 60
VERIFY_SAMPLES = 200
SIZE_GOAL = 0.5
VERIFY_GOAL_MS = 20.0
COMPACT_FRAMING = 4 + 16 + 2 * 60 + 16
"""Version, HAPI version, start and end hash objects, block number: the compact form's fixed part."""


def _block_dir(transactions: int, folder: Path) -> tuple[Path, bytes]:
    config = GeneratorConfig(
        nodes=NODES, periods=1, transactions=transactions, sidecars=False, rotate_key=False, seed=transactions
    )
    stream = generate_stream(config)
    write_stream(stream, folder)
    return folder, (folder / "address-book.bin").read_bytes()


def _node_files(folder: Path, suffix: str) -> list[bytes]:
    return [path.read_bytes() for path in sorted(folder.rglob(f"*{suffix}")) if "sidecar" not in path.parts]


def run(transactions: int, rng: random.Random) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as scratch:
        folder, book = _block_dir(transactions, Path(scratch))
        prover = DirectoryProver(folder, book)
        signatures = _node_files(folder, ".rcd_sig")
        record_file = min(_node_files(folder, ".rcd.gz"), key=len)
    block = prover.blocks[0]
    items = block.record.items
    trust = Trust.of_book(book)
    # Evenly spaced items (the first among them): their median is the median over every item.
    positions = sorted({round(i * (len(items) - 1) / (SIZE_SAMPLES - 1)) for i in range(SIZE_SAMPLES)})
    ours: dict[int, int] = {}
    compact: dict[int, int] = {}
    for position in positions:
        item = items[position]
        ours[position] = len(prover.transaction_proof(TransactionQuery.at(item.consensus_ns)))
        item_bytes = len(item.record_bytes) + len(item.transaction_bytes) + 8
        compact[position] = (
            COMPACT_FRAMING + (len(items) - 1) * HASH_SIZE + item_bytes + sum(map(len, signatures)) + len(book)
        )
    full = len(record_file) + sum(map(len, signatures)) + len(book)
    proofs = [
        prover.transaction_proof(TransactionQuery.at(items[rng.randrange(len(items))].consensus_ns)) for _ in range(20)
    ]
    times = [timed(partial(verify_proof, proofs[i % len(proofs)], trust)) for i in range(VERIFY_SAMPLES)]
    p50_ours = statistics.median(ours.values())
    p50_compact = statistics.median(compact.values())
    verify_ms = statistics.median(times) * 1000
    print(
        f"{transactions:>6} tx: ours p50 {p50_ours:>9,.0f} B (first item {ours[0]:>9,} B) | "
        f"reference compact p50 {p50_compact:>9,.0f} B | reference full {full:>10,} B | "
        f"ours/compact {p50_ours / p50_compact:.2f} | verify p50 {verify_ms:.2f} ms"
    )
    return p50_ours / p50_compact, verify_ms


@reports_machine
def main() -> None:
    rng = random.Random(7)
    print(f"{NODES} nodes; goals: ours/compact <= {SIZE_GOAL}, verify p50 < {VERIFY_GOAL_MS} ms at 1,000 tx")
    results = {size: run(size, rng) for size in BLOCK_SIZES}
    ratio = max(r for r, _ in results.values())
    verify_ms = results[1_000][1]
    print(
        f"size goal {'met' if ratio <= SIZE_GOAL else 'MISSED'} (worst p50 ratio {ratio:.2f}); "
        f"verify goal {'met' if verify_ms < VERIFY_GOAL_MS else 'MISSED'} ({verify_ms:.2f} ms at 1,000)"
    )


if __name__ == "__main__":
    main()
