"""Proofs of transactions in native blocks (docs/proofs.md, "Block-stream proofs"): item paths to the
block root, state proofs as one path to the later block's signed root, the ledger id as the only
trust root; the block node's proof shape both ways; every byte flip refused with a typed reason."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.errors import (
    ProofError,
    ProofFormatError,
    ProofHashMismatchError,
    ProofLedgerError,
    ProofSubjectError,
    ProofTssError,
)
from hedera_history.formats.block import BlockFile, parse_block_file
from hedera_history.formats.block_hash import Layout, block_hashes, leaf_hash, streaming_root
from hedera_history.formats.block_transactions import BlockTransaction, block_transactions
from hedera_history.gen import GeneratorConfig, generate_stream
from hedera_history.gen.config_and_output import LEDGER_PUBLICATION_FILE
from hedera_history.proofs.block_contents import block_contents_proofs, encode_message, transaction_item_proof
from hedera_history.proofs.block_paths import fold, item_paths, state_proof_path, streaming_path
from hedera_history.proofs.codec import decode_bundle, encode_bundle
from hedera_history.proofs.native import ledger_publication_indexes, native_transaction_bundle, transaction_id_text
from hedera_history.proofs.transaction_ids import TransactionQuery
from hedera_history.proofs.trust import Trust
from hedera_history.proofs.verify_any import verify_any_proof
from hedera_history.proofs.verify_native import NativeVerdict, steps
from hedera_history.proto_gen.proof_pb2 import ProvenBlockItem
from hedera_history.verify.tss import merkle_paths, publication_from_signed_transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.data_dir import real_data_dir

BLOCK_5_ROOT = "1c417b370965dd85"


def _tss_blocks() -> list[BlockFile]:
    folder = real_data_dir() / "blocks" / "tss-schnorr"
    return [parse_block_file((folder / f"{n}.blk.gz").read_bytes(), f"{n}.blk.gz") for n in range(6)]


_BLOCKS: list[BlockFile] = []


@pytest.fixture(scope="module")
def blocks(hedera_data: Path) -> list[BlockFile]:
    if not _BLOCKS:
        _BLOCKS.extend(_tss_blocks())
    return _BLOCKS


def _publication(block_zero: BlockFile) -> bytes:
    return block_zero.items[ledger_publication_indexes(block_zero)[0]].payload


def _ledger_id(block_zero: BlockFile) -> bytes:
    published = publication_from_signed_transaction(_publication(block_zero))
    assert published is not None
    return published.ledger_id


def _transactions(block: BlockFile) -> list[BlockTransaction]:
    found = block_transactions([item.message() for item in block.items])
    return [t for t in found if not t.in_batch and t.item_indexes]


def _query(transaction: BlockTransaction) -> TransactionQuery:
    tid = transaction.body.transactionID
    return TransactionQuery.parse(transaction_id_text(transaction), nonce=tid.nonce, scheduled=tid.scheduled)


def _proof(blocks: list[BlockFile], number: int, which: int = 3) -> bytes:
    transaction = _transactions(blocks[number])[which]
    return encode_bundle(native_transaction_bundle(blocks[number], _query(transaction), block_zero=blocks[0]))


# ---- paths (pure) ------------------------------------------------------------------------------------


def test_a_streaming_path_leads_every_node_to_the_root() -> None:
    for count in range(1, 40):
        nodes = [hashlib.sha384(bytes([i])).digest() for i in range(count)]
        root = streaming_root(nodes)
        assert all(fold(nodes[i], streaming_path(nodes, i)) == root for i in range(count))


@pytest.mark.parametrize("layout", [Layout.L16, Layout.L8])
def test_every_hashed_item_has_a_path_to_its_block_root(blocks: list[BlockFile], layout: Layout) -> None:
    for block in blocks[1:]:
        hashes = block_hashes(block, layout)
        indexes = [i for i, item in enumerate(block.items) if item.name not in ("block_footer", "block_proof")]
        paths = item_paths(block, hashes, indexes)
        assert all(fold(leaf_hash(block.items[i].data), paths.paths[i]) == hashes.root for i in indexes)


def test_a_state_proof_is_one_path_from_the_block_root_to_block_5s_root(blocks: list[BlockFile]) -> None:
    for block in blocks[1:5]:
        root = block_hashes(block).root
        state_proof = block.proofs[0].message().block_state_proof
        steps = state_proof_path(merkle_paths(state_proof.paths), root)
        assert fold(root, steps).hex().startswith(BLOCK_5_ROOT)


# ---- our bundle ------------------------------------------------------------------------------------


def test_a_block_2_transaction_verifies_through_block_5_with_only_the_ledger_id(blocks: list[BlockFile]) -> None:
    data = _proof(blocks, 2)
    verdict = verify_any_proof(data, Trust().with_ledger(_ledger_id(blocks[0]).hex()))
    assert isinstance(verdict, NativeVerdict)
    assert verdict.block.number == 2 and verdict.block.signed_root.hex().startswith(BLOCK_5_ROOT)
    assert verdict.ledger_proven_in_bundle
    assert "in block 2" in verdict.line() and "a later block's state proof" in verdict.line()
    with_publication = Trust().with_ledger(_ledger_id(blocks[0]).hex(), _publication(blocks[0]))
    assert not verify_any_proof(data, with_publication).ledger_proven_in_bundle  # type: ignore[union-attr]


def test_a_block_0_transaction_verifies_by_the_blocks_own_signature(blocks: list[BlockFile]) -> None:
    bundle = decode_bundle(_proof(blocks, 0))
    assert not bundle.native_block.HasField("ledger") and not bundle.native_block.root_path
    verdict = verify_any_proof(encode_bundle(bundle), Trust().with_ledger(_ledger_id(blocks[0]).hex()))
    assert isinstance(verdict, NativeVerdict) and verdict.block.root == verdict.block.signed_root


def test_another_ledger_id_is_refused(blocks: list[BlockFile]) -> None:
    with pytest.raises(ProofLedgerError):
        verify_any_proof(_proof(blocks, 2), Trust().with_ledger("11" * 32))
    with pytest.raises(ProofLedgerError):
        verify_any_proof(_proof(blocks, 2), Trust.of_hash("00" * 48))


def test_a_subject_the_items_do_not_hold_is_refused(blocks: list[BlockFile]) -> None:
    bundle = decode_bundle(_proof(blocks, 2))
    bundle.subject.transaction.consensus_ns += 1
    with pytest.raises(ProofSubjectError):
        verify_any_proof(encode_bundle(bundle), Trust().with_ledger(_ledger_id(blocks[0]).hex()))


def test_a_subject_whose_transaction_id_does_not_parse_is_refused_as_a_subject(blocks: list[BlockFile]) -> None:
    bundle = decode_bundle(_proof(blocks, 2))
    bundle.subject.transaction.transaction_id = bundle.subject.transaction.transaction_id.replace("-", " ", 1)
    with pytest.raises(ProofSubjectError):
        verify_any_proof(encode_bundle(bundle), Trust().with_ledger(_ledger_id(blocks[0]).hex()))


def test_an_item_of_another_block_is_refused(blocks: list[BlockFile]) -> None:
    bundle = decode_bundle(_proof(blocks, 2))
    other = decode_bundle(_proof(blocks, 3))
    bundle.native_block.items[1].CopyFrom(other.native_block.items[1])
    with pytest.raises(ProofHashMismatchError):
        verify_any_proof(encode_bundle(bundle), Trust().with_ledger(_ledger_id(blocks[0]).hex()))


def test_an_item_cannot_be_claimed_for_the_later_block_that_signs_it(blocks: list[BlockFile]) -> None:
    """Block 2's item path continues to block 5's signed root; shown with block 5's header and
    mountain top (and no root path), every item folds to the signed root, but block 2's item does not
    pass through block 5's inputs subtree: refused, so a proof cannot name the wrong block."""
    bundle = decode_bundle(_proof(blocks, 2))
    five = decode_bundle(_proof(blocks, 5)).native_block
    native = bundle.native_block
    for item in native.items[1:]:
        item.siblings.extend(native.root_path)
    del native.root_path[:]
    native.items[0].CopyFrom(five.items[0])
    del native.mountain_top[:]
    native.mountain_top.extend(five.mountain_top)
    assert {leaf_fold(item) for item in native.items} == {block_hashes(blocks[5]).root}
    with pytest.raises(ProofHashMismatchError):
        verify_any_proof(encode_bundle(bundle), Trust().with_ledger(_ledger_id(blocks[0]).hex()))


