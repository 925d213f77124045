"""``python -m bench.fuzz [--count N] [--seed S]``: a deterministic mutation fuzz of every parser
that reads bytes from outside.

The corpus is every real file under the data folder (record files V1, V2, V5, V6; sidecars;
signature files; address books, binary and JSON; block files; the mainnet missing-transactions
records) plus generated ones (a
V2 -> V5 -> V6 stream with sidecars, errata files and their signatures, balance snapshots). Each
mutation (bit flip, byte set, truncation, insertion, a 4-byte length field rewritten; for gzip
and zstd files also the same edits under the compression) is parsed with the project's reader, and the
outcome is judged:

- every failure must be a ``HistoryError`` (anything else is an *untyped error*);
- a record or sidecar file that still parses must give another file hash (or metadata hash), so
  the nodes' signatures refuse it, or exactly the same content (bytes outside the hash, such as a
  gzip header): anything else is an *accepted mutation of hashed bytes*;
- a signature file that still parses differently must no longer verify with its node's key;
- a block file that still reads must give another root hash, or hold exactly the bytes its root
  covers (a change outside them: a proof, whose signature is checked against the root).

Both bad counts must be 0. Mutation ``i`` of a run depends only on ``(seed, i)``.
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import json
import random
import struct
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import zstandard
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
from hedera_history.books.address_book import AddressBook, node_entry
from hedera_history.books.json_book import parse_book_file
from hedera_history.books.parse import parse_address_book
from hedera_history.derived.snapshot import parse_snapshot
from hedera_history.errata.codec import parse_errata_file
from hedera_history.errata.network import (
    missing_transaction_errata,
    parse_missing_transactions,
    spurious_transfer_errata,
)
from hedera_history.errors import FileNameError, HistoryError
from hedera_history.formats.block import parse_block_file
from hedera_history.formats.block_hash import block_hashes, subtree_of
from hedera_history.formats.compression import is_gzip
from hedera_history.formats.dispatch import parse_record_file, parse_sidecar_file, parse_signature_file
from hedera_history.formats.names import StreamFileKind, is_block_file_name, parse_stream_file_name
from hedera_history.formats.parsed_files import SignatureFile
from hedera_history.formats.zstd import is_zstd
from hedera_history.gen.config_and_output import GeneratorConfig
from hedera_history.gen.errata import generate_errata_scenario
from hedera_history.gen.stream import generate_stream
from hedera_history.gen.writer import genesis_snapshot
from hedera_history.verify.signatures import verify_node_signature

DEFAULT_DATA = Path("/work/shared/data/hedera")
MAX_DECOMPRESSED = 16 * 1024 * 1024

REJECTED = "rejected_typed"
IDENTICAL = "accepted_identical"
HASH_CHANGED = "accepted_hash_changed"
"""Parsed, but its file/metadata/sidecar hash changed: the nodes' signatures refuse it."""
SIGNATURE_REFUSED = "accepted_signature_refused"
"""A signature file that parsed differently and no longer verifies with its node's key."""
UNHASHED = "accepted_unhashed"
"""Kinds with no hash of their own to judge by (books, errata, snapshots, missing transactions)."""
UNTYPED = "untyped_errors"
DIFFERENT = "accepted_different"

_BOOKS = {
    "v1": "test-v1.bin",
    "v2": "test-resources-testnet.bin",
    "v5": "test-resources-testnet.bin",
    "v6": "test-v6-sidecar-4n.bin",
}


@dataclass(frozen=True)
class Target:
    """One file to mutate: what it is, its name, its bytes, and how to judge a mutated copy."""

    kind: str
    name: str
    data: bytes
    judge: Callable[[bytes], str]
    """Parses a mutated copy: the outcome, or raises what the parser raised."""


@dataclass
class FuzzReport:
    counts: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[str] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)
    files: int = 0
    seconds: float = 0.0

    @property
    def mutations(self) -> int:
        return sum(self.counts.values())

    @property
    def ok(self) -> bool:
        return self.counts[UNTYPED] == 0 and self.counts[DIFFERENT] == 0

    def lines(self) -> list[str]:
        rate = self.mutations / self.seconds if self.seconds else 0.0
        out = [
            f"corpus files: {self.files}",
            f"mutations: {self.mutations}",
            f"rejected (typed HistoryError): {self.counts[REJECTED]}",
            f"accepted, identical content: {self.counts[IDENTICAL]}",
            f"accepted, hash changed (signatures refuse): {self.counts[HASH_CHANGED]}",
            f"accepted, signature no longer verifies: {self.counts[SIGNATURE_REFUSED]}",
            f"accepted, kinds without a hash of their own: {self.counts[UNHASHED]}",
            f"untyped errors: {self.counts[UNTYPED]}",
            f"accepted mutations of hashed bytes: {self.counts[DIFFERENT]}",
            f"time: {self.seconds:.1f} s ({rate:,.0f} mutations/s)",
            "per kind: " + ", ".join(f"{kind} {n}" for kind, n in sorted(self.by_kind.items())),
        ]
        out.extend(f"  sample: {sample}" for sample in self.samples)
        return out


