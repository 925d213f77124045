"""Flipping any byte of a proof's record, transaction, hashes, signatures, sidecars or book — any
bytes field anywhere in the bundle, trust chain steps included, and a corrected transaction's
errata file, node signature files, served entry and errata chain steps — or any byte of its
encoding makes verification fail with a typed reason (property-tested with hypothesis)."""

from __future__ import annotations

import gzip
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor
from hedera_history import hapi
from hedera_history.errors import ProofError, ProofFormatError
from hedera_history.formats.hashing import sha384
from hedera_history.proofs.codec import decode_bundle, encode_bundle
from hedera_history.proofs.from_files import DirectoryProver
from hedera_history.proofs.from_store import StoreProver
from hedera_history.proofs.transaction_ids import TransactionQuery
from hedera_history.proofs.trust import Trust
from hedera_history.proofs.verify import verify_proof
from hedera_history.proto_gen.proof_pb2 import ProofBundle
from hedera_history.store.reader import HistoryReader
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.data_dir import real_data_dir
from tests.unit.proofs.conftest import real_book_path
from tests.unit.proofs.errata_world import build_errata_world

Path_ = tuple[tuple[str, int | None], ...]
CASES = ("v1", "v2", "v5", "v5-unpacked-book", "v6-sidecars", "rotation", "rotation-pinned")
_cache: dict[str, tuple[bytes, Trust, Fraction]] = {}


