"""Verifying block files: wrapped record blocks signed with RSA, TSS proofs through the seam, and
every way a block is refused, each with its typed reason."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from hedera_history.books.address_book import AddressBook
from hedera_history.errors import VerificationError
from hedera_history.formats.block import BlockFile, BlockProofItem, ItemKind, serialize_block
from hedera_history.formats.block_hash import block_root_hash
from hedera_history.formats.wire import length_delimited
from hedera_history.verify.block_proofs import TssSignature
from hedera_history.verify.block_verified import is_unsigned_placeholder
from hedera_history.verify.blocks import BlockCheckOptions, BlockReport, verify_blocks
from hedera_history.verify.signatures import sign_hash

from tests.unit.formats.block_files import (
    BlockSpec,
    chain,
    footer_item,
    header_item,
    item,
    linked_blocks,
    parsed,
    record_file_item,
    record_file_proof_item,
    tss_proof_item,
    wrapped_block,
)
from tests.unit.formats.writers import make_items, write_v6_content


@dataclass(frozen=True)
class Source:
    data: bytes
    name: str = "block.blk"
    number: int | None = None

    def read(self) -> bytes:
        return self.data


def _v6(number: int, **options: object) -> bytes:
    return write_v6_content(make_items(3), block_number=number, **options)  # type: ignore[arg-type]


def _wrapped(
    keys: dict[int, rsa.RSAPrivateKey], signers: tuple[int, ...] = (3, 4), *, number: int = 0, v6: bytes | None = None
) -> bytes:
    content = _v6(number) if v6 is None else v6
    digest = hashlib.sha384(content).digest()
    signatures = [(account - 3, sign_hash(keys[account], digest)) for account in signers]
    record = record_file_item(content[4:], 1_650_000_000 * 10**9)
    return wrapped_block(number, record, record_file_proof_item(number, 6, signatures))


def _one(data: bytes, book: AddressBook | None = None, **options: object) -> BlockReport:
    (report,) = verify_blocks([Source(data)], book, BlockCheckOptions(**options))  # type: ignore[arg-type]
    return report


def test_a_wrapped_record_block_signed_by_a_third_of_the_stake_verifies(
    node_keys: dict[int, rsa.RSAPrivateKey], book: AddressBook
) -> None:
    report = _one(_wrapped(node_keys), book)
    assert report.ok, report.error
    assert report.signature is not None and report.wrapped is not None
    assert (report.signature.scheme, report.signature.verified, report.signature.node_ids) == ("rsa", True, (0, 1))
    assert (report.signature.stake, report.signature.total_stake) == (2, 4)
    assert report.wrapped.data == _v6(0) and report.wrapped.record.file_hash == hashlib.sha384(_v6(0)).digest()


def test_too_little_stake_is_no_consensus(node_keys: dict[int, rsa.RSAPrivateKey], book: AddressBook) -> None:
    report = _one(_wrapped(node_keys, (3,)), book)
    assert report.error is not None and report.error.kind == "no_consensus"
    assert report.signature is not None and report.signature.node_ids == (0,) and not report.signature.verified


def test_a_signature_over_another_block_is_refused(node_keys: dict[int, rsa.RSAPrivateKey], book: AddressBook) -> None:
    other = hashlib.sha384(_v6(1)).digest()
    signatures = [(account - 3, sign_hash(node_keys[account], other)) for account in (3, 4, 5)]
    data = wrapped_block(0, record_file_item(_v6(0)[4:], 10**18), record_file_proof_item(0, 6, signatures))
    report = _one(data, book)
    assert report.error is not None and report.error.kind == "no_consensus"
    assert report.signature is not None
    assert dict(report.signature.outcomes)["0.0.3"].startswith("bad signature")


def test_a_node_the_book_does_not_list_never_counts(
    node_keys: dict[int, rsa.RSAPrivateKey], spare_key: rsa.RSAPrivateKey, book: AddressBook
) -> None:
    digest = hashlib.sha384(_v6(0)).digest()
    data = wrapped_block(
        0, record_file_item(_v6(0)[4:], 10**18), record_file_proof_item(0, 6, [(9, sign_hash(spare_key, digest))])
    )
    report = _one(data, book)
    assert report.error is not None and report.error.kind == "no_consensus"
    assert report.signature is not None and dict(report.signature.outcomes)["node 9"].startswith("unknown node")


def test_without_a_book_a_wrapped_block_is_unverified(node_keys: dict[int, rsa.RSAPrivateKey]) -> None:
    report = _one(_wrapped(node_keys))
    assert report.error is not None and report.error.kind == "unverified_proof"


def test_the_wrapped_record_is_checked_as_a_record_file(
    node_keys: dict[int, rsa.RSAPrivateKey], book: AddressBook
) -> None:
    wrong_end = _wrapped(node_keys, v6=_v6(0, end=b"\x01" * 48))
    report = _one(wrong_end, book)
    assert report.error is not None and report.error.kind == "running_hash_mismatch"
    other_number = _one(_wrapped(node_keys, v6=_v6(5)), book)
    assert other_number.error is not None and other_number.error.kind == "block_number_mismatch"


def test_a_proof_naming_another_block_is_refused() -> None:
    data = serialize_block([header_item(2), footer_item(), tss_proof_item(3)])
    report = _one(data)
    assert report.error is not None and report.error.kind == "block_number_mismatch"


def test_a_file_name_giving_another_number_is_refused() -> None:
    (report,) = verify_blocks([Source(linked_blocks(1)[0], "7.blk", 7)])
    assert report.error is not None and report.error.kind == "block_number_mismatch"


def _placeholder_block(signature_of_root: bool) -> bytes:
    base = serialize_block([header_item(0, minor=73), footer_item(), tss_proof_item(0)])
    root = block_root_hash(parsed(base))
    signature = hashlib.sha384(root).digest() if signature_of_root else b"\x02" * 48
    return serialize_block([header_item(0, minor=73), footer_item(), tss_proof_item(0, signature)])


def test_a_pre_tss_placeholder_is_recognised_and_never_verified() -> None:
    report = _one(_placeholder_block(True))
    assert report.error is not None and report.error.kind == "unverified_proof"
    assert report.signature is not None and report.signature.placeholder and not report.signature.verified
    wrong = _one(_placeholder_block(False))
    assert wrong.error is not None and wrong.error.kind == "hash_mismatch"


class TssRefusedError(VerificationError):
    """What a TSS verifier raises for a signature that does not hold (its own leaves of the tree)."""


class FakeTss:
    """Stands in for the TSS verifier: accepts a signature made of the root's first byte."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, bytes, str]] = []

    def __call__(self, block: BlockFile, root_hash: bytes, proof: BlockProofItem) -> TssSignature:
        self.seen.append((block.number, root_hash, proof.kind))
        signature = proof.message().signed_block_proof.block_signature
        if signature != root_hash[:1] * 2920:
            raise TssRefusedError("the aggregate signature does not sign this root", file=block.name)
        return TssSignature(3, 4)