# ---- the corpus ----------------------------------------------------------------------------------


def corpus(data_root: Path = DEFAULT_DATA, *, generated: bool = True) -> list[Target]:
    """Every real file under ``data_root`` of a kind with a parser, and generated ones."""
    targets = list(_real_targets(data_root))
    if generated:
        targets.extend(_generated_targets())
    return targets


def _real_targets(root: Path) -> Iterable[Target]:
    books = {
        version: parse_address_book((root / "addressbook" / name).read_bytes()) for version, name in _BOOKS.items()
    }
    for path in sorted((root / "addressbook").glob("*.bin")):
        yield _book_target(path.name, path.read_bytes())
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        name, data = path.name, path.read_bytes()
        book = books.get(path.relative_to(root).parts[0])
        if name.endswith(".rcd_sig"):
            yield _signature_target(name, data, _keys_of(book, path.parent.name))
        elif name.endswith((".rcd", ".rcd.gz")) and _is_sidecar_name(name):
            yield _sidecar_target(name, data)  # <time>_NN.rcd[.gz], in a sidecar/ folder or beside its record
        elif name.endswith((".rcd", ".rcd.gz")):
            yield _record_target(name, data)
        elif is_block_file_name(name):
            yield _block_target(name, data)
        elif name == "address-book.json":
            yield _unhashed_target("address_book", name, data, parse_book_file)
        elif "missingtransactions" in path.as_posix() and name.endswith(".bin"):
            yield _unhashed_target("missing_transactions", name, data, _missing_errata)
    bundled = (
        Path(__file__).resolve().parents[1] / "shared/src/hedera_history/errata/data/mainnet-missing-transactions.bin"
    )
    if bundled.is_file():
        yield _unhashed_target(
            "missing_transactions",
            bundled.name,
            bundled.read_bytes(),
            _missing_errata,
        )


def _is_sidecar_name(name: str) -> bool:
    try:
        return parse_stream_file_name(name).kind is StreamFileKind.SIDECAR
    except FileNameError:
        return False


def _generated_targets() -> Iterable[Target]:
    stream = generate_stream(
        GeneratorConfig(nodes=4, periods=6, transactions=8, eras=((2, 2), (5, 2), (6, 2)), seed=11)
    )
    public = {
        stream.node(node_id).account: key.public_key()
        for (node_id, _generation), key in sorted(stream.keys.node_keys.items())
    }
    scenario = generate_errata_scenario()
    objects = {**stream.objects, **scenario.objects}
    for relative, data in sorted(objects.items()):
        name = relative.rsplit("/", 1)[-1]
        node = relative.split("/")[1].removeprefix("record") if relative.startswith("recordstreams/record") else ""
        if name.endswith((".rcd_sig", ".errata_sig")):
            yield _signature_target(name, data, [public[node]] if node in public else [])
        elif "/sidecar/" in relative:
            yield _sidecar_target(name, data)
        elif name.endswith((".rcd", ".rcd.gz")):
            yield _record_target(name, data)
        elif name.endswith(".errata"):
            yield _unhashed_target("errata", name, data, parse_errata_file)
    yield _book_target("generated-book.bin", stream.address_book)
    snapshot = genesis_snapshot(stream)
    json_bytes = json.dumps(snapshot).encode()
    yield _unhashed_target("snapshot", "snapshot.json", json_bytes, parse_snapshot)
    yield _unhashed_target("snapshot", "snapshot.json.gz", gzip.compress(json_bytes, mtime=0), parse_snapshot)
    yield _unhashed_target("snapshot", "snapshot.pb", _protobuf_snapshot(snapshot), parse_snapshot)


def _protobuf_snapshot(snapshot: dict[str, object]) -> bytes:
    importlib.import_module("hedera_history.hapi")  # registers the SDK's protobuf package first
    pb2 = importlib.import_module("hiero_sdk_python.hapi.streams.account_balance_file_pb2")
    message = pb2.AllAccountBalances()
    consensus_ns = int(str(snapshot["consensus_ns"]))
    message.consensusTimestamp.seconds, message.consensusTimestamp.nanos = divmod(consensus_ns, 1_000_000_000)
    balances = snapshot["balances"]
    assert isinstance(balances, dict)
    for account, amount in sorted(balances.items()):
        shard, realm, num = (int(part) for part in str(account).split("."))
        entry = message.allAccounts.add()
        entry.accountID.shardNum, entry.accountID.realmNum, entry.accountID.accountNum = shard, realm, num
        entry.hbarBalance = int(amount)
    data: bytes = message.SerializeToString()
    return data