def _proof(case: str, rotating_dir: Path) -> tuple[bytes, Trust, Fraction]:
    if case in _cache:
        return _cache[case]
    ratio = Fraction(1, 3)
    if case.startswith("rotation"):
        book = (rotating_dir / "address-book.bin").read_bytes()
        ratio = Fraction(1)  # every signature counts, the rotated node's new one included
        prover = DirectoryProver(rotating_dir, book, ratio=ratio)
        last = prover.blocks[-1]
        proof = prover.transaction_proof(
            TransactionQuery.at(last.record.items[len(last.record.items) // 2].consensus_ns)
        )
        trust = Trust.of_hash(sha384(book).hex()) if case.endswith("pinned") else Trust.of_book(book)
    else:
        folder = case.split("-", maxsplit=1)[0]
        book = real_book_path(folder).read_bytes()
        if case.endswith("unpacked-book"):
            book = _upper_case_keys(book)
        prover = DirectoryProver(real_data_dir() / folder, book)
        block = next(b for b in prover.blocks if b.sidecars) if case == "v6-sidecars" else prover.blocks[-1]
        with_sidecars = {r.consensus_ns for s in block.sidecars for r in s.records}
        item = next((i for i in block.record.items if i.consensus_ns in with_sidecars), block.record.items[0])
        proof = prover.transaction_proof(TransactionQuery.at(item.consensus_ns), sidecars=bool(with_sidecars))
        trust = Trust.of_book(book)
    verify_proof(proof, trust, ratio=ratio)  # the untouched proof verifies
    _cache[case] = (proof, trust, ratio)
    return _cache[case]


def _upper_case_keys(book: bytes) -> bytes:
    """A book whose keys are upper-case hex: valid, but not packable (unpacking writes lower case)."""
    message = hapi.NodeAddressBook.FromString(book)
    for address in message.nodeAddress:
        address.RSA_PubKey = address.RSA_PubKey.upper()
    data: bytes = message.SerializeToString()
    return data


def bytes_fields(message: Any, path: Path_ = ()) -> list[Path_]:
    """The path of every non-empty bytes field in ``message``, nested messages included."""
    found: list[Path_] = []
    for descriptor, value in message.ListFields():
        if descriptor.type == FieldDescriptor.TYPE_BYTES:
            if descriptor.is_repeated:
                found.extend((*path, (descriptor.name, index)) for index, item in enumerate(value) if item)
            else:
                found.append((*path, (descriptor.name, None)))
        elif descriptor.type == FieldDescriptor.TYPE_MESSAGE:
            if descriptor.is_repeated:
                for index, element in enumerate(value):
                    found.extend(bytes_fields(element, (*path, (descriptor.name, index))))
            else:
                found.extend(bytes_fields(value, (*path, (descriptor.name, None))))
    return found


def flip(bundle: ProofBundle, path: Path_, position: int, mask: int) -> None:
    target: Any = bundle
    for name, index in path[:-1]:
        target = getattr(target, name) if index is None else getattr(target, name)[index]
    name, index = path[-1]
    value = bytearray(getattr(target, name) if index is None else getattr(target, name)[index])
    value[position % len(value)] ^= mask
    if index is None:
        setattr(target, name, bytes(value))
    else:
        getattr(target, name)[index] = bytes(value)


@pytest.mark.parametrize("case", CASES)
def test_every_case_has_the_fields_it_should(case: str, rotating_dir: Path) -> None:
    proof, _, _ = _proof(case, rotating_dir)
    names = {step[0] for path in bytes_fields(decode_bundle(proof)) for step in path}
    assert {"signature", "signed_hash"} <= names
    assert {"checkpoint_book"} <= names if case.endswith("unpacked-book") else {"book_without_keys", "keys"} <= names
    if case in ("v5", "rotation", "rotation-pinned"):
        assert {"transaction", "record", "running_hash_before", "start_running_hash"} <= names
    if case.startswith("rotation"):
        assert {"steps", "item_hashes"} <= names  # the middle item: hashes after it
    if case == "v6-sidecars":
        assert {"record_file", "content"} <= names


@pytest.mark.parametrize("case", CASES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_flipping_a_byte_of_any_field_fails(case: str, rotating_dir: Path, data: st.DataObject) -> None:
    proof, trust, ratio = _proof(case, rotating_dir)
    bundle = decode_bundle(proof)
    path = data.draw(st.sampled_from(bytes_fields(bundle)), label="field")
    position = data.draw(st.integers(min_value=0, max_value=1 << 20), label="position")
    mask = data.draw(st.integers(min_value=1, max_value=255), label="mask")
    flip(bundle, path, position, mask)
    with pytest.raises(ProofError):
        verify_proof(encode_bundle(bundle), trust, ratio=ratio)


@pytest.mark.parametrize("case", CASES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_flipping_any_byte_of_the_encoding_fails(case: str, rotating_dir: Path, data: st.DataObject) -> None:
    proof, trust, ratio = _proof(case, rotating_dir)
    position = data.draw(st.integers(min_value=0, max_value=len(proof) - 1), label="position")
    mask = data.draw(st.integers(min_value=1, max_value=255), label="mask")
    tampered = bytearray(proof)
    tampered[position] ^= mask
    with pytest.raises(ProofError):
        verify_proof(bytes(tampered), trust, ratio=ratio)


@pytest.mark.parametrize("case", CASES)
def test_a_field_this_version_does_not_know_is_refused(case: str, rotating_dir: Path) -> None:
    """Unknown fields survive a re-encoding, so the canonical check alone let them through."""
    proof, trust, ratio = _proof(case, rotating_dir)
    unknown_varint_field_999 = b"\xb8\x3e\x01"
    with pytest.raises(ProofFormatError, match="does not know"):
        verify_proof(proof + unknown_varint_field_999, trust, ratio=ratio)


def test_a_flipped_tag_cannot_turn_a_transaction_proof_into_a_block_proof(rotating_dir: Path) -> None:
    """Found by the byte-flip test: bit flips 0x18 at byte 4 made the subject's transaction field
    (tag 0x0a) a block field (0x12) whose bytes were then unknown fields, and the rest verified."""
    proof, trust, ratio = _proof("v5-unpacked-book", rotating_dir)
    assert proof[4] == 0x0A
    tampered = bytearray(proof)
    tampered[4] ^= 0x18
    with pytest.raises(ProofFormatError):
        verify_proof(bytes(tampered), trust, ratio=ratio)


def test_a_gzip_wrapped_record_file_is_refused(rotating_dir: Path) -> None:
    """Only the signed bytes: a gzip header (time, OS byte) is covered by no signature."""
    proof, trust, ratio = _proof("v6-sidecars", rotating_dir)
    bundle = decode_bundle(proof)
    bundle.block.record_file = gzip.compress(bundle.block.record_file)
    with pytest.raises(ProofFormatError):
        verify_proof(encode_bundle(bundle), trust, ratio=ratio)


@pytest.fixture(scope="module")
def corrected_proofs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[bytes, Trust]]:
    """A replaced and a removed transaction's proofs (``errata_world``), with the council trusted."""
    world = build_errata_world(tmp_path_factory.mktemp("errata-world"))
    prover = StoreProver(HistoryReader(world.gateway), world.book)
    proofs = {}
    for role in ("update", "delete"):
        proof = prover.transaction_proof(TransactionQuery.at(getattr(world, role).original.consensus_ns))
        verify_proof(proof, world.trust())  # the untouched proof verifies
        proofs[role] = (proof, world.trust())
    return proofs


@pytest.mark.parametrize("role", ["update", "delete"])
def test_a_corrected_proof_has_the_correction_fields(
    role: str, corrected_proofs: dict[str, tuple[bytes, Trust]]
) -> None:
    proof, _ = corrected_proofs[role]
    names = {step[0] for path in bytes_fields(decode_bundle(proof)) for step in path}
    assert {"errata_file", "signature_file", "steps"} <= names
    assert ("served" in names) == (role == "update")


@pytest.mark.parametrize("role", ["update", "delete"])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_flipping_a_byte_of_any_correction_field_fails(
    role: str, corrected_proofs: dict[str, tuple[bytes, Trust]], data: st.DataObject
) -> None:
    proof, trust = corrected_proofs[role]
    bundle = decode_bundle(proof)
    paths = [path for path in bytes_fields(bundle) if path[0][0] == "correction"]
    path = data.draw(st.sampled_from(paths), label="field")
    position = data.draw(st.integers(min_value=0, max_value=1 << 20), label="position")
    mask = data.draw(st.integers(min_value=1, max_value=255), label="mask")
    flip(bundle, path, position, mask)
    with pytest.raises(ProofError):
        verify_proof(encode_bundle(bundle), trust)
