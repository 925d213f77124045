"""What the generator is asked for and what it hands back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

from hedera_history.errors import ConfigError, GeneratorError
from hedera_history.formats.layout import BucketLayout, NodeIdentity, object_path
from hedera_history.formats.names import StreamFileName

NS_PER_SECOND = 1_000_000_000
DEFAULT_START_NS = 1_717_200_000 * NS_PER_SECOND
"""2024-06-01T00:00:00Z, on a period boundary."""
FIRST_NODE_ACCOUNT = 3
MAX_NODES = 90
"""Node accounts are 0.0.3 upward and must stay below the fee collector 0.0.98."""


@dataclass(frozen=True)
class GeneratorConfig:
    """Everything that decides a generated stream; equal configs give byte-identical streams."""

    nodes: int = 4
    periods: int = 10
    transactions: int = 20
    """Record stream items per period (child records and duplicates included)."""
    sidecars: bool = True
    seed: int = 0
    layout: BucketLayout = BucketLayout.ACCOUNT
    network: str = "demo"
    """First folder of the node-id layout."""
    start_block: int = 0
    hapi_version: tuple[int, int, int] = (0, 56, 0)
    period_seconds: int = 2
    start_time_ns: int = DEFAULT_START_NS
    accounts: int = 12
    """User accounts funded at genesis (0.0.1001 upward)."""
    council_keys: int = 5
    rotate_key: bool = True
    """Rotate one node's key through a 0.0.102 update halfway, when there are at least 4 periods."""
    stakes: tuple[int, ...] | None = None
    """Stake per node (by node id); one each when None."""

    def __post_init__(self) -> None:
        checks = [
            (1 <= self.nodes <= MAX_NODES, f"nodes must be 1..{MAX_NODES}, got {self.nodes}"),
            (self.periods >= 1, f"periods must be at least 1, got {self.periods}"),
            (self.transactions >= 1, f"transactions must be at least 1, got {self.transactions}"),
            (self.start_block >= 0, f"start block must not be negative, got {self.start_block}"),
            (self.period_seconds >= 1, f"period must be at least 1 s, got {self.period_seconds}"),
            (self.accounts >= 2, f"accounts must be at least 2, got {self.accounts}"),
            (self.council_keys >= 1, f"council keys must be at least 1, got {self.council_keys}"),
            (self.start_time_ns > 60 * NS_PER_SECOND, "start time must be after 1970-01-01T00:01:00Z"),
            (self.network != "" and "/" not in self.network, f"bad network name {self.network!r}"),
            (
                self.transactions * 4 < self.period_seconds * NS_PER_SECOND,
                "too many transactions for one period's nanoseconds",
            ),
            (all(part >= 0 for part in self.hapi_version), f"bad hapi version {self.hapi_version}"),
        ]
        if self.stakes is not None:
            checks.append(
                (
                    len(self.stakes) == self.nodes and all(s >= 0 for s in self.stakes) and sum(self.stakes) > 0,
                    f"stakes must be {self.nodes} numbers >= 0 with a positive sum, got {self.stakes}",
                )
            )
        for ok, message in checks:
            if not ok:
                raise ConfigError(message)

    @property
    def period_ns(self) -> int:
        return self.period_seconds * NS_PER_SECOND

    @property
    def hapi_version_text(self) -> str:
        return ".".join(str(part) for part in self.hapi_version)

    @property
    def end_block(self) -> int:
        """The last block's number."""
        return self.start_block + self.periods - 1


@dataclass(frozen=True, slots=True)
class NodeInfo:
    node_id: int
    account: str
    stake: int


@dataclass(frozen=True, slots=True)
class BookEpoch:
    """An address book and the blocks it is in force for (both ends inclusive)."""

    first_block: int
    last_block: int
    book: bytes
    """``NodeAddressBook`` bytes, as file 0.0.102 holds them."""
    key_generations: tuple[int, ...]
    """Which key generation each node (by node id) signs with under this book."""
    updated_in_block: int | None
    """The block whose FileUpdate/FileAppend carried this book; None for the bootstrap book."""


@dataclass(frozen=True, slots=True)
class GeneratedSidecar:
    name: StreamFileName
    data: bytes
    """Decompressed ``SidecarFile`` bytes."""
    types: tuple[int, ...]
    record_count: int


