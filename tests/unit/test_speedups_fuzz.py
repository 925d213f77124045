"""The compiled core against the pure-Python code on damaged bytes: every entry point that reads bytes
(block items, a block's root hash and transaction groups, a native block's records, the V6 walk, a
record's rows and contract member, a transaction's body, a MutateRows answer, the TSS field
arithmetic), fed truncations, byte flips, random varints, huge declared lengths and nested garbage
spliced into real blocks, real record files and generated blocks. Each must give the Python path's
result or raise the Python path's error type.

Seeded and bounded here; ``HEDERA_HISTORY_FUZZ_ROUNDS`` (and ``HEDERA_HISTORY_FUZZ_SEED``) run
longer, as ``bench/sanitized_core.sh`` does under AddressSanitizer and UBSan."""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.message import DecodeError
from hedera_history import hapi, speedups
from hedera_history.errors import CorruptFileError, FormatError
from hedera_history.formats import block, block_hash, block_records, block_transactions, v6_items
from hedera_history.formats.block import parse_block, parse_block_file, serialize_block
from hedera_history.formats.block_hash import block_hashes
from hedera_history.formats.block_record_file import native_block_files
from hedera_history.formats.block_transactions import block_file_transactions
from hedera_history.formats.compression import gunzip
from hedera_history.formats.transactions import transaction_body
from hedera_history.formats.wire import read_varint, skip_field, varint
from hedera_history.gen import GeneratorConfig, generate_stream
from hedera_history.store import accounts, block_totals, rows
from hedera_history.store.accounts import decode_transaction_body
from hedera_history.store.bigtable_client import python_read_answer
from hedera_history.verify.tss import babyjubjub, poseidon

from tests.unit.formats.test_block_transaction_groups import _as_read
from tests.unit.formats.test_compiled_v6_walk import _assert_agree as _v6_walks_agree
from tests.unit.store.test_mutate_rows_answer import response
from tests.unit.store.test_transaction_rows import _both as _transaction_rows_both

pytestmark = pytest.mark.skipif(not speedups.available, reason="the compiled core is not built here")

ROUNDS = int(os.environ.get("HEDERA_HISTORY_FUZZ_ROUNDS", "1"))
"""How many times the bounded loops below run (1: a few seconds each)."""
SEED = int(os.environ.get("HEDERA_HISTORY_FUZZ_SEED", "0"))

_COMPILED_NAMES = (
    (block, "compiled_block_items"),
    (block_hash, "compiled_subtree_roots"),
    (block_transactions, "compiled_groups"),
    (block_records, "renumbered_fields"),
    (v6_items, "compiled_item_lists"),
    (v6_items, "compiled_record_items"),
    (rows, "compiled_transaction_rows"),
    (accounts, "compiled_body_bytes"),
    (block_totals, "compiled_result_member"),
)


@contextmanager
def _python_only() -> Iterator[None]:
    """Every reader on its pure-Python path (the names its module took from ``speedups``)."""
    saved = [(module, name, getattr(module, name)) for module, name in _COMPILED_NAMES]
    try:
        for module, name, _ in saved:
            setattr(module, name, None)
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)


def _outcome(run: Callable[..., object], *args: Any) -> object:
    """What run gives for args, or the type of what it raises."""
    try:
        return run(*args)
    except Exception as e:  # noqa: BLE001 - the error's type is the outcome compared
        return type(e)


# ---- mutations -------------------------------------------------------------------------------------

_HUGE_LENGTHS = (
    b"\xff\xff\xff\xff\x0f",
    b"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01",
    b"\xff" * 9 + b"\x01",
    b"\xff" * 11,
)


def _varint(rng: random.Random) -> bytes:
    """A varint, often of a surprising shape: long, overlong, unterminated."""
    size = rng.choice((1, 1, 2, 5, 10, 11))
    return bytes(rng.randrange(128, 256) for _ in range(size - 1)) + bytes(
        [rng.randrange(0, 256 if size > 10 else 128)]
    )