def _missing_errata(data: bytes, name: str) -> list[object]:
    """The reader of the mainnet missing transactions, and the errata built from each item."""
    out: list[object] = []
    for item in parse_missing_transactions(data, name):
        out.extend((item, missing_transaction_errata(item, "mainnet"), spurious_transfer_errata(item, "mainnet")))
    return out


def _keys_of(book: AddressBook | None, folder: str) -> list[RSAPublicKey]:
    if book is None:
        return []
    node = book.by_account(folder.removeprefix("record"))
    return [node.public_key] if node is not None else []


# ---- judges --------------------------------------------------------------------------------------


def _record_target(name: str, data: bytes) -> Target:
    original = parse_record_file(data, name, max_decompressed=MAX_DECOMPRESSED)

    def judge(mutated: bytes) -> str:
        record = parse_record_file(mutated, name, max_decompressed=MAX_DECOMPRESSED)
        if record.file_hash != original.file_hash or record.metadata_hash != original.metadata_hash:
            return HASH_CHANGED
        same = (
            record.version,
            record.hapi_version,
            record.items,
            record.start_running_hash,
            record.end_running_hash,
            record.previous_file_hash,
            record.block_number,
            record.sidecars,
        ) == (
            original.version,
            original.hapi_version,
            original.items,
            original.start_running_hash,
            original.end_running_hash,
            original.previous_file_hash,
            original.block_number,
            original.sidecars,
        )
        return IDENTICAL if same else DIFFERENT

    return Target("record", name, data, judge)


def _sidecar_target(name: str, data: bytes) -> Target:
    original = parse_sidecar_file(data, name, max_decompressed=MAX_DECOMPRESSED)

    def judge(mutated: bytes) -> str:
        sidecar = parse_sidecar_file(mutated, name, max_decompressed=MAX_DECOMPRESSED)
        if sidecar.hash != original.hash:
            return HASH_CHANGED
        return IDENTICAL if sidecar.records == original.records else DIFFERENT

    return Target("sidecar", name, data, judge)


def _block_target(name: str, data: bytes) -> Target:
    original = _hashed_block(data, name)

    def judge(mutated: bytes) -> str:
        root, view = _hashed_block(mutated, name)
        if root != original[0]:
            return HASH_CHANGED
        return IDENTICAL if view == original[1] else DIFFERENT

    return Target("block", name, data, judge)


def _hashed_block(data: bytes, name: str) -> tuple[bytes, tuple[object, ...]]:
    """A block's root hash and every byte it covers."""
    block = parse_block_file(data, name, max_decompressed=MAX_DECOMPRESSED)
    hashes = block_hashes(block)
    hashed = tuple(item.data for index, item in enumerate(block.items) if subtree_of(item, index, name) is not None)
    return hashes.root, (block.timestamp_bytes, block.footer, hashes.layout, hashed)


def _signature_target(name: str, data: bytes, keys: list[RSAPublicKey]) -> Target:
    original = parse_signature_file(data, name)
    vouching = [key for key in keys if _verifies(original, key)]

    def judge(mutated: bytes) -> str:
        signature = parse_signature_file(mutated, name)
        if _signature_fields(signature) == _signature_fields(original):
            return IDENTICAL
        if not vouching:
            return UNHASHED  # no key at hand to judge it by (stand-alone signature files)
        return DIFFERENT if any(_verifies(signature, key) for key in vouching) else SIGNATURE_REFUSED

    return Target("signature", name, data, judge)


def _book_target(name: str, data: bytes) -> Target:
    return _unhashed_target("address_book", name, data, parse_address_book)


def _unhashed_target(kind: str, name: str, data: bytes, parse: Callable[[bytes, str], object]) -> Target:
    original = parse(data, name)

    def judge(mutated: bytes) -> str:
        return IDENTICAL if parse(mutated, name) == original else UNHASHED

    return Target(kind, name, data, judge)


def _signature_fields(sig: SignatureFile) -> tuple[object, ...]:
    return (sig.version, sig.file_hash, sig.file_signature, sig.metadata_hash, sig.metadata_signature)


def _verifies(sig: SignatureFile, key: RSAPublicKey) -> bool:
    try:
        verify_node_signature(sig, node_entry("0.0.3", 0, key))
    except HistoryError:
        return False
    return True


# ---- mutations -----------------------------------------------------------------------------------