def _tss_block(number: int, *, good: bool) -> bytes:
    spec = BlockSpec(number, [])
    root = block_root_hash(parsed(chain([spec])[0]))
    return chain([BlockSpec(number, [], proof=tss_proof_item(number, (root[:1] if good else b"\x00") * 2920))])[0]


def test_tss_proofs_go_through_the_seam_and_unchecked_ones_never_verify() -> None:
    tss = FakeTss()
    report = _one(_tss_block(0, good=True), tss=tss)
    assert report.ok and report.signature is not None
    assert (report.signature.scheme, report.signature.verified, report.signature.stake) == ("tss", True, 3)
    assert tss.seen[0][0] == 0 and report.hashes is not None and tss.seen[0][1] == report.hashes.root
    refused = _one(_tss_block(0, good=False), tss=tss)
    assert refused.error is not None and refused.error.kind == "tss_refused"
    unchecked = _one(_tss_block(0, good=True))
    assert unchecked.error is not None and unchecked.error.kind == "unverified_proof"


def test_a_proof_of_an_unknown_kind_is_unverified_and_one_good_proof_is_enough() -> None:
    unknown = item(ItemKind.BLOCK_PROOF, length_delimited(7, b"\x0a\x01x"))
    data = serialize_block([header_item(0), footer_item(), unknown])
    report = _one(data)
    assert report.error is not None and report.error.kind == "unverified_proof"
    assert report.signature is not None and report.signature.proof == "proof_7"
    good = _tss_block(0, good=True)
    both = serialize_block([*(i.data for i in parsed(good).items), unknown])
    assert _one(both, tss=FakeTss()).ok


def test_a_placeholder_beside_a_failing_signature_is_not_an_unsigned_block() -> None:
    placeholder = [i.data for i in parsed(_placeholder_block(True)).items]
    refused = tss_proof_item(0, b"\x00" * 2920)
    report = _one(serialize_block([*placeholder, refused]), tss=FakeTss())
    assert report.error is not None and report.error.kind == "tss_refused"
    assert not is_unsigned_placeholder(report)
    alone = _one(_placeholder_block(True), tss=FakeTss())
    assert is_unsigned_placeholder(alone)


def test_a_run_reports_every_block_and_goes_on_after_a_bad_one(
    node_keys: dict[int, rsa.RSAPrivateKey], book: AddressBook
) -> None:
    blocks = [Source(data, f"{n}.blk", n) for n, data in enumerate(linked_blocks(3))]
    unreadable = Source(b"\x1f\x8bnot gzip", "1.blk.gz", 1)
    reports = list(verify_blocks([blocks[0], unreadable, blocks[2]], book))
    assert [r.error.kind if r.error else None for r in reports] == [
        "unverified_proof",
        "decompression",
        "unverified_proof",
    ]
    assert reports[2].links is not None and reports[2].links.previous_root.value == "unverifiable"


@pytest.mark.parametrize("bad", [VerificationError("x"), TssRefusedError("y")])
def test_the_seam_takes_any_verification_error(bad: VerificationError) -> None:
    def refuse(block: BlockFile, root_hash: bytes, proof: BlockProofItem) -> TssSignature:
        raise bad

    report = _one(_tss_block(0, good=True), tss=refuse)
    assert report.error is bad