def leaf_fold(item: ProvenBlockItem) -> bytes:
    return fold(leaf_hash(item.block_item), steps(item.siblings))


_FLIP_CACHE: dict[str, bytes] = {}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(position=st.floats(min_value=0, max_value=1, exclude_max=True), bit=st.integers(min_value=0, max_value=7))
def test_flipping_any_byte_of_a_block_stream_proof_is_refused_with_a_typed_reason(
    blocks: list[BlockFile], position: float, bit: int
) -> None:
    data = _FLIP_CACHE.setdefault("block 2", _proof(blocks, 2))
    at = int(position * len(data))
    flipped = data[:at] + bytes([data[at] ^ (1 << bit)]) + data[at + 1 :]
    with pytest.raises(ProofError) as refused:
        verify_any_proof(flipped, Trust().with_ledger(_ledger_id(blocks[0]).hex()))
    assert type(refused.value) is not ProofError


def test_an_unused_signer_flag_set_is_refused_in_both_shapes(blocks: list[BlockFile]) -> None:
    """The TSS check ignores signer flags past the roster's length (as the reference does); a proof
    must carry them as zeros, or it would have many encodings."""
    data = _proof(blocks, 2)
    shape = encode_message(transaction_item_proof(decode_bundle(data)))
    signature = decode_bundle(data).native_block.block_signature
    flags_at = 1096 + 1632
    roster = 4
    trust = Trust().with_ledger(_ledger_id(blocks[0]).hex(), _publication(blocks[0]))
    for encoded in (data, shape):
        start = encoded.index(signature) + flags_at
        for at in range(start + roster, start + 128):
            flipped = encoded[:at] + bytes([encoded[at] ^ 1]) + encoded[at + 1 :]
            with pytest.raises(ProofFormatError):
                verify_any_proof(flipped, trust)


