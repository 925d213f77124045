"""The ledger roster's aggregate Schnorr endorsement of the hinTS key, on the real block 0 signature."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hedera_history.errors import TssEndorsementError, TssEndorsementWeightError, TssFormatError, TssRosterError
from hedera_history.verify.tss import LedgerPublication
from hedera_history.verify.tss.babyjubjub import GENERATOR, ORDER
from hedera_history.verify.tss.hints import SIGNATURE_BYTES, VERIFICATION_KEY_BYTES
from hedera_history.verify.tss.roster import RosterEntry, proof_of_knowledge_challenge, proof_of_knowledge_holds
from hedera_history.verify.tss.schnorr import (
    ENDORSEMENT_BYTES,
    SIGNER_SLOTS,
    SchnorrEndorsement,
    endorsed_message,
    verify_endorsement,
)

from tests.conformance.tss_blocks import ENDORSERS, TssBlock


@pytest.fixture(scope="module")
def key_bytes(tss_blocks: tuple[TssBlock, ...]) -> bytes:
    return tss_blocks[0].signature[:VERIFICATION_KEY_BYTES]


@pytest.fixture(scope="module")
def endorsement(tss_blocks: tuple[TssBlock, ...]) -> SchnorrEndorsement:
    return SchnorrEndorsement.parse(tss_blocks[0].signature[VERIFICATION_KEY_BYTES + SIGNATURE_BYTES :])


def with_signers(endorsement: SchnorrEndorsement, signers: set[int]) -> SchnorrEndorsement:
    return replace(endorsement, signers=tuple(index in signers for index in range(SIGNER_SLOTS)))


def test_the_real_endorsement_verifies(
    publication: LedgerPublication, key_bytes: bytes, endorsement: SchnorrEndorsement
) -> None:
    endorsers = verify_endorsement(publication.roster, endorsed_message(publication.ledger_id, key_bytes), endorsement)
    assert endorsers.node_ids == ENDORSERS
    assert (endorsers.weight, endorsers.total_weight) == (3, 4)


def test_the_endorsed_message_is_the_ledger_id_then_the_poseidon_hash(
    publication: LedgerPublication, key_bytes: bytes
) -> None:
    message = endorsed_message(publication.ledger_id, key_bytes)
    assert len(message) == 64
    assert message[:32] == publication.ledger_id


def test_a_flipped_key_byte_is_not_endorsed(
    publication: LedgerPublication, key_bytes: bytes, endorsement: SchnorrEndorsement
) -> None:
    flipped = key_bytes[:500] + bytes([key_bytes[500] ^ 1]) + key_bytes[501:]
    with pytest.raises(TssEndorsementError):
        verify_endorsement(publication.roster, endorsed_message(publication.ledger_id, flipped), endorsement)


@pytest.mark.parametrize("field", ["response", "challenge"])
def test_a_changed_scalar_fails(
    publication: LedgerPublication, key_bytes: bytes, endorsement: SchnorrEndorsement, field: str
) -> None:
    changed = replace(endorsement, **{field: (getattr(endorsement, field) + 1) % ORDER})
    with pytest.raises(TssEndorsementError):
        verify_endorsement(publication.roster, endorsed_message(publication.ledger_id, key_bytes), changed)


@pytest.mark.parametrize("signers", [{0, 1, 2, 3}, {0, 2, 3}, {1, 2}])
def test_another_signer_bitmap_fails(
    publication: LedgerPublication, key_bytes: bytes, endorsement: SchnorrEndorsement, signers: set[int]
) -> None:
    with pytest.raises(TssEndorsementError) as raised:
        verify_endorsement(
            publication.roster, endorsed_message(publication.ledger_id, key_bytes), with_signers(endorsement, signers)
        )
    assert type(raised.value) is TssEndorsementError


def test_signers_under_half_the_weight_fail_the_weight_check(
    publication: LedgerPublication, key_bytes: bytes, endorsement: SchnorrEndorsement
) -> None:
    with pytest.raises(TssEndorsementWeightError):
        verify_endorsement(
            publication.roster, endorsed_message(publication.ledger_id, key_bytes), with_signers(endorsement, {3})
        )


def test_bits_past_the_roster_are_refused(
    publication: LedgerPublication, key_bytes: bytes, endorsement: SchnorrEndorsement
) -> None:
    """The reference ignores them; they change nothing the signature proves, so one endorsement would
    have many encodings: refused, as proofs refuse them (docs/block-streams.md, TSS)."""
    extra = with_signers(endorsement, {*(index for index, on in enumerate(endorsement.signers) if on), 100})
    with pytest.raises(TssFormatError, match="past the roster"):
        verify_endorsement(publication.roster, endorsed_message(publication.ledger_id, key_bytes), extra)


def test_a_signer_without_a_valid_proof_of_knowledge_cannot_count(
    publication: LedgerPublication, key_bytes: bytes, endorsement: SchnorrEndorsement
) -> None:
    roster = (publication.roster[0], replace(publication.roster[1], can_sign=False), *publication.roster[2:])
    with pytest.raises(TssRosterError, match=r"\[1\]"):
        verify_endorsement(roster, endorsed_message(publication.ledger_id, key_bytes), endorsement)


def test_every_real_roster_key_proves_knowledge_of_its_secret(publication: LedgerPublication) -> None:
    assert all(entry.can_sign for entry in publication.roster)


def test_a_proof_of_knowledge_is_a_schnorr_proof_for_its_key() -> None:
    secret, nonce = 1234567, 7654321
    key, commitment = GENERATOR * secret, GENERATOR * nonce
    challenge = proof_of_knowledge_challenge(key, commitment)
    response = (nonce + challenge * secret) % ORDER
    assert proof_of_knowledge_holds(key, commitment, challenge, response)
    assert not proof_of_knowledge_holds(key, commitment, challenge, response + 1)
    assert not proof_of_knowledge_holds(key, commitment, (challenge + 1) % ORDER, response)


def test_a_placeholder_key_with_an_all_zero_proof_cannot_sign() -> None:
    key = GENERATOR * 99
    entry = RosterEntry.parse(
        7, 1, key.uncompressed() + (0).to_bytes(32, "little") + (1).to_bytes(32, "little") + bytes(64)
    )
    assert not entry.can_sign


def test_an_endorsement_of_another_length_does_not_parse(tss_blocks: tuple[TssBlock, ...]) -> None:
    raw = tss_blocks[0].signature[VERIFICATION_KEY_BYTES + SIGNATURE_BYTES :]
    assert len(raw) == ENDORSEMENT_BYTES
    with pytest.raises(TssFormatError):
        SchnorrEndorsement.parse(raw[:-1])


def test_a_signer_flag_other_than_0_or_1_does_not_parse(tss_blocks: tuple[TssBlock, ...]) -> None:
    raw = bytearray(tss_blocks[0].signature[VERIFICATION_KEY_BYTES + SIGNATURE_BYTES :])
    raw[5] = 2
    with pytest.raises(TssFormatError, match="booleans"):
        SchnorrEndorsement.parse(bytes(raw))
