"""Verdicts of whole TSS signatures: the split, the forms, and the trust a proven key keeps."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hedera_history.errors import (
    TssAggregateSignatureError,
    TssEndorsementError,
    TssFormatError,
    TssStateProofError,
    TssUnverifiableProofError,
    TssWrapsError,
    TssWrapsLedgerError,
)
from hedera_history.verify.tss import (
    Endorsement,
    LedgerPublication,
    ProofForm,
    TssTrust,
    proof,
    verify_state_proof,
    verify_tss_signature,
)
from hedera_history.verify.tss.hints import SIGNATURE_BYTES, VERIFICATION_KEY_BYTES
from hedera_history.verify.tss.proof import WRAPS_PROOF_BYTES

from tests.conformance.tss_blocks import (
    ENDORSERS,
    HINTS_SIGNED_WEIGHT,
    HINTS_TOTAL_WEIGHT,
    ROOTS,
    WRAPS_PROOF,
    TssBlock,
)

HINTS_END = VERIFICATION_KEY_BYTES + SIGNATURE_BYTES


@pytest.fixture(scope="module")
def wraps_proof(hedera_data: Path) -> bytes:
    proof = (hedera_data / WRAPS_PROOF).read_bytes()
    assert len(proof) == WRAPS_PROOF_BYTES
    return proof


def test_a_schnorr_endorsed_signature_verifies_and_says_who_endorsed(
    tss_blocks: tuple[TssBlock, ...], publication: LedgerPublication
) -> None:
    verdict = verify_tss_signature(tss_blocks[0].root, tss_blocks[0].signature, TssTrust(publication))
    assert verdict.verified, verdict.reason
    assert verdict.form is ProofForm.SCHNORR
    assert verdict.endorsement is Endorsement.SCHNORR
    assert verdict.endorser_node_ids == ENDORSERS
    assert (verdict.signed_weight, verdict.total_weight) == (HINTS_SIGNED_WEIGHT, HINTS_TOTAL_WEIGHT)
    assert verdict.signed_root == tss_blocks[0].root
    assert verdict.reason is None


def test_an_endorsed_key_is_remembered(tss_blocks: tuple[TssBlock, ...], publication: LedgerPublication) -> None:
    trust = TssTrust(publication)
    key = tss_blocks[0].signature[:VERIFICATION_KEY_BYTES]
    assert not trust.is_proven(key)
    verify_tss_signature(tss_blocks[0].root, tss_blocks[0].signature, trust)
    assert trust.proven_keys == {key}


def test_a_failed_endorsement_proves_nothing(tss_blocks: tuple[TssBlock, ...], publication: LedgerPublication) -> None:
    trust = TssTrust(publication)
    signature = tss_blocks[0].signature
    changed = signature[:-1] + bytes([signature[-1] ^ 1])
    verdict = verify_tss_signature(tss_blocks[0].root, changed, trust)
    assert isinstance(verdict.reason, TssEndorsementError)
    assert not verdict.verified
    assert trust.proven_keys == frozenset()


def test_a_wraps_proof_of_another_ledger_proves_nothing(
    tss_blocks: tuple[TssBlock, ...], publication: LedgerPublication, wraps_proof: bytes
) -> None:
    trust = TssTrust(publication)
    signature = tss_blocks[0].signature[:HINTS_END] + wraps_proof
    verdict = verify_tss_signature(tss_blocks[0].root, signature, trust)
    assert verdict.form is ProofForm.WRAPS
    assert not verdict.verified
    assert isinstance(verdict.reason, TssWrapsLedgerError)
    assert verdict.endorsement is Endorsement.NONE
    assert trust.proven_keys == frozenset()


def test_a_wraps_proof_is_unverifiable_without_the_ledgers_wraps_key(
    tss_blocks: tuple[TssBlock, ...], publication: LedgerPublication, wraps_proof: bytes
) -> None:
    without_key = dataclasses.replace(publication, history_proof_verification_key=b"")
    signature = tss_blocks[0].signature[:HINTS_END] + wraps_proof
    verdict = verify_tss_signature(tss_blocks[0].root, signature, TssTrust(without_key))
    assert isinstance(verdict.reason, TssUnverifiableProofError)
    assert not verdict.verified


def test_a_key_a_wraps_proof_endorses_is_proven_from_then_on(
    tss_blocks: tuple[TssBlock, ...],
    publication: LedgerPublication,
    wraps_proof: bytes,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The wiring only (the WRAPS check itself is tests/unit/verify/tss/test_wraps.py): no WRAPS
    proof endorses the real blocks' key, so the check is stubbed to record what it is asked."""
    asked: list[tuple[bytes, bytes, bytes, bytes]] = []
    monkeypatch.setattr(proof, "verify_wraps", lambda *args: asked.append(args))
    trust = TssTrust(publication)
    key = tss_blocks[5].signature[:VERIFICATION_KEY_BYTES]
    verdict = verify_tss_signature(tss_blocks[5].root, tss_blocks[5].signature[:HINTS_END] + wraps_proof, trust)
    assert verdict.verified, verdict.reason
    assert verdict.endorsement is Endorsement.WRAPS
    assert asked == [(publication.history_proof_verification_key, wraps_proof, publication.ledger_id, key)]
    assert trust.proven_keys == {key}
    again = verify_tss_signature(tss_blocks[5].root, tss_blocks[5].signature[:HINTS_END] + wraps_proof, trust)
    assert again.endorsement is Endorsement.TRUSTED
    assert len(asked) == 1


