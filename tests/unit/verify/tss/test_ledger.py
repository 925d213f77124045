"""The ledger id publication of block 0."""

from __future__ import annotations

import pytest
from hedera_history import hapi
from hedera_history.errors import TssFormatError
from hedera_history.verify.tss import LedgerPublication, publication_from_signed_transaction

from tests.conformance.tss_blocks import LEDGER_ID, ROSTER_NODE_IDS, TssBlock, signed_transactions

WRAPS_VERIFICATION_KEY_BYTES = 1768


def test_block_zero_publishes_the_ledger_id_and_its_roster(publication: LedgerPublication) -> None:
    assert publication.ledger_id.hex() == LEDGER_ID
    assert len(publication.history_proof_verification_key) == WRAPS_VERIFICATION_KEY_BYTES
    assert tuple(entry.node_id for entry in publication.roster) == ROSTER_NODE_IDS
    assert all(entry.weight == 1 for entry in publication.roster)


def test_the_publication_is_the_last_signed_transaction_of_block_zero(tss_blocks: tuple[TssBlock, ...]) -> None:
    signed = signed_transactions(tss_blocks[0])
    found = [index for index, raw in enumerate(signed) if publication_from_signed_transaction(raw) is not None]
    assert found == [len(signed) - 1]


def test_another_transaction_publishes_nothing() -> None:
    body = hapi.TransactionBody(memo="not a publication")
    signed = hapi.SignedTransaction(bodyBytes=body.SerializeToString()).SerializeToString()
    assert publication_from_signed_transaction(signed) is None


def test_a_ledger_id_of_another_length_is_refused() -> None:
    body = hapi.TransactionBody()
    body.ledger_id_publication.ledger_id = bytes(31)
    signed = hapi.SignedTransaction(bodyBytes=body.SerializeToString()).SerializeToString()
    with pytest.raises(TssFormatError, match="32 bytes"):
        publication_from_signed_transaction(signed)


def test_bytes_that_are_no_transaction_are_refused() -> None:
    with pytest.raises(TssFormatError):
        publication_from_signed_transaction(b"\x0a\xff")
