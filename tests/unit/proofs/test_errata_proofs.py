"""Proofs of transactions an errata corrected: the bundle proves the original signed record and
carries the errata, its council signatures, the node signature files that ratified it and the
book at the errata's time (through the 0.0.102 rotation in between); both builders lay out the
same bytes; each broken part fails with its own reason; uncorrected proofs are what they were."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hedera_history import hapi
from hedera_history.books.parse import parse_address_book
from hedera_history.cli.proof_cmd import EXIT_CODES, proof
from hedera_history.errata.codec import encode_errata_body, encode_errata_file, record_stream_item_bytes
from hedera_history.errata.errata_file import CouncilSignature
from hedera_history.errata.ingest import ErrataStatus, process_errata_object
from hedera_history.errata.log import file_row_key, signatures_in_row
from hedera_history.errata.signing import node_signature_file
from hedera_history.errors import (
    ProofCouncilError,
    ProofErrataMissingError,
    ProofErrataSubjectError,
    ProofRatificationError,
)
from hedera_history.formats.dispatch import parse_signature_file
from hedera_history.formats.signature import write_signature_v6
from hedera_history.gen.errata import errata_objects
from hedera_history.proofs.codec import decode_bundle, encode_bundle
from hedera_history.proofs.from_files import DirectoryProver, VerifiedBlocksProver
from hedera_history.proofs.from_store import StoreProver
from hedera_history.proofs.transaction_ids import TransactionQuery
from hedera_history.proofs.trust import Trust
from hedera_history.proofs.verify import transaction_id_text, verify_proof
from hedera_history.proto_gen.proof_pb2 import ProofBundle
from hedera_history.sources.local import LocalSource
from hedera_history.store import schema as s
from hedera_history.store.gateway import RowQuery
from hedera_history.store.reader import HistoryReader

from tests.unit.proofs.errata_world import AppliedErrata, ErrataGateway, ErrataWorld, build_errata_world


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> ErrataWorld:
    return build_errata_world(tmp_path_factory.mktemp("errata-world"))


@pytest.fixture(scope="module")
def files(world: ErrataWorld) -> DirectoryProver:
    return DirectoryProver(world.root, world.book)


def _store(world: ErrataWorld) -> StoreProver:
    return StoreProver(HistoryReader(world.gateway), world.book)


def _proof(world: ErrataWorld, applied: AppliedErrata) -> bytes:
    return _store(world).transaction_proof(TransactionQuery.at(applied.original.consensus_ns))


def _query_by_id(item_record: bytes) -> TransactionQuery:
    record = hapi.TransactionRecord.FromString(item_record)
    tid = record.transactionID
    return TransactionQuery.parse(transaction_id_text(tid), nonce=tid.nonce, scheduled=tid.scheduled)


@pytest.mark.parametrize("role", ["update", "delete"])
def test_both_builders_give_the_same_corrected_proof_and_it_verifies(
    world: ErrataWorld, files: DirectoryProver, role: str
) -> None:
    applied = getattr(world, role)
    query = TransactionQuery.at(applied.original.consensus_ns)
    data = _store(world).transaction_proof(query)
    assert data == files.transaction_proof(query)
    verdict = verify_proof(data, world.trust())
    assert verdict.correction is not None
    assert verdict.correction.errata_id == applied.errata.errata_id
    assert verdict.correction.book_updates == 1  # the rotation between the block and the errata
    assert verdict.book_updates == 0  # the block itself is before it: the original as signed
    kind = "UPDATE" if role == "update" else "DELETE"
    assert f"original verified; corrected by errata {applied.errata.errata_id} ({kind}), authorised by council 4/5" in (
        verdict.line()
    )
    bundle = decode_bundle(data)
    assert bundle.correction.errata_file == applied.errata.data
    assert len(bundle.correction.node_signatures) == 3  # the fewest holding more than 2/3 of 4 equal stakes
    assert bundle.correction.HasField("served") == (role == "update")
    proven = [e.item for e in bundle.block.items.entries if e.WhichOneof("entry") == "item"]
    assert [(i.transaction, i.record) for i in proven] == [
        (applied.original.transaction_bytes, applied.original.record_bytes)
    ]


def test_the_served_entry_is_the_correct_item_and_the_store_finds_it_by_id(world: ErrataWorld) -> None:
    applied = world.update
    assert applied.correct is not None
    data = _store(world).transaction_proof(_query_by_id(applied.correct.record_bytes))
    assert data == _proof(world, applied)
    served = decode_bundle(data).correction.served
    assert (served.transaction, served.record) == (applied.correct.transaction_bytes, applied.correct.record_bytes)


def test_uncorrected_proofs_are_byte_identical_to_those_without_errata(
    world: ErrataWorld, files: DirectoryProver
) -> None:
    plain = VerifiedBlocksProver(world.blocks, world.book)  # no errata at all: the proofs as before
    store = _store(world)
    corrected = {world.update.original.consensus_ns, world.delete.original.consensus_ns}
    checked = 0
    for block in world.blocks:
        for item in block.record.items:
            if item.consensus_ns in corrected:
                continue
            query = TransactionQuery.at(item.consensus_ns)
            before = plain.transaction_proof(query)
            assert files.transaction_proof(query) == before
            assert store.transaction_proof(query) == before
            assert not decode_bundle(before).HasField("correction")
            checked += 1
    assert checked > 40


def test_the_errata_log_keeps_the_ratifying_signature_files_once(world: ErrataWorld) -> None:
    errata = world.update.errata
    rows = list(world.gateway.read_rows(s.ERRATA_LOG, RowQuery(keys=(file_row_key(errata.errata_id),))))
    kept = signatures_in_row({c.qualifier: c.value for c in rows[0].cells})
    assert tuple(sorted(kept)) == world.signers
    for raw in kept.values():
        signature = parse_signature_file(raw, "kept")
        assert (signature.file_hash, signature.metadata_hash) == (errata.file_hash, errata.body_hash)
    # the errata again (a late signature upload): already applied, nothing written
    book = parse_address_book(world.book_at(errata.consensus_ns))
    assert isinstance(world.gateway, ErrataGateway)
    writes = len(world.gateway.mutate_calls)
    outcome = process_errata_object(
        LocalSource(str(world.root)), world.update.path, world.settings, world.gateway, book
    )
    assert outcome.status is ErrataStatus.ALREADY_APPLIED
    assert len(world.gateway.mutate_calls) == writes


def test_a_signature_arriving_after_the_errata_was_applied_is_kept_too(tmp_path: Path) -> None:
    world = build_errata_world(tmp_path)  # its own: this one changes the store
    errata = world.update.errata
    late = next(node for node in world.stream.nodes if node.node_id not in world.signers)
    key = world.stream.signing_key(late.node_id, world.blocks[-1].block_number)
    objects = errata_objects(
        world.stream, errata.consensus_ns, errata.data, {late.account: node_signature_file(errata.data, key)}
    )
    for path, content in objects.items():
        if not path.endswith(".errata"):
            (world.root / path).parent.mkdir(parents=True, exist_ok=True)
            (world.root / path).write_bytes(content)
    book = parse_address_book(world.book_at(errata.consensus_ns))
    outcome = process_errata_object(
        LocalSource(str(world.root)), world.update.path, world.settings, world.gateway, book
    )
    assert outcome.status is ErrataStatus.ALREADY_APPLIED
    rows = list(world.gateway.read_rows(s.ERRATA_LOG, RowQuery(keys=(file_row_key(errata.errata_id),))))
    kept = signatures_in_row({c.qualifier: c.value for c in rows[0].cells})
    assert sorted(kept) == sorted((*world.signers, late.node_id))
    verdict = verify_proof(_proof(world, world.update), world.trust())
    assert verdict.correction is not None and verdict.correction.stake == 3


def test_a_corrected_proof_needs_a_trusted_council(world: ErrataWorld) -> None:
    data = _proof(world, world.update)
    with pytest.raises(ProofCouncilError, match="--council"):
        verify_proof(data, Trust.of_book(world.book))
    stranger = "11" * 32
    with pytest.raises(ProofCouncilError, match="0 valid council signature"):
        verify_proof(data, Trust.of_book(world.book).with_council(stranger))


def _tampered(world: ErrataWorld, applied: AppliedErrata, change: str) -> ProofBundle:
    bundle = decode_bundle(_proof(world, applied))
    correction = bundle.correction
    errata = applied.errata
    if change == "body":
        other = applied.original  # the body now says the original was right; the signatures stay
        body = encode_errata_body(errata.time_of_error, record_stream_item_bytes(other))
        correction.errata_file = encode_errata_file(errata.consensus_ns, body, errata.council_signatures)
        correction.served.transaction, correction.served.record = other.transaction_bytes, other.record_bytes
    elif change == "council signature":
        signatures = list(errata.council_signatures)
        first = signatures[0]
        signatures[0] = CouncilSignature(first.public_key, bytes([first.signature[0] ^ 1]) + first.signature[1:])
        correction.errata_file = encode_errata_file(errata.consensus_ns, errata.body_bytes, signatures)
    elif change == "node signature":
        entry = correction.node_signatures[1]
        parsed = parse_signature_file(entry.signature_file, "node")
        assert parsed.metadata_hash is not None and parsed.metadata_signature is not None
        flipped = bytes([parsed.file_signature[0] ^ 1]) + parsed.file_signature[1:]
        entry.signature_file = write_signature_v6(
            parsed.file_hash, flipped, parsed.metadata_hash, parsed.metadata_signature
        )
    elif change == "no errata":
        correction.errata_file = b""
        del correction.node_signatures[:]
    elif change == "served":
        correction.served.record = applied.original.record_bytes
    elif change == "without the rotation":
        del correction.steps[:]
    else:
        raise AssertionError(change)
    return bundle


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ("body", ProofCouncilError),
        ("council signature", ProofCouncilError),
        ("node signature", ProofRatificationError),
        ("no errata", ProofErrataMissingError),
        ("served", ProofErrataMissingError),
        ("without the rotation", ProofRatificationError),
    ],
)
def test_each_broken_part_fails_with_its_reason(world: ErrataWorld, change: str, reason: type[Exception]) -> None:
    bundle = _tampered(world, world.update, change)
    with pytest.raises(reason):
        verify_proof(encode_bundle(bundle), world.trust())


def test_an_errata_about_another_time_is_refused(world: ErrataWorld) -> None:
    bundle = decode_bundle(_proof(world, world.update))
    bundle.correction.CopyFrom(decode_bundle(_proof(world, world.delete)).correction)
    with pytest.raises(ProofErrataSubjectError):
        verify_proof(encode_bundle(bundle), world.trust())


def test_proof_verify_takes_the_council_and_names_the_errata(world: ErrataWorld, tmp_path: Path) -> None:
    bundle_file = tmp_path / "corrected.proof"
    bundle_file.write_bytes(_proof(world, world.update))
    book_file = tmp_path / "book.bin"
    book_file.write_bytes(world.book)
    keys_file = tmp_path / "council.keys"
    keys_file.write_text("# the errata council\n" + world.council.replace(",", "\n") + "\n")
    runner = CliRunner()
    args = ["verify", str(bundle_file), "--trust", str(book_file)]
    ok = runner.invoke(proof, [*args, "--council", str(keys_file)])
    assert ok.exit_code == 0, ok.output
    assert f"corrected by errata {world.update.errata.errata_id} (UPDATE)" in ok.output
    refused = runner.invoke(proof, args)
    assert refused.exit_code == EXIT_CODES[ProofCouncilError]
    assert "refused (proof_council)" in refused.output
