"""Who may issue an errata: a super-majority of the council, ratified by more than 2/3 of stake.

Pure: the errata, its node signature files, the address book in force and the council policy in;
a verdict out. Both checks always run, so a refusal lists every reason at once.

- Council: each ``CouncilSignature`` is an Ed25519 signature over the body bytes. Only keys the
  policy lists count, each once; the errata needs ``policy.required`` of them (by default the
  smallest count strictly above 2/3 of the configured keys).
- Nodes: each node's signature file (V6 form) signs SHA-384 of the errata file as the file hash
  and SHA-384 of the body as the metadata hash. Nodes the book lists, whose signatures verify over
  exactly those hashes, count once each; their stake must be strictly more than 2/3 of the book's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ed25519

from hedera_history.books.address_book import AddressBook
from hedera_history.config import Settings
from hedera_history.errata.codec import parse_errata_file
from hedera_history.errata.errata_file import ErrataFile
from hedera_history.errors import (
    ConfigError,
    CouncilApprovalError,
    ErrataError,
    HistoryError,
    NodeRatificationError,
)
from hedera_history.formats.parsed_files import SignatureFile
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.verify.signatures import signature_problem

OK = "ok"
ED25519_KEY_BYTES = 32


def super_majority(count: int) -> int:
    """The smallest number strictly above 2/3 of ``count``."""
    return count * 2 // 3 + 1


@dataclass(frozen=True, slots=True)
class CouncilPolicy:
    keys: tuple[bytes, ...]
    """Raw Ed25519 public keys, distinct."""
    threshold: int = 0
    """Valid signatures needed; 0 means the super-majority of ``keys``."""

    def __post_init__(self) -> None:
        if len(set(self.keys)) != len(self.keys):
            raise ConfigError("errata council keys: a key is listed twice")
        if any(len(key) != ED25519_KEY_BYTES for key in self.keys):
            raise ConfigError(f"errata council keys: each must be {ED25519_KEY_BYTES} bytes (64 hex digits)")
        if self.threshold and self.threshold < super_majority(len(self.keys)):
            raise ConfigError(
                f"errata council threshold {self.threshold} is below the super-majority "
                f"{super_majority(len(self.keys))} of {len(self.keys)} keys"
            )
        if self.threshold > len(self.keys):
            raise ConfigError(f"errata council threshold {self.threshold} exceeds the {len(self.keys)} keys")

    @property
    def required(self) -> int:
        return self.threshold or super_majority(len(self.keys))

    @classmethod
    def from_settings(cls, settings: Settings) -> CouncilPolicy:
        return cls(parse_council_keys(settings.errata_council_keys), settings.errata_council_threshold)


def parse_council_keys(text: str) -> tuple[bytes, ...]:
    """Hex keys separated by commas or whitespace, or a path to a file holding them (``#`` comments)."""
    text = text.strip()
    if text and not _looks_like_hex_list(text):
        try:
            text = "\n".join(line.split("#", 1)[0] for line in Path(text).expanduser().read_text().splitlines())
        except OSError as e:
            raise ConfigError(f"cannot read the errata council keys: {e}", file=text) from e
    keys: list[bytes] = []
    for part in text.replace(",", " ").split():
        try:
            keys.append(bytes.fromhex(part))
        except ValueError as e:
            raise ConfigError(f"errata council key {part[:20]!r} is not hex") from e
    return tuple(keys)


def _looks_like_hex_list(text: str) -> bool:
    return all(part and all(c in "0123456789abcdefABCDEF" for c in part) for part in text.replace(",", " ").split())


@dataclass(frozen=True, slots=True)
class CouncilCheck:
    approving: tuple[bytes, ...]
    """Distinct council keys whose signatures verify over the body."""
    required: int
    key_count: int
    outcomes: Mapping[str, str] = field(default_factory=dict)
    """Signing key (hex) -> ``ok`` or why it does not count."""

    @property
    def approved(self) -> bool:
        return self.key_count > 0 and len(self.approving) >= self.required

    def describe(self) -> str:
        return f"{len(self.approving)} valid council signature(s) of {self.key_count} keys; {self.required} needed"


@dataclass(frozen=True, slots=True)
class NodeCheck:
    stake: int
    """Stake of the nodes whose signatures verify over this file and body."""
    total_stake: int
    outcomes: Mapping[str, str] = field(default_factory=dict)
    """Node (account, or ``node N``) -> ``ok`` or why it does not count."""
    counted: Mapping[int, SignatureFile] = field(default_factory=dict)
    """Node id -> the signature file that counted (what the errata log keeps, and proofs carry)."""

    @property
    def ratified(self) -> bool:
        return self.total_stake > 0 and self.stake * 3 > self.total_stake * 2

    def describe(self) -> str:
        return f"nodes holding stake {self.stake} of {self.total_stake} ratify it; more than 2/3 needed"


def check_council(errata: ErrataFile, policy: CouncilPolicy) -> CouncilCheck:
    allowed = set(policy.keys)
    approving: list[bytes] = []
    outcomes: dict[str, str] = {}
    for signature in errata.council_signatures:
        key_hex = signature.public_key.hex()
        if signature.public_key in approving:
            outcomes[key_hex] = OK  # signed twice: counts once
            continue
        if signature.public_key not in allowed:
            outcomes[key_hex] = "not a configured council key"
            continue
        try:
            ed25519.Ed25519PublicKey.from_public_bytes(signature.public_key).verify(
                signature.signature, errata.body_bytes
            )
        except (InvalidSignature, ValueError):
            outcomes[key_hex] = "signature does not verify over the body"
            continue
        approving.append(signature.public_key)
        outcomes[key_hex] = OK
    return CouncilCheck(tuple(approving), policy.required, len(policy.keys), outcomes)


def check_nodes(
    errata: ErrataFile, signatures: Mapping[NodeIdentity, SignatureFile | HistoryError], book: AddressBook
) -> NodeCheck:
    outcomes: dict[str, str] = {}
    counted: dict[int, SignatureFile] = {}
    for identity, signature in signatures.items():
        node = book.find(identity)
        if node is None:
            outcomes[str(identity)] = "unknown node: not in the address book"
            continue
        if node.node_id in counted:
            continue
        if isinstance(signature, HistoryError):
            outcomes[node.account] = f"unreadable signature file: {signature.reason}"
            continue
        if signature.file_hash != errata.file_hash:
            outcomes[node.account] = f"signed another errata file (hash {signature.file_hash.hex()[:16]}…)"
            continue
        if signature.metadata_hash != errata.body_hash:
            outcomes[node.account] = "signed another errata body"
            continue
        problem = signature_problem(signature, node)
        if problem is not None:
            outcomes[node.account] = problem
            continue
        counted[node.node_id] = signature
        outcomes[node.account] = OK
    for node in book.nodes:
        outcomes.setdefault(node.account, "no signature file")
    stake = sum(node.stake for node in book.nodes if node.node_id in counted)
    return NodeCheck(stake, book.total_stake, outcomes, dict(sorted(counted.items())))


@dataclass(frozen=True)
class Verdict:
    """Whether an errata may be applied, and every reason when it may not."""

    errata: ErrataFile | None
    council: CouncilCheck | None
    nodes: NodeCheck | None
    error: ErrataError | None
    """Why it is refused: a format error, else CouncilApprovalError, else NodeRatificationError."""

    @property
    def accepted(self) -> bool:
        return self.error is None

    @property
    def reasons(self) -> tuple[str, ...]:
        """Every reason it is refused (empty when accepted)."""
        if self.errata is None:
            return (self.error.reason,) if self.error is not None else ()
        out: list[str] = []
        if self.council is not None and not self.council.approved:
            out.append(_council_reason(self.council))
        if self.nodes is not None and not self.nodes.ratified:
            out.append(_nodes_reason(self.nodes))
        return tuple(out)


def judge_errata(
    data: bytes,
    name: str,
    signatures: Mapping[NodeIdentity, SignatureFile | HistoryError],
    book: AddressBook,
    policy: CouncilPolicy,
) -> Verdict:
    """Parse the errata file and check both authorities; never raises for a refusal."""
    try:
        errata = parse_errata_file(data, name)
    except ErrataError as e:
        return Verdict(None, None, None, e)
    council = check_council(errata, policy)
    nodes = check_nodes(errata, signatures, book)
    error: ErrataError | None = None
    if not council.approved:
        error = CouncilApprovalError(_council_reason(council), file=name)
    elif not nodes.ratified:
        error = NodeRatificationError(_nodes_reason(nodes), file=name)
    return Verdict(errata, council, nodes, error)


def require_accepted(verdict: Verdict) -> ErrataFile:
    """The errata of an accepted verdict; raises the verdict's error otherwise."""
    if verdict.error is not None:
        raise verdict.error
    assert verdict.errata is not None
    return verdict.errata


def _council_reason(check: CouncilCheck) -> str:
    if check.key_count == 0:
        return "no errata council keys are configured (HEDERA_HISTORY_ERRATA_COUNCIL_KEYS)"
    refused = [f"{key[:16]}…: {why}" for key, why in check.outcomes.items() if why != OK]
    detail = f" ({'; '.join(refused)})" if refused else ""
    return f"too few council signatures: {check.describe()}{detail}"


def _nodes_reason(check: NodeCheck) -> str:
    refused = [f"{node}: {why}" for node, why in check.outcomes.items() if why != OK]
    detail = f" ({'; '.join(refused)})" if refused else ""
    return f"too little node stake: {check.describe()}{detail}"