# ---- the block node's shape ------------------------------------------------------------------------


def test_every_item_of_our_proof_checks_in_the_block_nodes_shape(blocks: list[BlockFile]) -> None:
    trust = Trust().with_ledger(_ledger_id(blocks[0]).hex(), _publication(blocks[0]))
    bundle = decode_bundle(_proof(blocks, 2))
    for proof in block_contents_proofs(bundle):
        assert verify_any_proof(encode_message(proof), trust).line().startswith("verified: block item")
    response = encode_message(transaction_item_proof(bundle))
    assert "signed_transaction (transaction " in verify_any_proof(response, trust).line()
    with pytest.raises(ProofLedgerError):
        verify_any_proof(response, Trust().with_ledger(_ledger_id(blocks[0]).hex()))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(position=st.floats(min_value=0, max_value=1, exclude_max=True), bit=st.integers(min_value=0, max_value=7))
def test_flipping_any_byte_of_the_block_nodes_shape_is_refused(
    blocks: list[BlockFile], position: float, bit: int
) -> None:
    data = _FLIP_CACHE.setdefault("shape", encode_message(transaction_item_proof(decode_bundle(_proof(blocks, 2)))))
    at = int(position * len(data))
    flipped = data[:at] + bytes([data[at] ^ (1 << bit)]) + data[at + 1 :]
    trust = Trust().with_ledger(_ledger_id(blocks[0]).hex(), _publication(blocks[0]))
    with pytest.raises((ProofFormatError, ProofHashMismatchError, ProofTssError, ProofLedgerError)):
        verify_any_proof(flipped, trust)


# ---- a generated block stream, and the command line ----------------------------------------------------