_TOKENS = (b"1e999", b"-1e999", b"NaN", b"Infinity", b"-1", b"[]", b"{}", b'"', b"\\u0000", b"null", b"9" * 40)
"""Text a JSON reader meets badly (snapshots are JSON), spliced in over a few bytes."""
_INTERESTING = (0, 1, 2, 4, 47, 48, 127, 128, 255, 256, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF)


def mutate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One seeded edit of ``data``; for gzip and zstd files, half of the edits go under the compression."""
    if is_gzip(data) and rng.random() < 0.5:
        inner = gzip.decompress(data)
        edited, how = _edit(inner, rng)
        return gzip.compress(edited, mtime=0), f"inner {how}"
    if is_zstd(data) and rng.random() < 0.5:
        inner = zstandard.ZstdDecompressor().decompress(data)
        edited, how = _edit(inner, rng)
        return zstandard.ZstdCompressor().compress(edited), f"inner {how}"
    return _edit(data, rng)


def _edit(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    size = len(data)
    # Headers, version markers and length prefixes sit near the start: aim there half the time.
    pos = rng.randrange(min(size, 96)) if size and rng.random() < 0.5 else rng.randrange(max(size, 1))
    choice = rng.randrange(7)
    if choice == 6:
        token = rng.choice(_TOKENS)
        cut = pos + rng.randrange(0, 4)
        return data[:pos] + token + data[cut:], f"splice {token!r} over bytes {pos}..{cut}"
    if choice == 0 and size:
        bit = rng.randrange(8)
        return data[:pos] + bytes([data[pos] ^ (1 << bit)]) + data[pos + 1 :], f"flip bit {bit} of byte {pos}"
    if choice == 1 and size:
        value = rng.choice((0x00, 0xFF, 0x7F, 0x80, rng.randrange(256)))
        return data[:pos] + bytes([value]) + data[pos + 1 :], f"set byte {pos} to {value:#04x}"
    if choice == 2:
        cut = rng.randrange(size + 1)
        return data[:cut], f"truncate to {cut} bytes"
    if choice == 3:
        extra = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
        return data[:pos] + extra + data[pos:], f"insert {extra.hex()} at byte {pos}"
    if choice == 4 and size >= 4:
        at = min(pos, size - 4)
        (old,) = struct.unpack_from(">I", data, at)
        value = rng.choice((*_INTERESTING, old + 1, old - 1, old * 2, size, size + 1)) & 0xFFFFFFFF
        return data[:at] + struct.pack(">I", value) + data[at + 4 :], f"int32 at byte {at}: {old} -> {value}"
    if size:
        # A protobuf varint length: a byte after a length-delimited tag (wire type 2) rewritten.
        tags = [i for i in range(size - 1) if data[i] & 0x07 == 2 and data[i] < 0x80]
        at = rng.choice(tags) + 1 if tags else pos
        value = rng.choice((0, 1, 0x7F, 0xFF, rng.randrange(256)))
        return data[:at] + bytes([value]) + data[at + 1 :], f"varint at byte {at} set to {value:#04x}"
    return data + b"\x00", "append a zero byte"


# ---- the run -------------------------------------------------------------------------------------


def run(
    count: int, *, seed: int = 0, data_root: Path = DEFAULT_DATA, generated: bool = True, samples: int = 10
) -> FuzzReport:
    """``count`` mutations spread round-robin over the corpus, kind by kind."""
    targets = corpus(data_root, generated=generated)
    by_kind: dict[str, list[Target]] = {}
    for target in targets:
        by_kind.setdefault(target.kind, []).append(target)
    kinds = sorted(by_kind)
    report = FuzzReport(files=len(targets))
    started = time.perf_counter()
    for index in range(count):
        # Kinds take turns (a few errata files weigh as much as 113 missing transactions).
        of_kind = by_kind[kinds[index % len(kinds)]]
        target = of_kind[(index // len(kinds)) % len(of_kind)]
        rng = random.Random(f"{seed}/{index}")
        mutated, how = mutate(target.data, rng)
        try:
            outcome = target.judge(mutated)
        except HistoryError:
            outcome = REJECTED
        except Exception as e:  # noqa: BLE001 - the very thing being counted
            outcome = UNTYPED
            if len(report.samples) < samples:
                report.samples.append(
                    f"{target.kind} {target.name}: {how}: {type(e).__module__}.{type(e).__name__}: {e}"
                )
        if outcome == DIFFERENT and len(report.samples) < samples:
            report.samples.append(f"{target.kind} {target.name}: {how}: accepted with different content")
        report.counts[outcome] += 1
        report.by_kind[target.kind] += 1
    report.seconds = time.perf_counter() - started
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fuzz", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--count", type=int, default=100_000, help="mutated files to parse (default 100000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the real data folder")
    args = parser.parse_args(argv)
    report = run(args.count, seed=args.seed, data_root=args.data)
    for line in report.lines():
        print(line)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
