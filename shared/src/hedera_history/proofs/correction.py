"""The correction a proof of an errata-corrected transaction carries (``Correction`` in proof.proto).

Both builders hand :func:`correction_evidence` the errata in force with the node signature files
they have for it (the store: those its errata log kept; files: those beside the errata file), so
they lay out the same bytes. The signatures carried are the fewest nodes, heaviest first, whose
stake is more than 2/3 of the book the verifier will reach at the errata's time, each in the V6
form the errata log keeps (``errata.log.stored_signature_file``), by node id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from hedera_history.books.address_book import AddressBook
from hedera_history.errata.authority import check_nodes
from hedera_history.errata.codec import parse_errata_file
from hedera_history.errata.errata_file import ErrataFile
from hedera_history.errata.log import stored_signature_file
from hedera_history.errors import HistoryError
from hedera_history.formats.parsed_files import SignatureFile
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.proto_gen.proof_pb2 import BlockEvidence, Correction


@dataclass(frozen=True)
class AcceptedErrata:
    """An errata applied to the history, and the node signature files found for it."""

    errata: ErrataFile
    signatures: Mapping[NodeIdentity, SignatureFile | HistoryError] = field(repr=False)

    @classmethod
    def parse(
        cls, data: bytes, name: str, signatures: Mapping[NodeIdentity, SignatureFile | HistoryError]
    ) -> AcceptedErrata:
        return cls(parse_errata_file(data, name), signatures)


def in_force(candidates: Iterable[AcceptedErrata], consensus_ns: int) -> AcceptedErrata | None:
    """The errata in force for the entry at ``consensus_ns``: the latest by consensus time, then id
    (as ``errata.cell_changes`` decides)."""
    mine = [c for c in candidates if c.errata.time_of_error == consensus_ns]
    return max(mine, key=lambda c: (c.errata.consensus_ns, c.errata.errata_id), default=None)


def correction_evidence(accepted: AcceptedErrata, steps: Sequence[BlockEvidence], book: AddressBook) -> Correction:
    """The correction for ``accepted``; ``book`` is the one in force (stakes weighed) after ``steps``."""
    errata = accepted.errata
    correction = Correction(errata_file=errata.data)
    correct = errata.body.correct_item
    if correct is not None:
        correction.served.transaction = correct.transaction_bytes
        correction.served.record = correct.record_bytes
    counted = check_nodes(errata, accepted.signatures, book).counted
    for node_id in _fewest_ratifying(counted, book):
        correction.node_signatures.add(node_id=node_id, signature_file=stored_signature_file(counted[node_id]))
    correction.steps.extend(steps)
    return correction


def _fewest_ratifying(counted: Mapping[int, SignatureFile], book: AddressBook) -> list[int]:
    """Node ids, heaviest first, until their stake is more than 2/3 of the book's (all when it never
    is: the verifier then says how far short they fall)."""
    stakes = sorted(
        ((node.stake, node.node_id) for node in book.nodes if node.node_id in counted), key=lambda e: (-e[0], e[1])
    )
    chosen: list[int] = []
    held = 0
    for stake, node_id in stakes:
        chosen.append(node_id)
        held += stake
        if held * 3 > book.total_stake * 2:
            break
    return sorted(chosen)