@dataclass(frozen=True, slots=True)
class GeneratedPeriod:
    """One period (block) as every honest node wrote it."""

    index: int
    block_number: int
    record_name: StreamFileName
    record_bytes: bytes
    """Decompressed: int32 6, then the ``RecordStreamFile``."""
    file_hash: bytes
    metadata_hash: bytes
    start_running_hash: bytes
    end_running_hash: bytes
    consensus_start_ns: int
    consensus_end_ns: int
    item_count: int
    sidecars: tuple[GeneratedSidecar, ...]


@dataclass(frozen=True)
class StreamKeys:
    node_keys: Mapping[tuple[int, int], rsa.RSAPrivateKey] = field(repr=False)
    """(node id, generation) -> private key."""
    council: tuple[ed25519.Ed25519PrivateKey, ...] = field(repr=False)


LAYOUT_NAMES = {"recordstreams": BucketLayout.ACCOUNT, "node-id": BucketLayout.NODE_ID}
"""Layout names as the CLI and the ground truth spell them."""


def layout_name(layout: BucketLayout) -> str:
    return next(name for name, value in LAYOUT_NAMES.items() if value is layout)


def node_object_path(config: GeneratorConfig, node: NodeInfo, file: StreamFileName) -> str:
    """Where ``node`` uploads ``file`` in the configured layout."""
    identity = (
        NodeIdentity(account=node.account)
        if config.layout is BucketLayout.ACCOUNT
        else NodeIdentity(node_id=node.node_id)
    )
    return object_path(config.layout, identity, file, network=config.network)


def address_book_file(epoch: BookEpoch) -> str:
    """Where the writer puts an epoch's book, relative to the output folder."""
    return f"address-books/from-block-{epoch.first_block}.bin"


NodeRef = int | str
"""A node by node id (int) or by account (``"0.0.3"``)."""


@dataclass(frozen=True)
class GeneratedStream:
    """A whole generated stream, in memory.

    ``objects`` maps a path relative to the bucket root (in the configured layout) to the bytes a
    node uploaded there. ``truth`` is the ground-truth document (what ``ground-truth.json`` holds).
    """

    config: GeneratorConfig
    nodes: tuple[NodeInfo, ...]
    objects: Mapping[str, bytes] = field(repr=False)
    address_book: bytes = field(repr=False)
    """The bootstrap book (in force from the first block)."""
    address_books: tuple[BookEpoch, ...] = field(repr=False)
    keys: StreamKeys = field(repr=False)
    periods: tuple[GeneratedPeriod, ...] = field(repr=False)
    truth: dict[str, Any] = field(repr=False)

    def node(self, ref: NodeRef) -> NodeInfo:
        for node in self.nodes:
            if ref in (node.node_id, node.account):
                return node
        raise GeneratorError(f"no node {ref!r} in the generated stream")

    def book_for_block(self, block_number: int) -> BookEpoch:
        for epoch in self.address_books:
            if epoch.first_block <= block_number <= epoch.last_block:
                return epoch
        raise GeneratorError(f"no address book in force for block {block_number}")

    def signing_key(self, ref: NodeRef, block_number: int) -> rsa.RSAPrivateKey:
        """The key ``ref`` signs ``block_number`` with."""
        node = self.node(ref)
        generation = self.book_for_block(block_number).key_generations[node.node_id]
        return self.keys.node_keys[(node.node_id, generation)]

    def path(self, ref: NodeRef, file: StreamFileName) -> str:
        """Where node ``ref`` uploads ``file`` in the configured layout."""
        return node_object_path(self.config, self.node(ref), file)

    def record_path(self, ref: NodeRef, period: int) -> str:
        return self.path(ref, self.periods[period].record_name)

    def signature_path(self, ref: NodeRef, period: int) -> str:
        return self.path(ref, self.periods[period].record_name.signature())

    def sidecar_paths(self, ref: NodeRef, period: int) -> tuple[str, ...]:
        return tuple(self.path(ref, sidecar.name) for sidecar in self.periods[period].sidecars)

    def period_paths(self, ref: NodeRef, period: int) -> tuple[str, ...]:
        """Every object node ``ref`` uploads for ``period``: record, signature, sidecars."""
        return (
            self.record_path(ref, period),
            self.signature_path(ref, period),
            *self.sidecar_paths(ref, period),
        )