def mutated(data: bytes, rng: random.Random, depth: int = 0) -> bytes:
    """data with one damage: a truncation, a byte flipped, a varint, a huge length or a nested field
    of garbage spliced in, a slice repeated."""
    at = rng.randrange(len(data) + 1)
    choice = rng.randrange(7)
    if choice == 0:
        return data[:at]
    if choice == 1 and data:
        at = rng.randrange(len(data))
        flipped = rng.randrange(256) if rng.random() < 0.5 else data[at] ^ (1 << rng.randrange(8))
        return data[:at] + bytes([flipped]) + data[at + 1 :]
    if choice == 2:
        return data[:at] + _varint(rng) + data[at:]
    if choice == 3:
        tag = bytes([(rng.randrange(1, 16) << 3) | 2])
        return data[:at] + tag + rng.choice(_HUGE_LENGTHS) + data[at:]
    if choice == 4:
        inner = rng.randbytes(rng.randrange(12)) if depth > 1 else mutated(data[at : at + 64], rng, depth + 1)
        field = bytes([(rng.randrange(1, 32) << 3) | 2]) + bytes([len(inner)]) if len(inner) < 128 else b""
        return data[:at] + field + inner + data[at:]
    if choice == 5:
        stop = min(len(data), at + rng.randrange(1, 40))
        return data[:stop] + data[at:stop] + data[stop:]
    return data[:at] + bytes([(rng.randrange(1, 32) << 3) | rng.choice((0, 1, 2, 3, 4, 5, 6, 7))]) + data[at:]


def _damaged_item(items: list[bytes], rng: random.Random) -> list[bytes]:
    """The items with one of them damaged (the block's own framing intact, so the parse reaches it)."""
    at = rng.randrange(len(items))
    return [*items[:at], mutated(items[at], rng), *items[at + 1 :]]


# ---- sources ---------------------------------------------------------------------------------------


@cache
def _generated_blocks() -> tuple[bytes, ...]:
    config = GeneratorConfig(nodes=4, periods=2, transactions=12, seed=11, cutover_after=0, topics=1, tokens=True)
    stream = generate_stream(config)
    return tuple(parse_block_file(stream.objects[b.path], b.path).content() for b in stream.blocks)


def _real_blocks(hedera_data: Path) -> list[bytes]:
    paths = sorted((hedera_data / "blocks").rglob("*.blk.*"))
    assert paths, "no real blocks"
    return [parse_block_file(p.read_bytes(), p.name).content() for p in paths]


def _real_v6_contents(hedera_data: Path) -> list[bytes]:
    paths = sorted(hedera_data.glob("v6/recordstreams/record*/*.rcd.gz"))
    assert paths, "no real V6 record files"
    return [gunzip(p.read_bytes(), p.name, limit=1 << 30) for p in paths]


def _items_of(content: bytes) -> list[bytes]:
    return [item.data for item in parse_block(content, "3.blk").items]


# ---- what is compared ------------------------------------------------------------------------------


def _block_reading(content: bytes) -> object:
    """Everything read of a block's bytes: items, hashes, transactions and their records."""

    def read() -> object:
        parsed = parse_block(content, "3.blk")
        transactions = [_as_read(t) for t in block_file_transactions(parsed)]
        return parsed.items, block_hashes(parsed), transactions, _outcome(native_block_files, parsed)

    return _outcome(read)


def _assert_block_reads_the_same(content: bytes) -> None:
    compiled = _block_reading(content)
    with _python_only():
        python = _block_reading(content)
    assert compiled == python, content.hex()


def test_damaged_blocks_read_as_the_python_path_reads_them(hedera_data: Path) -> None:
    rng = random.Random(SEED + 1)
    sources = [*_real_blocks(hedera_data), *_generated_blocks()]
    for _ in range(150 * ROUNDS):
        source = rng.choice(sources)
        items = _items_of(source)
        damaged = serialize_block(_damaged_item(items, rng)) if rng.random() < 0.8 else mutated(source, rng)
        _assert_block_reads_the_same(damaged)