def test_a_wraps_proof_for_a_proven_key_verifies_on_the_earlier_proof(
    tss_blocks: tuple[TssBlock, ...], publication: LedgerPublication, wraps_proof: bytes
) -> None:
    trust = TssTrust(publication, proven_keys=[tss_blocks[0].signature[:VERIFICATION_KEY_BYTES]])
    verdict = verify_tss_signature(tss_blocks[5].root, tss_blocks[5].signature[:HINTS_END] + wraps_proof, trust)
    assert verdict.verified, verdict.reason
    assert verdict.form is ProofForm.WRAPS
    assert verdict.endorsement is Endorsement.TRUSTED
    assert verdict.endorser_node_ids == ()


def test_a_new_key_needs_its_own_endorsement(
    tss_blocks: tuple[TssBlock, ...], publication: LedgerPublication, wraps_proof: bytes
) -> None:
    key = tss_blocks[0].signature[:VERIFICATION_KEY_BYTES]
    trust = TssTrust(publication, proven_keys=[key])
    other_key = key[:-1] + bytes([key[-1] ^ 1])
    signature = other_key + tss_blocks[0].signature[VERIFICATION_KEY_BYTES:HINTS_END] + wraps_proof
    assert isinstance(verify_tss_signature(tss_blocks[0].root, signature, trust).reason, TssWrapsError)


def test_a_proven_key_still_needs_a_signature_over_this_root(
    tss_blocks: tuple[TssBlock, ...], publication: LedgerPublication, wraps_proof: bytes
) -> None:
    trust = TssTrust(publication, proven_keys=[tss_blocks[0].signature[:VERIFICATION_KEY_BYTES]])
    verdict = verify_tss_signature(tss_blocks[4].root, tss_blocks[5].signature[:HINTS_END] + wraps_proof, trust)
    assert isinstance(verdict.reason, TssAggregateSignatureError)


@pytest.mark.parametrize("length", [2919, 2900, 100])
def test_a_signature_of_another_length_is_a_format_error(
    tss_blocks: tuple[TssBlock, ...], publication: LedgerPublication, length: int
) -> None:
    signature = tss_blocks[0].signature[:length]
    verdict = verify_tss_signature(tss_blocks[0].root, signature, TssTrust(publication))
    assert isinstance(verdict.reason, TssFormatError)
    assert verdict.form is ProofForm.UNKNOWN


def test_an_empty_root_is_refused(tss_blocks: tuple[TssBlock, ...], publication: LedgerPublication) -> None:
    verdict = verify_tss_signature(b"", tss_blocks[0].signature, TssTrust(publication))
    assert isinstance(verdict.reason, TssFormatError)


def test_a_state_proof_verdict_names_its_form_and_the_signed_root(
    tss_blocks: tuple[TssBlock, ...], publication: LedgerPublication
) -> None:
    block = tss_blocks[2]
    verdict = verify_state_proof(block.root, block.paths, block.signature, TssTrust(publication))
    assert verdict.verified, verdict.reason
    assert verdict.form is ProofForm.STATE_PROOF
    assert verdict.signed_root is not None
    assert verdict.signed_root.hex() == ROOTS[5]


def test_a_state_proof_for_another_root_names_no_signed_root(
    tss_blocks: tuple[TssBlock, ...], publication: LedgerPublication
) -> None:
    block = tss_blocks[2]
    verdict = verify_state_proof(tss_blocks[3].root, block.paths, block.signature, TssTrust(publication))
    assert isinstance(verdict.reason, TssStateProofError)
    assert verdict.signed_root is None


def test_an_endorsement_seen_before_is_not_checked_again(
    tss_blocks: tuple[TssBlock, ...], publication: LedgerPublication, monkeypatch: pytest.MonkeyPatch
) -> None:
    trust = TssTrust(publication)
    assert verify_tss_signature(tss_blocks[0].root, tss_blocks[0].signature, trust).verified
    monkeypatch.setattr(proof, "verify_endorsement", lambda *_: pytest.fail("checked again"))
    verdict = verify_tss_signature(tss_blocks[5].root, tss_blocks[5].signature, trust)
    assert verdict.verified
    assert verdict.endorser_node_ids == ENDORSERS


def test_a_proven_key_with_a_changed_endorsement_is_checked_and_rejected(
    tss_blocks: tuple[TssBlock, ...], publication: LedgerPublication
) -> None:
    trust = TssTrust(publication)
    assert verify_tss_signature(tss_blocks[0].root, tss_blocks[0].signature, trust).verified
    signature = tss_blocks[5].signature
    changed = signature[:-1] + bytes([signature[-1] ^ 1])
    assert isinstance(verify_tss_signature(tss_blocks[5].root, changed, trust).reason, TssEndorsementError)
