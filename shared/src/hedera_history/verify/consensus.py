"""Stake consensus over one period's signature files. Pure: signatures and a book in, result out.

Weights: each book node's ``stake``. The book in force comes weighted by the node stakes of the
stream (:func:`hedera_history.books.stakes.weigh`: the book decides which nodes and keys count,
``NodeStakeUpdate`` transactions how much each weighs, one each when they total 0), so this module
only adds them up.

Each node's signatures are verified against its key; valid ones are grouped by the (file hash,
metadata hash) they sign; the group with the most stake leads. The threshold is the mirror node's
(``downloader/ConsensusValidatorImpl.java``): a group reaches it with at least
``ceil(total × ratio)`` stake, computed in integers (:func:`required_stake`). For an integer stake,
``stake >= ceil(total × ratio)`` holds exactly when ``stake >= total × ratio``, so this is the
exact-fraction rule used before, stated as the reference states it; the reference's default ratio
(1/3 cut to 19 decimal digits) gives the same ceiling as the exact 1/3 for every total below
3 × 10^19, i.e. every total a signed 64-bit stake can reach.

Nodes the book does not list are reported and never counted; a node named twice (e.g. by account
and by node id) counts once. A fork: when a second group (another file or metadata hash) also
reaches the threshold, there is no consensus, whatever the stakes: :func:`require_consensus` raises
:class:`~hedera_history.errors.ConsensusForkError`, which the pipeline holds and alerts on. The
mirror node accepts any group that reaches it, so with the default 1/3 two disagreeing groups can
both pass there; we refuse to pick one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from hedera_history.block import ConsensusSummary, NodeSignature
from hedera_history.books.address_book import AddressBook, NodeEntry
from hedera_history.errors import ConfigError, ConsensusForkError, HistoryError, NoConsensusError
from hedera_history.formats.parsed_files import SignatureFile
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.verify.signatures import signature_problem

DEFAULT_RATIO = Fraction(1, 3)
OK = "ok"
NO_SIGNATURE = "no signature file"
UNKNOWN_NODE = "unknown node: not in the address book"
FORK = "fork"
"""How a fork's reason begins (the pending reason, reports)."""


@dataclass(frozen=True, slots=True)
class ConsensusResult:
    """The leading group of one period's signatures and every node's outcome."""

    file_hash: bytes | None
    """The leading file hash (None when no signature verified)."""
    metadata_hash: bytes | None
    stake: int
    total_stake: int
    ratio: Fraction
    agreeing: tuple[tuple[NodeEntry, SignatureFile], ...]
    """The nodes of the leading group with their signature files, by node id."""
    outcomes: Mapping[str, str]
    """Node account (or ``node N`` when unknown) -> ``"ok"`` or why it was not counted."""
    fork: bool = False
    """Another group also reaches the threshold."""
    rival_stake: int = 0
    """The stake of the strongest other group (0 when there is none)."""

    @property
    def reached(self) -> bool:
        return self.file_hash is not None and not self.fork and meets_ratio(self.stake, self.total_stake, self.ratio)

    @property
    def unanimous(self) -> bool:
        """Every node of the book signed the leading hash: consensus whatever the nodes weigh."""
        return self.reached and all(outcome in (OK, UNKNOWN_NODE) for outcome in self.outcomes.values())

    def summary(self) -> ConsensusSummary:
        assert self.file_hash is not None
        return ConsensusSummary(self.file_hash, self.metadata_hash, self.stake, self.total_stake)

    def node_signatures(self) -> tuple[NodeSignature, ...]:
        return tuple(
            NodeSignature(node.account, node.node_id, sig.file_signature, sig.metadata_signature)
            for node, sig in self.agreeing
        )


