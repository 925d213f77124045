"""``python -m bench.block_bench [--repeat N] [--samples S]``: block files verified per second and
per core, against the floor of the same run.

Per set of block files, in thread CPU time (``time.thread_time``, one thread: per second of one
core), the median of ``--samples`` runs:

- **floor**: what no verifying reader can skip: decompress (the library's one call), parse the
  ``Block`` with upb through a view whose items are plain bytes (no Python per field), SHA-384 of
  every item's bytes;
- **verify**: ``verify.blocks.verify_blocks`` over the same files as ``hedera-history verify`` runs
  it: bounded decompression, the hand walk keeping every item's wire bytes, the root hash in its
  layout, the footer links, for wrapped blocks the record file rebuilt and read and its RSA
  signatures counted against the book; TSS proofs are not checked here (``bench.tss_bench`` gives
  that check's cost, about 8–10 ms a block), so native blocks end ``unverified_proof``.

Sets: the real native blocks (``blocks/tss-schnorr``, HAPI 0.78, 254–3744 items), the real wrapped
record blocks (``blocks/wrapped-solo-4n``, RSA, 19–760 records), mainnet's wrapped genesis block
(3.3 MB, 15,000 state changes) and a synthetic native block: tss-schnorr block 0's items repeated
``--repeat`` times (its header, footer and proof once), zstd-compressed as the buckets store them.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zstandard
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from hedera_history.books.address_book import AddressBook
from hedera_history.books.json_book import parse_book_file
from hedera_history.formats.block import ItemKind, parse_block_file, serialize_block
from hedera_history.verify.blocks import verify_blocks

from bench.machine import reports_machine
from bench.timing import median_cpu

DEFAULT_DATA = Path("/work/shared/data/hedera")


@dataclass(frozen=True)
class BlockFileBytes:
    name: str
    data: bytes
    number: int | None = None

    def read(self) -> bytes:
        return self.data


@dataclass(frozen=True)
class BlockSet:
    label: str
    files: list[BlockFileBytes]
    book: AddressBook | None
    items: int
    decompressed: int


def _raw_block_type() -> Any:
    """``Block`` with its items declared ``bytes``: upb hands back each item's exact bytes."""
    field = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="bench/raw_block.proto", package="bench", syntax="proto3")
    raw = proto.message_type.add(name="RawBlock")
    raw.field.add(name="items", number=1, type=field.TYPE_BYTES, label=field.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("bench.RawBlock"))


RawBlock = _raw_block_type()


def _decompress(data: bytes) -> bytes:
    if data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    if data[:4] == bytes.fromhex("28b52ffd"):
        return zstandard.ZstdDecompressor().decompress(data)
    return data


def floor(files: Sequence[BlockFileBytes]) -> None:
    sha384 = hashlib.sha384
    for file in files:
        for item in RawBlock.FromString(_decompress(file.data)).items:
            sha384(item).digest()


def verify(block_set: BlockSet) -> None:
    for report in verify_blocks(block_set.files, block_set.book):
        if report.error is not None and report.error.kind != "unverified_proof":
            raise report.error


def _set(label: str, paths: list[Path], book: AddressBook | None) -> BlockSet:
    files = [BlockFileBytes(path.name, path.read_bytes()) for path in paths]
    return _measured(label, files, book)


def _measured(label: str, files: list[BlockFileBytes], book: AddressBook | None) -> BlockSet:
    blocks = [parse_block_file(file.data, file.name) for file in files]
    decompressed = sum(len(_decompress(file.data)) for file in files)
    return BlockSet(label, files, book, sum(len(block.items) for block in blocks), decompressed)


def synthetic(base: Path, repeat: int) -> BlockSet:
    """Block 0 of tss-schnorr with its body repeated ``repeat`` times (one header, footer, proof)."""
    block = parse_block_file(base.read_bytes(), base.name)
    kept = (ItemKind.BLOCK_HEADER, ItemKind.BLOCK_FOOTER, ItemKind.BLOCK_PROOF)
    body = [item.data for item in block.items if item.kind not in kept]
    ends = [item.data for item in block.items if item.kind in kept]
    content = serialize_block([ends[0], *(body * repeat), *ends[1:]])
    data = zstandard.ZstdCompressor(level=3).compress(content)
    return _measured(f"synthetic: tss-schnorr/0 body x{repeat}", [BlockFileBytes("0.blk.zstd", data)], None)


@reports_machine
def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.block_bench", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the real data folder")
    parser.add_argument("--repeat", type=int, default=20, help="how many times the synthetic block repeats its body")
    parser.add_argument("--samples", type=int, default=7)
    args = parser.parse_args(argv)
    blocks = args.data / "blocks"
    solo = blocks / "wrapped-solo-4n"
    sets = [
        _set("native, real (tss-schnorr 0-5)", sorted((blocks / "tss-schnorr").glob("*.blk.gz")), None),
        _set(
            "wrapped V6, real (wrapped-solo-4n 0-4, RSA)",
            sorted(solo.glob("*.blk.gz")),
            parse_book_file((solo / "address-book.json").read_bytes()),
        ),
        _set(
            "wrapped V2, mainnet genesis (RSA)",
            [blocks / "genesis" / "mainnet" / "0000000000000000000.blk.zstd"],
            parse_book_file((args.data / "addressbook" / "main-resources-mainnet.bin").read_bytes()),
        ),
        synthetic(blocks / "tss-schnorr" / "0.blk.gz", args.repeat),
    ]
    print(f"thread CPU, median of {args.samples} runs; per core = per CPU second of one thread")
    header = f"{'set':<46} {'blocks':>6} {'items':>8} {'MB':>6} {'floor ms':>9} {'verify ms':>10} {'x floor':>8}"
    print(header + f" {'blocks/s':>9} {'items/s':>10}")
    for block_set in sets:
        floor_seconds = median_cpu(lambda s=block_set: floor(s.files), args.samples)  # type: ignore[misc]
        verify_seconds = median_cpu(lambda s=block_set: verify(s), args.samples)  # type: ignore[misc]
        count = len(block_set.files)
        print(
            f"{block_set.label:<46} {count:>6} {block_set.items:>8} {block_set.decompressed / 1e6:>6.2f} "
            f"{floor_seconds * 1000:>9.2f} {verify_seconds * 1000:>10.2f} {verify_seconds / floor_seconds:>8.2f} "
            f"{count / verify_seconds:>9.1f} {block_set.items / verify_seconds:>10,.0f}"
        )


if __name__ == "__main__":
    main()
