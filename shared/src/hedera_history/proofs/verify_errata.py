"""Check a proof's correction: the errata in force for the proven transaction, and its authority.

Runs after the original record is proven (``proofs.verify``), with the same pure code the
ingest judges errata with (``errata.authority``), so a proof verifies exactly when the pipeline
would have applied the errata:

1. the errata is there and parses (``ProofErrataMissingError``, ``ProofFormatError``);
2. its time of error is the transaction's consensus time (``ProofErrataSubjectError``);
3. a super-majority of the council the client trusts signed its body (``ProofCouncilError``);
4. its correct item is the served entry, or it removes the entry and none is served
   (``ProofErrataMissingError``: a served entry no authorised errata accounts for);
5. the book at the errata's time follows from the block's through the correction's own chain steps
   (``ProofBookError``), and under it every carried node signature file counts and the nodes hold
   more than 2/3 of the stake (``ProofRatificationError``), whatever share the record proof asks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hedera_history.books.address_book import AddressBook
from hedera_history.errata.authority import OK, CouncilPolicy, check_council, check_nodes
from hedera_history.errata.codec import parse_errata_file
from hedera_history.errata.errata_file import EntryKind, ErrataFile
from hedera_history.errata.signing import v6_signature_form
from hedera_history.errors import (
    ErrataError,
    FormatError,
    HistoryError,
    ProofBookError,
    ProofCouncilError,
    ProofErrataMissingError,
    ProofErrataSubjectError,
    ProofFormatError,
    ProofRatificationError,
)
from hedera_history.formats.dispatch import parse_signature_file
from hedera_history.formats.parsed_files import RecordItem, SignatureFile
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.proofs.chain import BookChain
from hedera_history.proto_gen.proof_pb2 import BlockEvidence, Correction

ProveStep = Callable[[BlockEvidence, AddressBook, str], tuple[Sequence[RecordItem], int | None]]
"""Proves one chain step under a book: its shown items and its signed block number."""


@dataclass(frozen=True, slots=True)
class CorrectionVerdict:
    errata_id: str
    kind: EntryKind
    council_approving: int
    council_keys: int
    stake: int
    total_stake: int
    book_updates: int
    """Book changes between the proven block and the errata's time."""

    def phrase(self) -> str:
        return (
            f"original verified; corrected by errata {self.errata_id} ({self.kind.value}), authorised by council "
            f"{self.council_approving}/{self.council_keys} and nodes with {self.stake}/{self.total_stake} stake"
        )


def verify_correction(
    correction: Correction,
    chain: BookChain,
    subject_ns: int,
    council: CouncilPolicy | None,
    prove_step: ProveStep,
) -> CorrectionVerdict:
    """The verdict on a transaction's correction; ``chain`` stands at the proven block."""
    errata = _errata(correction)
    if errata.time_of_error != subject_ns:
        raise ProofErrataSubjectError(
            f"errata {errata.errata_id} corrects the entry at {errata.time_of_error}, not this transaction's "
            f"consensus time {subject_ns}"
        )
    if council is None:
        raise ProofCouncilError(
            f"the transaction is corrected by errata {errata.errata_id}: trust a council (--council) to check it"
        )
    council_check = check_council(errata, council)
    if not council_check.approved:
        raise ProofCouncilError(f"errata {errata.errata_id}: {council_check.describe()}")
    kind = _check_served(correction, errata)
    updates_before = chain.book_updates
    for index, step in enumerate(correction.steps):
        what = f"errata chain step {index}"
        items, number = prove_step(step, chain.consensus_book, what)
        if max(item.consensus_ns for item in items) >= errata.consensus_ns:
            raise ProofBookError(f"{what}: comes at or after the errata's consensus time {errata.consensus_ns}")
        chain.apply_step(items, number, what)
    book = chain.consensus_book
    nodes = check_nodes(errata, _node_signatures(correction), book)
    for entry in correction.node_signatures:
        node = book.by_node_id(entry.node_id)
        why = "not in the book in force at the errata's time" if node is None else nodes.outcomes.get(node.account)
        if why != OK:
            raise ProofRatificationError(f"errata {errata.errata_id}: the signature of node {entry.node_id}: {why}")
    if not nodes.ratified:
        raise ProofRatificationError(f"errata {errata.errata_id}: {nodes.describe()}")
    return CorrectionVerdict(
        errata.errata_id,
        kind,
        len(council_check.approving),
        council_check.key_count,
        nodes.stake,
        nodes.total_stake,
        chain.book_updates - updates_before,
    )


def _errata(correction: Correction) -> ErrataFile:
    if not correction.errata_file:
        raise ProofErrataMissingError("the served entry differs from the signed one and the proof carries no errata")
    try:
        return parse_errata_file(correction.errata_file, "the proof's errata file")
    except ErrataError as e:
        raise ProofFormatError(f"errata file: {e.reason}") from e


def _check_served(correction: Correction, errata: ErrataFile) -> EntryKind:
    correct = errata.body.correct_item
    if not correction.HasField("served"):
        if correct is not None:
            raise ProofErrataMissingError(
                f"the entry is served as removed, but errata {errata.errata_id} replaces it with a correct item"
            )
        return EntryKind.DELETE
    served = (correction.served.transaction, correction.served.record)
    if correct is None or served != (correct.transaction_bytes, correct.record_bytes):
        raise ProofErrataMissingError(f"the served entry is not the correct item of errata {errata.errata_id}")
    return EntryKind.UPDATE


def _node_signatures(correction: Correction) -> dict[NodeIdentity, SignatureFile | HistoryError]:
    found: dict[NodeIdentity, SignatureFile | HistoryError] = {}
    previous = -1
    for entry in correction.node_signatures:
        if entry.node_id <= previous:
            raise ProofFormatError("errata node signatures must come once per node, by node id")
        previous = entry.node_id
        name = f"errata signature of node {entry.node_id}"
        try:
            signature = parse_signature_file(entry.signature_file, name)
        except FormatError as e:
            raise ProofRatificationError(f"{name}: {e.reason}") from e
        if v6_signature_form(signature) != entry.signature_file:
            # one form only, as for the bundle itself: no byte may change unseen
            raise ProofRatificationError(f"{name}: not in the V6 form of what the node signed")
        found[NodeIdentity(node_id=entry.node_id)] = signature
    return found