def required_stake(total_stake: int, ratio: Fraction) -> int:
    """``ceil(total × ratio)``: the least stake that reaches consensus."""
    return -(-total_stake * ratio.numerator // ratio.denominator)


def meets_ratio(stake: int, total_stake: int, ratio: Fraction) -> bool:
    return total_stake > 0 and stake >= required_stake(total_stake, ratio)


def parse_consensus_ratio(value: Fraction | float | str) -> Fraction:
    """A ratio from ``"1/3"``, ``"0.5"``, a Fraction or a float (floats are read as the nearest
    fraction with a denominator up to 10^6, so the float 1/3 means exactly one third)."""
    try:
        if isinstance(value, Fraction):
            ratio = value
        elif isinstance(value, float):
            ratio = Fraction(value).limit_denominator(1_000_000)
        else:
            ratio = Fraction(value.strip())
    except (ValueError, ZeroDivisionError) as e:
        raise ConfigError(f"consensus ratio must be a fraction such as 1/3 or 0.5, got {value!r}") from e
    if not 0 < ratio <= 1:
        raise ConfigError(f"consensus ratio must be in (0, 1], got {ratio}")
    return ratio


def count_signatures(
    signatures: Mapping[NodeIdentity, SignatureFile | HistoryError],
    book: AddressBook,
    *,
    ratio: Fraction = DEFAULT_RATIO,
) -> ConsensusResult:
    """Verify every node's signatures and find the leading group; never raises for short stake."""
    outcomes: dict[str, str] = {}
    valid: dict[int, tuple[NodeEntry, SignatureFile]] = {}
    for identity, sig in sorted(signatures.items(), key=lambda item: _identity_order(item[0])):
        node = book.find(identity)
        if node is None:
            outcomes[str(identity)] = UNKNOWN_NODE
            continue
        if node.node_id in valid or node.account in outcomes:
            continue  # the same node under its other name: its first file counts
        if isinstance(sig, HistoryError):
            outcomes[node.account] = f"unreadable signature file: {sig.reason}"
            continue
        problem = signature_problem(sig, node)
        if problem is not None:
            outcomes[node.account] = problem
            continue
        valid[node.node_id] = (node, sig)

    groups: dict[tuple[bytes, bytes | None], list[tuple[NodeEntry, SignatureFile]]] = {}
    for node, sig in sorted(valid.values(), key=lambda pair: pair[0].node_id):
        groups.setdefault((sig.file_hash, sig.metadata_hash), []).append((node, sig))
    ranked = sorted(groups.items(), key=lambda item: (-_stake(item[1]), item[0][0]))

    for node in book.nodes:
        if node.node_id not in valid and node.account not in outcomes:
            outcomes[node.account] = NO_SIGNATURE
    total = book.total_stake
    if not ranked:
        return ConsensusResult(None, None, 0, total, ratio, (), _by_node(outcomes, book))

    (file_hash, metadata_hash), members = ranked[0]
    stake = _stake(members)
    rival = _stake(ranked[1][1]) if len(ranked) > 1 else 0
    fork = len(ranked) > 1 and meets_ratio(rival, total, ratio)
    for (other_hash, _), other in ranked[1:]:
        for node, _sig in other:
            outcomes[node.account] = f"signed a different file hash {other_hash.hex()[:16]}…"
    for node, _sig in members:
        outcomes[node.account] = OK
    return ConsensusResult(
        file_hash,
        metadata_hash,
        stake,
        total,
        ratio,
        tuple(members),
        _by_node(outcomes, book),
        fork=fork,
        rival_stake=rival,
    )


def verify_consensus(
    signatures: Mapping[NodeIdentity, SignatureFile | HistoryError],
    book: AddressBook,
    *,
    ratio: Fraction = DEFAULT_RATIO,
    period: str | None = None,
) -> ConsensusResult:
    """:func:`count_signatures`, raising NoConsensusError when the leading group is short."""
    result = count_signatures(signatures, book, ratio=ratio)
    require_consensus(result, period)
    return result


def require_consensus(result: ConsensusResult, period: str | None = None) -> None:
    if result.reached:
        return
    if result.file_hash is None:
        message = f"no valid signature among {len(result.outcomes)} nodes"
    elif result.fork:
        raise ConsensusForkError(
            f"{FORK}: two file hashes each reach the threshold: stake {result.stake} and {result.rival_stake} "
            f"of {result.total_stake} (at least {required_stake(result.total_stake, result.ratio)} needed)",
            file=period,
        )
    else:
        message = (
            f"nodes signing one file hash hold stake {result.stake} of {result.total_stake}: expected at "
            f"least {result.ratio} of total stake ({required_stake(result.total_stake, result.ratio)})"
        )
    raise NoConsensusError(message, file=period)


def _stake(members: list[tuple[NodeEntry, SignatureFile]]) -> int:
    return sum(node.stake for node, _ in members)


def _identity_order(identity: NodeIdentity) -> tuple[int, str, int]:
    # accounts first (the usual layout), then node ids; stable so "first file counts" is repeatable
    if identity.account is not None:
        return (0, identity.account, 0)
    return (1, "", identity.node_id or 0)


def _by_node(outcomes: dict[str, str], book: AddressBook) -> dict[str, str]:
    order = {node.account: node.node_id for node in book.nodes}
    return dict(sorted(outcomes.items(), key=lambda item: (item[0] not in order, order.get(item[0], 0), item[0])))