def test_every_truncation_of_a_blocks_items_reads_as_the_python_path(hedera_data: Path) -> None:
    # Every length of items up to 8 * ROUNDS bytes, evenly spaced ones of longer items.
    for content in (_generated_blocks()[1], min(_real_blocks(hedera_data), key=len)):
        items = _items_of(content)
        for at, item in enumerate(items):
            for cut in range(0, len(item), max(1, len(item) // (8 * ROUNDS))):
                _assert_block_reads_the_same(serialize_block([*items[:at], item[:cut], *items[at + 1 :]]))


def test_damaged_items_are_grouped_safely_even_where_the_parse_would_refuse_them(hedera_data: Path) -> None:
    # In a block the core groups only items its parse vouched for; here it reads them raw.
    assert speedups.block_transaction_groups is not None
    rng = random.Random(SEED + 10)
    sources = [*_real_blocks(hedera_data)[:8], *_generated_blocks()]
    for _ in range(200 * ROUNDS):
        items = _items_of(rng.choice(sources))
        for _ in range(rng.randrange(1, 4)):
            items = _damaged_item(items, rng)
        parsed = _outcome(parse_block, serialize_block(items), "3.blk")
        if isinstance(parsed, block.BlockFile):
            groups = speedups.block_transaction_groups(block_transactions._LAYOUT, parsed.items, None)
            assert groups is None or all(type(g) is block_transactions.BlockTransaction for g in groups)


def test_damaged_block_items_are_read_as_the_python_path_reads_them(hedera_data: Path) -> None:
    assert speedups.block_items is not None
    rng = random.Random(SEED + 2)
    items = [data for content in _real_blocks(hedera_data) for data in _items_of(content)]
    for _ in range(3000 * ROUNDS):
        data = mutated(rng.choice(items)[: rng.randrange(1, 400)], rng)
        (compiled,) = speedups.block_items(block.BlockItem, block.ITEM_SLOTS, [data])
        assert compiled == block._short_item(data), data.hex()


def test_damaged_v6_files_walk_as_the_python_reader(hedera_data: Path) -> None:
    rng = random.Random(SEED + 3)
    contents = _real_v6_contents(hedera_data)
    for _ in range(150 * ROUNDS):
        content = rng.choice(contents)
        _v6_walks_agree(content[:4] + mutated(content[4:], rng))


def _v6_pairs(hedera_data: Path) -> list[tuple[bytes, bytes]]:
    pairs = []
    for content in _real_v6_contents(hedera_data):
        parsed: Any = hapi.RecordStreamFile.FromString(content[4:])
        for item in parsed.record_stream_items:
            pairs.append((item.transaction.SerializeToString(), item.record.SerializeToString()))
    return pairs


def test_damaged_records_and_transactions_give_the_python_paths_rows(hedera_data: Path) -> None:
    assert speedups.transaction_rows is not None
    rng = random.Random(SEED + 4)
    pairs = _v6_pairs(hedera_data)
    place = (7, 3, 0, 0, 0, b"\x00", None)
    for _ in range(600 * ROUNDS):
        transaction, record = rng.choice(pairs)
        if rng.random() < 0.7:
            record = mutated(record, rng)
        else:
            transaction = mutated(transaction, rng)
        try:
            hapi.TransactionRecord.FromString(record)
        except DecodeError:  # never handed to the core (its file's parse refuses it): read safely, that is all
            speedups.transaction_rows(record, transaction, 5, [], ({}, {}, {}, {}), rows._CELL_NAMES, place)
            continue
        outcome = _outcome(_transaction_rows_both, record, transaction, 1_600_000_000_000_000_000, place)
        if isinstance(outcome, tuple):
            compiled, python, compiled_targets, python_targets = outcome
            if compiled is None:  # left to the Python path, nothing put
                assert compiled_targets == ({}, {}, {}, {}), (record.hex(), transaction.hex())
            else:
                assert compiled == python and compiled_targets == python_targets, (record.hex(), transaction.hex())


def _decoded_body(decode: Callable[[bytes], object], data: bytes) -> object:
    try:
        return decode(data)
    except CorruptFileError:
        return CorruptFileError


def test_damaged_transactions_give_the_decoders_body(hedera_data: Path) -> None:
    rng = random.Random(SEED + 5)
    transactions = [transaction for transaction, _ in _v6_pairs(hedera_data)]
    for _ in range(1500 * ROUNDS):
        data = mutated(rng.choice(transactions), rng)
        assert _decoded_body(decode_transaction_body, data) == _decoded_body(transaction_body, data), data.hex()


def _result_member(record: bytes) -> int | None:
    """The member the parser names, or None where it refuses the bytes (the core reads only the wire
    format, not the UTF-8 of strings it skips: it runs on records whose file the parser read)."""
    try:
        case = hapi.TransactionRecord.FromString(record).WhichOneof("body")
    except DecodeError:
        return None
    return {"contractCallResult": 7, "contractCreateResult": 8}.get(case or "", 0)


def test_damaged_records_name_the_parsers_contract_member(hedera_data: Path) -> None:
    assert speedups.record_result_member is not None
    rng = random.Random(SEED + 6)
    records = [record for _, record in _v6_pairs(hedera_data)]
    for _ in range(1500 * ROUNDS):
        data = mutated(rng.choice(records), rng)
        compiled, parsed = speedups.record_result_member(data), _result_member(data)
        assert compiled is None or parsed is None or compiled == parsed, data.hex()


def _renumbered(data: bytes, mapping: bytes) -> bytes | None:
    """What ``speedups.renumbered_fields`` gives, by the wire helpers: each field the mapping names
    (its first entry for that number and wire type) under its new number, or None where the bytes
    do not walk (a group among them, or a tag protobuf refuses: past 5 bytes or 32 bits)."""
    table: dict[tuple[int, int], int] = {}
    for at in range(0, len(mapping), 3):
        table.setdefault((mapping[at], mapping[at + 2]), mapping[at + 1])
    out, pos = [], 0
    try:
        while pos < len(data):
            tag, value = read_varint(data, pos, len(data), "tag", "fuzz")
            number, wire_type = tag >> 3, tag & 7
            if number == 0 or value - pos > 5 or tag >= 1 << 32:
                return None
            pos = skip_field(data, value, len(data), wire_type, field="value", name="fuzz")
            if (number, wire_type) in table:
                out.append(varint(table[number, wire_type] << 3 | wire_type) + data[value:pos])
    except FormatError:
        return None
    return b"".join(out)


def test_damaged_messages_are_renumbered_as_the_wire_walk_does(hedera_data: Path) -> None:
    assert speedups.renumbered_fields is not None
    rng = random.Random(SEED + 7)
    messages = [message for pair in _v6_pairs(hedera_data) for message in pair]
    for _ in range(1500 * ROUNDS):
        data = mutated(rng.choice(messages), rng)
        for mapping in (block_transactions.RESULT_FIELDS, block_transactions.BODY_FIELDS):
            assert speedups.renumbered_fields(data, mapping) == _renumbered(data, mapping), data.hex()


def test_damaged_mutate_rows_answers_are_refused_or_read_as_protobuf(hedera_data: Path) -> None:
    assert speedups.mutate_rows_answer is not None
    rng = random.Random(SEED + 8)
    answers = [response([(i, rng.choice((0, 0, 4, 10)), "x" * rng.randrange(4), False) for i in range(5)], False)]
    for _ in range(2000 * ROUNDS):
        data = mutated(rng.choice(answers), rng)
        compiled = speedups.mutate_rows_answer(data)
        python = _outcome(python_read_answer, data)
        assert compiled is None or compiled == python, data.hex()


def test_random_field_elements_multiply_and_permute_as_the_python_code() -> None:
    assert speedups.babyjubjub_multiply is not None and speedups.poseidon_permute is not None
    rng = random.Random(SEED + 9)
    for _ in range(12 * ROUNDS):
        x, y, scalar = rng.randrange(babyjubjub.Q), rng.randrange(babyjubjub.Q), rng.randrange(1 << 256)
        point = babyjubjub.Point(x, y)  # seldom on the curve: the steps are the same wherever it is
        product = speedups.babyjubjub_multiply(point.uncompressed(), scalar.to_bytes(32, "little"))
        python = babyjubjub._affine(babyjubjub._multiply(babyjubjub._extended(point), scalar))
        assert product is None or product == python.uncompressed()
        state = [rng.randrange(poseidon.BN254_R) for _ in range(poseidon.WIDTH)]
        assert poseidon.permute(state) == poseidon.python_permute(state)
    for size in (0, 31, 63, 65):
        with pytest.raises(TypeError):
            speedups.babyjubjub_multiply(bytes(size), bytes(32))
    with pytest.raises(ValueError):
        speedups.babyjubjub_multiply(b"\xff" * 64, bytes(32))
    constants, mds = poseidon._encoded_constants()
    for encoded in (bytes(31), bytes(32 * 9), b"\xff" * 32 * poseidon.WIDTH):
        with pytest.raises(ValueError):
            speedups.poseidon_permute(encoded, constants, mds, poseidon.FULL_ROUNDS)
    with pytest.raises(ValueError):
        speedups.poseidon_permute(bytes(32 * poseidon.WIDTH), constants[:-1], mds, poseidon.FULL_ROUNDS)
