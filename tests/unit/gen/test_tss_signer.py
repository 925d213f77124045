"""The test TSS network: what it signs ``verify.tss`` accepts, and what it should not, it rejects."""

from __future__ import annotations

import pytest
from hedera_history.errors import (
    GeneratorError,
    TssAggregateSignatureError,
    TssEndorsementWeightError,
    TssThresholdError,
)
from hedera_history.gen.tss_signer import TssSigner
from hedera_history.verify.tss import (
    Endorsement,
    LedgerPublication,
    ProofForm,
    TssTrust,
    publication_from_signed_transaction,
    verify_tss_signature,
)

ROOT = bytes(range(48))
WEIGHTS = (1, 2, 3, 4, 5)


@pytest.fixture(scope="module")
def signer() -> TssSigner:
    return TssSigner.create(WEIGHTS, node_ids=(3, 4, 5, 6, 7), seed=b"test")


@pytest.fixture(scope="module")
def publication(signer: TssSigner) -> LedgerPublication:
    found = publication_from_signed_transaction(signer.ledger_publication())
    assert found is not None
    return found


def test_the_publication_names_the_roster(signer: TssSigner, publication: LedgerPublication) -> None:
    assert publication.ledger_id == signer.ledger_id
    assert [(e.node_id, e.weight, e.can_sign) for e in publication.roster] == [
        (node, weight, True) for node, weight in zip((3, 4, 5, 6, 7), WEIGHTS, strict=True)
    ]


def test_a_signature_of_every_node_verifies(signer: TssSigner, publication: LedgerPublication) -> None:
    verdict = verify_tss_signature(ROOT, signer.sign(ROOT), TssTrust(publication))
    assert verdict.verified, verdict.reason
    assert verdict.form is ProofForm.SCHNORR
    assert verdict.endorsement is Endorsement.SCHNORR
    assert (verdict.signed_weight, verdict.total_weight) == (15, 15)
    assert verdict.endorser_node_ids == (3, 4, 5, 6, 7)


def test_a_majority_by_weight_verifies(signer: TssSigner, publication: LedgerPublication) -> None:
    signature = signer.sign(ROOT, signers=[3, 4], endorsers=[1, 3, 4])
    verdict = verify_tss_signature(ROOT, signature, TssTrust(publication))
    assert verdict.verified, verdict.reason
    assert verdict.signed_weight == 9
    assert verdict.endorser_node_ids == (4, 6, 7)


def test_signers_without_a_majority_fail_the_threshold(signer: TssSigner, publication: LedgerPublication) -> None:
    verdict = verify_tss_signature(ROOT, signer.sign(ROOT, signers=[0, 1, 2]), TssTrust(publication))
    assert isinstance(verdict.reason, TssThresholdError)


def test_endorsers_under_half_fail(signer: TssSigner, publication: LedgerPublication) -> None:
    verdict = verify_tss_signature(ROOT, signer.sign(ROOT, endorsers=[0, 4]), TssTrust(publication))
    assert isinstance(verdict.reason, TssEndorsementWeightError)


def test_the_signature_is_over_its_message(signer: TssSigner, publication: LedgerPublication) -> None:
    verdict = verify_tss_signature(bytes(48), signer.sign(ROOT), TssTrust(publication))
    assert isinstance(verdict.reason, TssAggregateSignatureError)


def test_signing_is_deterministic(signer: TssSigner) -> None:
    assert signer.sign(ROOT) == TssSigner.create(WEIGHTS, node_ids=(3, 4, 5, 6, 7), seed=b"test").sign(ROOT)
    assert TssSigner.create(WEIGHTS, seed=b"other").verification_key != signer.verification_key


def test_a_single_node_network_has_a_domain_of_two() -> None:
    lone = TssSigner.create([7])
    publication = publication_from_signed_transaction(lone.ledger_publication())
    assert publication is not None
    assert lone.n == 2
    assert verify_tss_signature(ROOT, lone.sign(ROOT), TssTrust(publication)).verified


@pytest.mark.parametrize(("weights", "node_ids"), [((), None), ((1, 0), None), ((1, 2), (5,))])
def test_a_roster_that_cannot_be_is_refused(weights: tuple[int, ...], node_ids: tuple[int, ...] | None) -> None:
    with pytest.raises(GeneratorError):
        TssSigner.create(weights, node_ids=node_ids)
