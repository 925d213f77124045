"""Every block file under ``blocks/``: what it holds, its root hash, its chain links, its wrapped
record file byte for byte and its signatures with the book the data README names; each with a
negative twin refused with a typed reason."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hedera_history.books.json_book import parse_book_file
from hedera_history.cli.verify_cmd import verify
from hedera_history.errors import BrokenChainError
from hedera_history.formats.block import BlockFile, ItemKind, parse_block, parse_block_file, serialize_block
from hedera_history.formats.block_hash import Layout, block_hashes
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.wire import singular_spans
from hedera_history.formats.wrapped_record import rebuild_wrapped_record
from hedera_history.verify.block_chain import BlockChain, Link
from hedera_history.verify.block_proofs import node_signatures
from hedera_history.verify.blocks import BlockReport, verify_blocks
from hedera_history.verify.consensus import count_signatures

from tests.unit.formats.block_files import item, record_file_proof_item

from .block_golden import (
    ALL_BLOCKS,
    BLOCKS,
    EMPTY_TREE,
    GENESIS_TESTNET_SIGNED_HASH_PREFIX,
    MIRROR_NODE,
    MIRROR_NODE_ASSERTED,
    MIRROR_NODE_PREVIOUS,
    SOLO,
    TSS,
    WRAPPED,
    BlockGolden,
    WrappedGolden,
)


def _read(hedera_data: Path, path: str) -> BlockFile:
    return parse_block_file((hedera_data / path).read_bytes(), path)


def _root_matches(root: bytes, golden: str | tuple[str, str]) -> bool:
    if isinstance(golden, str):
        return root.hex() == golden
    prefix, suffix = golden
    return root.hex().startswith(prefix) and root.hex().endswith(suffix)


@pytest.mark.parametrize("golden", ALL_BLOCKS, ids=lambda g: g.path.removeprefix(f"{BLOCKS}/"))
def test_every_block_file_holds_what_the_readme_lists(hedera_data: Path, golden: BlockGolden) -> None:
    block = _read(hedera_data, golden.path)
    assert (block.number, str(block.hapi_version)) == (golden.number, golden.hapi)
    assert block.item_counts() == golden.items
    (proof,) = block.proofs
    assert (proof.kind, len(proof.data), proof.block) == (golden.proof, golden.proof_size, golden.number)
    if golden.signature_size is not None:
        message = proof.message()
        state_proof = proof.kind == "block_state_proof"
        tss = message.block_state_proof.signed_block_proof if state_proof else message.signed_block_proof
        assert len(tss.block_signature) == golden.signature_size
    if golden.timestamp_ns is not None:
        assert block.timestamp_ns == golden.timestamp_ns
    hashes = block_hashes(block)
    assert hashes.layout.value == golden.layout
    assert _root_matches(hashes.root, golden.root)
    other = Layout.L8 if hashes.layout is Layout.L16 else Layout.L16
    assert not _root_matches(block_hashes(block, other).root, golden.root)  # the other layout matches none


@pytest.mark.parametrize("chain", [TSS, SOLO], ids=["tss-schnorr", "wrapped-solo-4n"])
def test_every_link_of_a_chain_from_block_0_holds(hedera_data: Path, chain: tuple[BlockGolden, ...]) -> None:
    run = BlockChain()
    for golden in chain:
        block = _read(hedera_data, golden.path)
        links, error = run.link(block, block_hashes(block).root)
        assert error is None and (links.previous_root, links.all_block_hashes_root) == (Link.OK, Link.OK)
        if golden.number == 1:  # the tree over block 0 alone is block 0's root
            assert block.footer.root_hash_of_all_block_hashes_tree.hex() == chain[0].root
    first = _read(hedera_data, chain[0].path)
    assert {first.footer.previous_block_root_hash.hex(), first.footer.root_hash_of_all_block_hashes_tree.hex()} == {
        EMPTY_TREE
    }


def test_the_mirror_node_blocks_link_7_to_8_and_name_what_the_readme_lists(hedera_data: Path) -> None:
    blocks = {golden.number: _read(hedera_data, golden.path) for golden in MIRROR_NODE}
    for number, previous in MIRROR_NODE_PREVIOUS.items():
        assert blocks[number].footer.previous_block_root_hash.hex() == previous
    assert blocks[8].footer.previous_block_root_hash == block_hashes(blocks[7]).root


@pytest.mark.parametrize("number", sorted(MIRROR_NODE_ASSERTED))
def test_the_values_the_mirror_node_asserts(hedera_data: Path, number: int) -> None:
    golden = next(g for g in MIRROR_NODE if g.number == number)
    block = _read(hedera_data, golden.path)
    times = [
        (m.consensus_timestamp.seconds * 10**9 + m.consensus_timestamp.nanos)
        for m in (i.message().transaction_result for i in block.items if i.kind == ItemKind.TRANSACTION_RESULT)
    ] or [block.timestamp_ns]
    rounds = [i.message().round_header.round_number for i in block.items if i.kind == ItemKind.ROUND_HEADER]
    transactions = sum(1 for i in block.items if i.kind == ItemKind.TRANSACTION_RESULT)
    consensus, count, (first_round, last_round) = MIRROR_NODE_ASSERTED[number]
    assert (min(times), max(times), transactions) == (consensus, consensus, count)
    assert (rounds[0], rounds[-1], len(rounds)) == (first_round, last_round, last_round - first_round + 1)


def _proof_version(block: BlockFile) -> int:
    return int(block.proofs[0].message().signed_record_file_proof.version)


def _plain(data: bytes) -> bytes:
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


@pytest.mark.parametrize("golden", WRAPPED, ids=lambda g: g.block.removeprefix(f"{BLOCKS}/"))
def test_every_wrapped_record_file_is_rebuilt_and_signed(hedera_data: Path, golden: WrappedGolden) -> None:
    block = _read(hedera_data, golden.block)
    assert block.record_file is not None
    wrapped = rebuild_wrapped_record(block.record_file, _proof_version(block), golden.block)
    record = wrapped.record
    assert (wrapped.version, wrapped.creation_ns, len(record.items)) == (
        golden.record_version,
        golden.creation_ns,
        golden.records,
    )
    _, contents = singular_spans(block.record_file, 0, len(block.record_file), ((1, "t"), (2, "c")), what="rf", name="")
    assert contents is not None and contents[1] - contents[0] == golden.contents_size
    if golden.record_version == 6:
        assert len(wrapped.data) == golden.contents_size + 4
    assert block.timestamp_ns == record.consensus_start
    if golden.signed_hash is not None:
        assert record.file_hash.hex() == golden.signed_hash
    elif golden.block.endswith("testnet/0000000000000000000.blk.zstd"):
        assert record.file_hash.hex().startswith(GENESIS_TESTNET_SIGNED_HASH_PREFIX)
    if golden.original is not None:
        original = _plain((hedera_data / golden.original).read_bytes())
        assert wrapped.data == original
        parsed = parse_record_file((hedera_data / golden.original).read_bytes(), Path(golden.original).name)
        assert (parsed.file_hash, parsed.start_running_hash, parsed.end_running_hash, parsed.items) == (
            record.file_hash,
            record.start_running_hash,
            record.end_running_hash,
            record.items,
        )
    if golden.sidecar is not None:
        assert wrapped.sidecar_data == (_plain((hedera_data / golden.sidecar).read_bytes()),)
        assert wrapped.sidecars[0].hash == record.sidecars[0].hash
    signatures = node_signatures(
        block.proofs[0].message().signed_record_file_proof.record_file_signatures, record.file_hash, golden.block
    )
    assert tuple(identity.node_id for identity in signatures) == golden.signers
    book = parse_book_file((hedera_data / golden.book).read_bytes(), golden.book)
    result = count_signatures(signatures, book)
    assert result.reached and sorted(node.node_id for node, _ in result.agreeing) == sorted(golden.signers)
    for other, verified in golden.other_books.items():
        other_result = count_signatures(signatures, parse_book_file((hedera_data / other).read_bytes(), other))
        assert len(other_result.agreeing) == verified


def _verify(hedera_data: Path, paths: list[str], book: str | None) -> list[BlockReport]:
    class Source:
        def __init__(self, path: str, data: bytes | None = None) -> None:
            self.name, self.number, self._data = path, None, data or (hedera_data / path).read_bytes()

        def read(self) -> bytes:
            return self._data

    loaded = parse_book_file((hedera_data / book).read_bytes(), book) if book else None
    return list(verify_blocks([Source(path) for path in paths], loaded))


def test_the_solo_chain_verifies_end_to_end(hedera_data: Path) -> None:
    reports = _verify(hedera_data, [g.path for g in SOLO], f"{BLOCKS}/wrapped-solo-4n/address-book.json")
    assert [r.error for r in reports] == [None] * 5
    assert [r.signature.node_ids if r.signature else None for r in reports] == [g.signers for g in WRAPPED[:5]]


def test_tss_blocks_are_linked_but_never_counted_verified(hedera_data: Path) -> None:
    reports = _verify(hedera_data, [g.path for g in TSS], None)
    assert [r.error.kind if r.error else None for r in reports] == ["unverified_proof"] * 6
    assert all(r.links is not None and r.links.ok for r in reports)


def test_the_pre_tss_placeholder_is_recognised(hedera_data: Path) -> None:
    reports = _verify(hedera_data, [g.path for g in MIRROR_NODE], None)
    assert [r.error.kind if r.error else None for r in reports] == ["unverified_proof"] * 3
    assert all(r.signature is not None and r.signature.placeholder for r in reports)


# ---- negative twins ------------------------------------------------------------------------------


def _with_item(block: BlockFile, index: int, data: bytes) -> bytes:
    items = [i.data for i in block.items]
    items[index] = data
    return serialize_block(items)


def _flip_last(data: bytes) -> bytes:
    return data[:-1] + bytes([data[-1] ^ 1])


def test_one_byte_of_one_item_flipped_changes_the_root_and_breaks_the_next_link(hedera_data: Path) -> None:
    block = _read(hedera_data, TSS[2].path)
    index = next(i for i, item in enumerate(block.items) if item.kind == ItemKind.SIGNED_TRANSACTION)
    tampered = parse_block(_with_item(block, index, _flip_last(block.items[index].data)), "2.blk")
    assert block_hashes(tampered).root != block_hashes(block).root
    run = BlockChain()
    for current in (_read(hedera_data, TSS[1].path), tampered, _read(hedera_data, TSS[3].path)):
        links, error = run.link(current, block_hashes(current).root)
    assert isinstance(error, BrokenChainError) and links.previous_root is Link.BROKEN


def test_a_placeholder_over_another_root_is_a_hash_mismatch(hedera_data: Path) -> None:
    block = _read(hedera_data, MIRROR_NODE[0].path)
    index = next(i for i, item in enumerate(block.items) if item.kind == ItemKind.ROUND_HEADER)
    data = _with_item(block, index, _flip_last(block.items[index].data))
    (report,) = _verify_bytes(hedera_data, data, None)
    assert report.error is not None and report.error.kind == "hash_mismatch"


def _verify_bytes(hedera_data: Path, data: bytes, book: str | None) -> list[BlockReport]:
    class Source:
        name, number = "tampered.blk", None

        def read(self) -> bytes:
            return data

    loaded = parse_book_file((hedera_data / book).read_bytes(), book) if book else None
    return list(verify_blocks([Source()], loaded))


def test_signatures_from_another_block_are_refused(hedera_data: Path) -> None:
    one, two = (_read(hedera_data, SOLO[n].path) for n in (1, 2))
    message = two.proofs[0].message().signed_record_file_proof
    moved = record_file_proof_item(
        1, message.version, [(s.node_id, s.signatures_bytes) for s in message.record_file_signatures]
    )
    proof_index = next(i for i, item in enumerate(one.items) if item.kind == ItemKind.BLOCK_PROOF)
    (report,) = _verify_bytes(
        hedera_data, _with_item(one, proof_index, moved), f"{BLOCKS}/wrapped-solo-4n/address-book.json"
    )
    assert report.error is not None and report.error.kind == "no_consensus"
    assert report.signature is not None and report.signature.node_ids == ()


def test_a_changed_record_in_a_wrapped_block_is_refused(hedera_data: Path) -> None:
    block = _read(hedera_data, SOLO[3].path)
    assert block.record_file is not None
    original = block.items[1]
    record_bytes = rebuild_wrapped_record(block.record_file, 6, "3.blk").record.items[0].record_bytes
    at = original.data.index(record_bytes) + len(record_bytes) - 1
    tampered = original.data[:at] + bytes([original.data[at] ^ 1]) + original.data[at + 1 :]
    (report,) = _verify_bytes(
        hedera_data, _with_item(block, 1, tampered), f"{BLOCKS}/wrapped-solo-4n/address-book.json"
    )
    assert report.error is not None and report.error.kind in ("running_hash_mismatch", "corrupt_file")


def test_a_wrapped_block_with_the_wrong_book_has_no_consensus(hedera_data: Path) -> None:
    reports = _verify(hedera_data, [WRAPPED[5].block], "addressbook/test-v1.bin")
    assert reports[0].error is not None and reports[0].error.kind == "no_consensus"


def test_an_item_kind_nobody_knows_where_to_hash_is_refused(hedera_data: Path) -> None:
    block = _read(hedera_data, TSS[4].path)
    data = serialize_block([block.items[0].data, item(21, b"\x0a\x00"), *(i.data for i in block.items[1:])])
    (report,) = _verify_bytes(hedera_data, data, None)
    assert report.error is not None and report.error.kind == "unsupported_item"


def test_verify_on_the_real_folders(hedera_data: Path) -> None:
    solo = hedera_data / BLOCKS / "wrapped-solo-4n"
    ok = CliRunner().invoke(verify, [str(solo), "--address-book", str(solo / "address-book.json")], env={})
    assert ok.exit_code == 0, ok.output
    assert ok.output.count("OK   ") == 5
    tss = CliRunner().invoke(verify, [str(hedera_data / BLOCKS / "tss-schnorr"), "--json"], env={})
    assert tss.exit_code == 0, tss.output
    signatures = [json.loads(line)["signature"] for line in tss.output.splitlines()]
    assert [(s["scheme"], s["verified"], s["weight"], s["total_weight"]) for s in signatures] == [
        ("tss", True, 3, 4)
    ] * 6
    assert [s["proof"] for s in signatures] == ["signed_block_proof", *["block_state_proof"] * 4, "signed_block_proof"]


def test_verify_without_block_zero_never_passes_a_tss_block(hedera_data: Path, tmp_path: Path) -> None:
    """Block 0 publishes the roster; without it (or --ledger-publication) nothing is counted verified."""
    for number in (4, 5):
        name = f"{number}.blk.gz"
        (tmp_path / name).write_bytes((hedera_data / BLOCKS / "tss-schnorr" / name).read_bytes())
    result = CliRunner().invoke(verify, [str(tmp_path), "--json"], env={})
    assert result.exit_code == 1
    kinds = [json.loads(line)["error_kind"] for line in result.output.splitlines()]
    assert kinds[-1] == "tss_unverifiable_proof"


def test_verify_with_another_ledger_id_fails(hedera_data: Path) -> None:
    folder = str(hedera_data / BLOCKS / "tss-schnorr")
    result = CliRunner().invoke(verify, [folder, "--json"], env={"HEDERA_HISTORY_LEDGER_ID": "00" * 32})
    assert result.exit_code == 1
    assert all(not json.loads(line)["ok"] for line in result.output.splitlines())