def test_a_generated_native_blocks_transaction_proves() -> None:
    stream = generate_stream(GeneratorConfig(nodes=4, periods=3, transactions=8, seed=5, cutover_after=0, sign_every=3))
    parsed = [parse_block_file(stream.objects[b.path], b.path) for b in stream.blocks]
    transaction = _transactions(parsed[1])[0]
    data = encode_bundle(native_transaction_bundle(parsed[1], _query(transaction), block_zero=parsed[0]))
    verdict = verify_any_proof(data, Trust().with_ledger(_ledger_id(parsed[0]).hex()))
    assert isinstance(verdict, NativeVerdict) and verdict.block.number == 1


def test_proof_get_and_verify_on_the_real_blocks(blocks: list[BlockFile], tmp_path: Path) -> None:
    transaction = _transactions(blocks[2])[3]
    folder = str(real_data_dir() / "blocks" / "tss-schnorr")
    out = tmp_path / "tx.proof"
    runner = CliRunner()
    args = ["proof", "get", "--from-dir", folder, "--transaction", transaction_id_text(transaction), "-o", str(out)]
    assert runner.invoke(cli, args, catch_exceptions=False).exit_code == 0
    ledger = _ledger_id(blocks[0]).hex()
    verified = runner.invoke(cli, ["proof", "verify", str(out), "--ledger-id", ledger], catch_exceptions=False)
    assert verified.exit_code == 0 and "in block 2" in verified.output
    refused = runner.invoke(cli, ["proof", "verify", str(out), "--ledger-id", "22" * 32], catch_exceptions=False)
    assert refused.exit_code == 12
    shape = tmp_path / "tx.bn"
    assert runner.invoke(cli, [*args[:-2], "--block-node", "-o", str(shape)], catch_exceptions=False).exit_code == 0
    publication = tmp_path / "publication.bin"
    publication.write_bytes(_publication(blocks[0]))
    checked = runner.invoke(
        cli,
        ["proof", "verify", str(shape), "--ledger-id", ledger, "--ledger-publication", str(publication)],
        catch_exceptions=False,
    )
    assert checked.exit_code == 0 and "block node proof shape" in checked.output


def _generated_transaction(out: Path, number: int) -> str:
    path = next((out / "demo" / "block").rglob(f"*{number:03d}.blk.zstd"))
    return transaction_id_text(_transactions(parse_block_file(path.read_bytes(), path.name))[0])


@pytest.mark.parametrize(
    ("flags", "number", "ledger_in_proof"),
    [
        (("--block-stream", "--sign-every", "2"), 0, True),  # block 0 proven through block 1's signature
        (("--block-stream", "--sign-every", "2"), 2, True),
        (("--cutover-after", "2", "--wrapped-blocks", "0"), 3, False),  # block 0 is a record file
    ],
)
def test_a_generated_streams_native_transaction_through_the_command_line(
    tmp_path: Path, flags: tuple[str, ...], number: int, ledger_in_proof: bool
) -> None:
    out = tmp_path / "out"
    runner = CliRunner()
    generated = runner.invoke(cli, ["generate", str(out), "--periods", "4", "--transactions", "8", *flags], env={})
    assert generated.exit_code == 0, generated.output
    publication = out / LEDGER_PUBLICATION_FILE
    published = publication_from_signed_transaction(publication.read_bytes())
    assert published is not None
    proof_file = tmp_path / "tx.proof"
    transaction = _generated_transaction(out, number)
    got = runner.invoke(
        cli, ["proof", "get", "--from-dir", str(out), "--transaction", transaction, "-o", str(proof_file)], env={}
    )
    assert got.exit_code == 0, got.output
    ledger = ["--ledger-id", published.ledger_id.hex()]
    verified = runner.invoke(cli, ["proof", "verify", str(proof_file), *ledger], env={})
    assert verified.exit_code == (0 if ledger_in_proof else 12), verified.output
    held = runner.invoke(cli, ["proof", "verify", str(proof_file), *ledger, "--ledger-publication", str(publication)])
    assert held.exit_code == 0 and f"in block {number}" in held.output, held.output
