"""The TSS-signed blocks of ``blocks/tss-schnorr``: blocks 0 and 5 verified by their own TSS
signatures, blocks 1–4 through their state proofs (block 5's signature), against the ledger id
block 0 publishes and the roots ``blocks/README.md`` lists. Each has negative twins, rejected with
a typed reason: another root, a proof from another block, a key not endorsed, a changed signer
bitmap, a changed Schnorr scalar, a hinTS weight below the threshold."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.errors import (
    TssAggregateSignatureError,
    TssEndorsementError,
    TssEndorsementWeightError,
    TssError,
    TssStateProofError,
    TssThresholdError,
)
from hedera_history.verify.tss import (
    Endorsement,
    LedgerPublication,
    ProofForm,
    TssTrust,
    TssVerdict,
    verify_state_proof,
    verify_tss_signature,
)
from hedera_history.verify.tss.hints import SIGNATURE_BYTES, VERIFICATION_KEY_BYTES

from .tss_blocks import (
    DIRECTLY_SIGNED,
    ENDORSERS,
    HINTS_SIGNED_WEIGHT,
    HINTS_TOTAL_WEIGHT,
    LEDGER_ID,
    STATE_PROVEN,
    TssBlock,
    ledger_publication,
    load_block,
)

SCHNORR_AT = VERIFICATION_KEY_BYTES + SIGNATURE_BYTES
SIGNER_FLAGS = range(SCHNORR_AT, SCHNORR_AT + 128)
RESPONSE_AT = SCHNORR_AT + 128
CHALLENGE_AT = RESPONSE_AT + 32
AGG_WEIGHT_AT = VERIFICATION_KEY_BYTES + 96


@pytest.fixture(scope="module")
def blocks(hedera_data: Path) -> tuple[TssBlock, ...]:
    return tuple(load_block(hedera_data, number) for number in range(6))


@pytest.fixture(scope="module")
def publication(blocks: tuple[TssBlock, ...]) -> LedgerPublication:
    return ledger_publication(blocks[0])


def verdict_for(
    block: TssBlock, trust: TssTrust, *, root: bytes | None = None, signature: bytes | None = None
) -> TssVerdict:
    root = block.root if root is None else root
    signature = block.signature if signature is None else signature
    if block.paths:
        return verify_state_proof(root, block.paths, signature, trust)
    return verify_tss_signature(root, signature, trust)


def changed(signature: bytes, at: int, value: int) -> bytes:
    return signature[:at] + bytes([value]) + signature[at + 1 :]


def assert_rejected(verdict: TssVerdict, reason: type[TssError]) -> None:
    assert not verdict.verified
    assert type(verdict.reason) is reason, verdict.reason


def test_block_zero_publishes_the_ledger_id(publication: LedgerPublication) -> None:
    assert publication.ledger_id.hex() == LEDGER_ID


def test_every_block_verifies_in_stream_order_with_one_trust(
    blocks: tuple[TssBlock, ...], publication: LedgerPublication
) -> None:
    trust = TssTrust(publication)
    for block in blocks:
        verdict = verdict_for(block, trust)
        assert verdict.verified, (block.number, verdict.reason)
        expected_form = ProofForm.SCHNORR if block.number in DIRECTLY_SIGNED else ProofForm.STATE_PROOF
        assert verdict.form is expected_form
        assert verdict.endorsement is Endorsement.SCHNORR
        assert verdict.endorser_node_ids == ENDORSERS
        assert (verdict.signed_weight, verdict.total_weight) == (HINTS_SIGNED_WEIGHT, HINTS_TOTAL_WEIGHT)
    assert len(trust.proven_keys) == 1


@pytest.mark.parametrize("number", range(6))
def test_another_root_is_rejected(blocks: tuple[TssBlock, ...], publication: LedgerPublication, number: int) -> None:
    block = blocks[number]
    flipped = bytes([block.root[0] ^ 1]) + block.root[1:]
    expected = TssStateProofError if number in STATE_PROVEN else TssAggregateSignatureError
    assert_rejected(verdict_for(block, TssTrust(publication), root=flipped), expected)


@pytest.mark.parametrize(("number", "donor"), [(0, 5), (5, 0)])
def test_a_signature_from_another_block_is_rejected(
    blocks: tuple[TssBlock, ...], publication: LedgerPublication, number: int, donor: int
) -> None:
    verdict = verify_tss_signature(blocks[number].root, blocks[donor].signature, TssTrust(publication))
    assert_rejected(verdict, TssAggregateSignatureError)


def test_a_state_proof_from_another_block_is_rejected(
    blocks: tuple[TssBlock, ...], publication: LedgerPublication
) -> None:
    verdict = verify_state_proof(blocks[1].root, blocks[2].paths, blocks[2].signature, TssTrust(publication))
    assert_rejected(verdict, TssStateProofError)


def test_a_state_proof_with_another_blocks_signature_is_rejected(
    blocks: tuple[TssBlock, ...], publication: LedgerPublication
) -> None:
    verdict = verify_state_proof(blocks[1].root, blocks[1].paths, blocks[0].signature, TssTrust(publication))
    assert_rejected(verdict, TssAggregateSignatureError)


@pytest.mark.parametrize("number", [0, 3, 5])
def test_a_key_not_endorsed_is_rejected(
    blocks: tuple[TssBlock, ...], publication: LedgerPublication, number: int
) -> None:
    block = blocks[number]
    signature = changed(block.signature, 700, block.signature[700] ^ 0x01)
    assert_rejected(verdict_for(block, TssTrust(publication), signature=signature), TssEndorsementError)


@pytest.mark.parametrize(("flag", "value", "reason"), [(0, 1, TssEndorsementError), (3, 0, TssEndorsementError)])
def test_a_changed_signer_bitmap_is_rejected(
    blocks: tuple[TssBlock, ...], publication: LedgerPublication, flag: int, value: int, reason: type[TssError]
) -> None:
    signature = changed(blocks[5].signature, SIGNER_FLAGS[flag], value)
    assert_rejected(verdict_for(blocks[5], TssTrust(publication), signature=signature), reason)


def test_endorsers_under_half_are_rejected(blocks: tuple[TssBlock, ...], publication: LedgerPublication) -> None:
    signature = changed(changed(blocks[0].signature, SIGNER_FLAGS[2], 0), SIGNER_FLAGS[3], 0)
    assert_rejected(verdict_for(blocks[0], TssTrust(publication), signature=signature), TssEndorsementWeightError)


@pytest.mark.parametrize("at", [RESPONSE_AT, CHALLENGE_AT])
def test_a_changed_schnorr_scalar_is_rejected(
    blocks: tuple[TssBlock, ...], publication: LedgerPublication, at: int
) -> None:
    signature = changed(blocks[0].signature, at, blocks[0].signature[at] ^ 0x01)
    assert_rejected(verdict_for(blocks[0], TssTrust(publication), signature=signature), TssEndorsementError)


@pytest.mark.parametrize("number", [0, 2])
def test_a_hints_weight_below_the_threshold_is_rejected(
    blocks: tuple[TssBlock, ...], publication: LedgerPublication, number: int
) -> None:
    signature = changed(blocks[number].signature, AGG_WEIGHT_AT, HINTS_TOTAL_WEIGHT // 2)
    verdict = verdict_for(blocks[number], TssTrust(publication), signature=signature)
    assert_rejected(verdict, TssThresholdError)
    assert verdict.signed_weight == HINTS_TOTAL_WEIGHT // 2
