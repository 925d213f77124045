"""The ledger id publication: the TSS trust root a network announces in its block 0.

``LedgerIdPublicationTransactionBody`` (``TransactionBody`` field 77) carries the ledger id (32 bytes,
a BN254 scalar, little-endian), the WRAPS verification key, and one contribution per node: its id,
its weight and its history-proof (Schnorr) key. The contributions, in their order, are the roster
whose aggregate Schnorr signatures endorse hinTS verification keys; a signer bitmap indexes them
by that order (the block node's ``VerificationHelper.extractTssData`` keeps it too).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import TssFormatError
from hedera_history.verify.tss.roster import RosterEntry
from hedera_history.verify.tss.schnorr import SIGNER_SLOTS

LEDGER_ID_BYTES = 32


@dataclass(frozen=True)
class LedgerPublication:
    ledger_id: bytes
    history_proof_verification_key: bytes
    """The WRAPS verification key, under which the WRAPS proofs endorsing hinTS keys are checked."""
    roster: tuple[RosterEntry, ...]


def publication_from_signed_transaction(signed_transaction: bytes) -> LedgerPublication | None:
    """The publication a ``signed_transaction`` block item carries, or ``None`` if it is another
    transaction."""
    try:
        body_bytes = hapi.SignedTransaction.FromString(signed_transaction).bodyBytes
        body = hapi.TransactionBody.FromString(body_bytes)
    except DecodeError as e:
        raise TssFormatError(f"a signed transaction does not parse: {e}") from e
    if not body.HasField("ledger_id_publication"):
        return None
    publication = body.ledger_id_publication
    if len(publication.ledger_id) != LEDGER_ID_BYTES:
        raise TssFormatError(f"ledger id: expected {LEDGER_ID_BYTES} bytes but got {len(publication.ledger_id)}")
    contributions = publication.node_contributions
    if not 0 < len(contributions) <= SIGNER_SLOTS:
        raise TssFormatError(f"ledger roster: expected 1 to {SIGNER_SLOTS} nodes but got {len(contributions)}")
    roster = tuple(
        RosterEntry.parse(contribution.node_id, contribution.weight, contribution.history_proof_key)
        for contribution in contributions
    )
    return LedgerPublication(
        ledger_id=bytes(publication.ledger_id),
        history_proof_verification_key=bytes(publication.history_proof_verification_key),
        roster=roster,
    )


def find_publication(signed_transactions: Iterable[bytes]) -> LedgerPublication | None:
    """The first ledger id publication among a block's ``signed_transaction`` items."""
    for signed_transaction in signed_transactions:
        publication = publication_from_signed_transaction(signed_transaction)
        if publication is not None:
            return publication
    return None
