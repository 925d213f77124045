"""What the generator is asked for and what it hands back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

from hedera_history.errors import ConfigError, GeneratorError
from hedera_history.formats.names import StreamFileName
from hedera_history.formats.parsed_files import ChainLinked
from hedera_history.formats.stream_paths import BucketLayout, NodeIdentity, object_path

NS_PER_SECOND = 1_000_000_000
DEFAULT_START_NS = 1_717_200_000 * NS_PER_SECOND
"""2024-06-01T00:00:00Z, on a period boundary."""
FIRST_NODE_ACCOUNT = 3
MAX_NODES = 90
"""Node accounts are 0.0.3 upward and must stay below the fee collector 0.0.98."""
RECORD_VERSIONS = (1, 2, 5, 6)
"""Record file versions in the order the network used them."""
BLOCK_HAPI_VERSION = (0, 78, 0)
"""The HAPI version native blocks carry (the 16-leaf mountain top of HAPI 0.77 on)."""
_L16_FROM = (0, 77)


class PeriodKind(Enum):
    """What a period becomes: a record file, a wrapped record block (HIP-1427), a native block (HIP-1056)."""

    RECORD = "record"
    WRAPPED = "wrapped"
    NATIVE = "native"


PeriodTable = tuple[tuple[int, tuple[int, ...]], ...]
"""(period index, numbers) pairs, sorted by period: stakes per node id, or node ids."""


def _period_table(value: PeriodTable | Mapping[int, tuple[int, ...]]) -> PeriodTable:
    pairs = value.items() if isinstance(value, Mapping) else value
    return tuple(sorted((int(period), tuple(numbers)) for period, numbers in pairs))


@dataclass(frozen=True)
class StreamShape:
    """What a generated stream and a live network playing one share: nodes, items and names."""

    nodes: int = 4
    transactions: int = 20
    """Record stream items per period (child records and duplicates included)."""
    sidecars: bool = True
    seed: int = 0
    layout: BucketLayout = BucketLayout.ACCOUNT
    network: str = "demo"
    """First folder of the node-id layout."""
    start_block: int = 0

    def shape(self) -> dict[str, Any]:
        """These fields by name, to build another config of the same stream."""
        return {f.name: getattr(self, f.name) for f in fields(StreamShape)}


@dataclass(frozen=True)
class GeneratorConfig(StreamShape):
    """Everything that decides a generated stream; equal configs give byte-identical streams."""

    periods: int = 10
    hapi_version: tuple[int, int, int] = (0, 56, 0)
    period_seconds: float = 2
    """Period length; a fraction of a second is allowed (live playback in tests)."""
    start_time_ns: int = DEFAULT_START_NS
    accounts: int = 12
    """User accounts funded at genesis (0.0.1001 upward)."""
    council_keys: int = 5
    rotate_key: bool = True
    """Rotate one node's key through a 0.0.102 update halfway, when there are at least 4 periods."""
    stakes: tuple[int, ...] | None = None
    """Stake per node (by node id) in the address book; one each when None."""
    eras: tuple[tuple[int, int], ...] | None = None
    """(record file version, periods) in stream order, versions among 1, 2, 5, 6 and rising, the
    periods adding up to ``periods``; None: every period V6."""
    duplicate_block_at: int | None = None
    """Block number N carried by two consecutive V6 files (the one after says N + 1), as mainnet's
    block 44029066."""
    stake_updates: PeriodTable | Mapping[int, tuple[int, ...]] = ()
    """(period index, stake per node id): that period's first item is a ``NodeStakeUpdate`` paid by
    0.0.2 with these stakes. A mapping is accepted too."""
    signers: PeriodTable | Mapping[int, tuple[int, ...]] = ()
    """(period index, node ids): only these nodes upload a signature file for that period (the
    others still upload the record and sidecar files); periods not listed: every node. In a block
    period: the nodes whose RSA signatures a wrapped block's proof holds, or who sign and endorse a
    native block's TSS signature. A mapping is accepted too."""
    cutover_after: int | None = None
    """Record periods before the network streams blocks: then ``wrapped_periods`` wrapped record
    blocks, then native blocks. None: record files throughout; 0: blocks from the first period."""
    wrapped_periods: int = 0
    block_hapi_version: tuple[int, int, int] = BLOCK_HAPI_VERSION
    sign_every: int = 1
    """Every n-th native block is signed directly (and the stream's last one); the ones before it
    carry a ``block_state_proof`` through its signature."""
    flat_blocks: bool = False
    """Block files named by their 19-digit number in one folder instead of the bucket's folders."""
    topics: int = 0
    """Topics created in the first periods, then messages (some chunked) in the mix
    (``gen.topics``); 0: no topic transactions, the stream as without this setting."""
    network_files: bool = False
    """Updates of the exchange-rate file 0.0.112 and the fee schedule 0.0.111 in the first periods,
    then now and then (``gen.network_files``); False: none, the stream as without this setting."""
    tokens: bool = False
    """Token service kinds (create, associate, mint, burn, transfers with automatic associations),
    allowances and the transfers spending them, airdrops with their claims and cancels, account
    updates and schedules signed later, first in the periods then in the mix (``gen.token_player``,
    ``gen.account_player``), with their state in the truth; False: none, the stream as without
    this setting."""
    node_endpoints: bool = False
    """Address books whose entries carry service endpoints, a certificate hash and a description
    (``gen.books``); False: the books as without this setting."""
    staking_rewards: bool = False
    """Hbar transfers pay their receiver a staking reward now and then: 0.0.800 (funded at genesis)
    to the receiver in the transfer list, the pair in the record's ``paid_staking_rewards`` (and a
    native block's transaction result), as the network pays a staked account's pending reward when
    its balance changes; False: none, the stream as without this setting."""
    contract_logs: bool = False
    """Contract calls emit logs now and then (from the called contract, sometimes from another):
    topics, data and blooms in the record's result (and a native block's trace data), the logs in
    the truth (``logs``); drawn apart from the rest, so False leaves the stream as without this
    setting."""
    registered_nodes: bool = False
    """The first native periods create, update and delete registered nodes (HIP-1137) on a fixed
    plan (``gen.registered_nodes``), with their state changes, and the truth gains
    ``registered_nodes``; False: none, the stream as without this setting."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "stake_updates", _period_table(self.stake_updates))
        object.__setattr__(self, "signers", _period_table(self.signers))
        checks = [
            (1 <= self.nodes <= MAX_NODES, f"nodes must be 1..{MAX_NODES}, got {self.nodes}"),
            (self.periods >= 1, f"periods must be at least 1, got {self.periods}"),
            (self.transactions >= 1, f"transactions must be at least 1, got {self.transactions}"),
            (self.start_block >= 0, f"start block must not be negative, got {self.start_block}"),
            (self.period_seconds > 0, f"period must be longer than 0 s, got {self.period_seconds}"),
            (self.accounts >= 2, f"accounts must be at least 2, got {self.accounts}"),
            (self.council_keys >= 1, f"council keys must be at least 1, got {self.council_keys}"),
            (self.start_time_ns > 60 * NS_PER_SECOND, "start time must be after 1970-01-01T00:01:00Z"),
            (self.network != "" and "/" not in self.network, f"bad network name {self.network!r}"),
            (
                self.transactions * 4 < self.period_ns,
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
        checks += self._era_checks() + self._duplicate_checks() + self._table_checks() + self._block_checks()
        for ok, message in checks:
            if not ok:
                raise ConfigError(message)

    def _era_checks(self) -> list[tuple[bool, str]]:
        if self.eras is None:
            return []
        versions = [version for version, _ in self.eras]
        return [
            (bool(self.eras), "eras must not be empty"),
            (
                all(v in RECORD_VERSIONS for v in versions) and versions == sorted(set(versions)),
                f"era versions must be among {RECORD_VERSIONS}, each once, rising; got {versions}",
            ),
            (all(count >= 1 for _, count in self.eras), f"every era needs at least one period, got {self.eras}"),
            (
                sum(count for _, count in self.eras) == self.periods,
                f"the eras hold {sum(c for _, c in self.eras)} periods, the stream {self.periods}",
            ),
        ]

    def _duplicate_checks(self) -> list[tuple[bool, str]]:
        if self.duplicate_block_at is None:
            return []
        first = self.duplicate_block_at - self.start_block
        fits = first >= 0 and first + 1 < self.periods
        return [
            (fits, f"duplicate block {self.duplicate_block_at} needs two periods from block {self.start_block} on"),
            (
                not fits or self.version_of(first) == self.version_of(first + 1) == 6,
                f"duplicate block {self.duplicate_block_at}: only V6 files carry a block number",
            ),
        ]

    def _table_checks(self) -> list[tuple[bool, str]]:
        checks = []
        for name, table in (("stake_updates", self.stake_update_table), ("signers", self.signer_table)):
            periods = [period for period, _ in table]
            checks.append(
                (
                    len(set(periods)) == len(periods) and all(0 <= p < self.periods for p in periods),
                    f"{name}: periods must be distinct and within 0..{self.periods - 1}, got {periods}",
                )
            )
        for period, stakes in self.stake_update_table:
            checks.append(
                (
                    len(stakes) == self.nodes and all(s >= 0 for s in stakes),
                    f"stake_updates[{period}]: expected {self.nodes} stakes >= 0, got {stakes}",
                )
            )
        for period, node_ids in self.signer_table:
            checks.append(
                (
                    len(set(node_ids)) == len(node_ids) and all(0 <= n < self.nodes for n in node_ids),
                    f"signers[{period}]: expected distinct node ids within 0..{self.nodes - 1}, got {node_ids}",
                )
            )
        return checks

    def _block_checks(self) -> list[tuple[bool, str]]:
        if self.cutover_after is None:
            return [(self.wrapped_periods == 0, "wrapped periods come after a cutover: set cutover_after")]
        return [
            (self.cutover_after >= 0, f"cutover must be after 0 periods or more, got {self.cutover_after}"),
            (self.wrapped_periods >= 0, f"wrapped periods must not be negative, got {self.wrapped_periods}"),
            (self.eras is None, "eras are record streams only: a stream with blocks is V6 up to its cutover"),
            (self.duplicate_block_at is None, "a duplicate block number is a record stream's (mainnet's 44029066)"),
            (self.sign_every >= 1, f"sign_every must be at least 1, got {self.sign_every}"),
            (
                self.block_hapi_version[:2] >= _L16_FROM,
                f"native blocks are generated from HAPI 0.77 on, got {self.block_hapi_version}",
            ),
        ]

    def kind_of(self, period: int) -> PeriodKind:
        """What period ``period`` becomes."""
        if self.cutover_after is None or period < self.cutover_after:
            return PeriodKind.RECORD
        if period < self.cutover_after + self.wrapped_periods:
            return PeriodKind.WRAPPED
        return PeriodKind.NATIVE

    @property
    def has_blocks(self) -> bool:
        return self.cutover_after is not None

    def version_of(self, period: int) -> int:
        """The record file version of period ``period``."""
        if self.eras is None:
            return 6
        for version, count in self.eras:
            if period < count:
                return version
            period -= count
        return self.eras[-1][0]

    @property
    def era_list(self) -> tuple[tuple[int, int], ...]:
        """The eras, the default spelled out."""
        return self.eras if self.eras is not None else ((6, self.periods),)

    def block_number_of(self, period: int) -> int:
        """The block number of period ``period``: ``start_block`` upward, one number given twice
        at ``duplicate_block_at``."""
        number = self.start_block + period
        if self.duplicate_block_at is not None and number > self.duplicate_block_at:
            return number - 1
        return number

    @property
    def stake_update_table(self) -> PeriodTable:
        return _period_table(self.stake_updates)  # already one, after __post_init__

    @property
    def signer_table(self) -> PeriodTable:
        return _period_table(self.signers)

    def stake_update_at(self, period: int) -> tuple[int, ...] | None:
        return dict(self.stake_update_table).get(period)

    def signers_at(self, period: int) -> tuple[int, ...] | None:
        """The node ids that sign ``period``; None: every node."""
        return dict(self.signer_table).get(period)

    @property
    def period_ns(self) -> int:
        return round(self.period_seconds * NS_PER_SECOND)

    @property
    def hapi_version_text(self) -> str:
        return ".".join(str(part) for part in self.hapi_version)

    @property
    def end_block(self) -> int:
        """The last block's number."""
        return self.block_number_of(self.periods - 1)


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
class GeneratedPeriod(ChainLinked):
    """One period (block) as every honest node wrote it."""

    index: int
    block_number: int
    record_name: StreamFileName
    record_bytes: bytes
    """Decompressed (V6: int32 6, then the ``RecordStreamFile``; earlier versions are not compressed)."""
    file_hash: bytes
    metadata_hash: bytes | None
    """V5 and V6 only."""
    start_running_hash: bytes | None
    """V5 and V6 only."""
    end_running_hash: bytes | None
    """V5 and V6 only."""
    consensus_start_ns: int
    consensus_end_ns: int
    item_count: int
    sidecars: tuple[GeneratedSidecar, ...]
    version: int = 6
    previous_file_hash: bytes | None = None
    """V1 and V2 only: the hash of the file before, as this file names it."""


@dataclass(frozen=True, slots=True)
class GeneratedBlock:
    """One block file of a period after the cutover: a wrapped record block or a native block."""

    index: int
    block_number: int
    kind: PeriodKind
    path: str
    """Where the block file is, relative to the bucket root."""
    root_hash: bytes
    previous_root_hash: bytes
    all_block_hashes_root: bytes
    timestamp_ns: int
    """The block header's timestamp."""
    consensus_start_ns: int
    consensus_end_ns: int
    transactions: int
    item_counts: tuple[tuple[str, int], ...]
    """Block items by kind, in the order kinds first appear."""
    proof: str
    """``signed_record_file_proof``, ``signed_block_proof`` or ``block_state_proof``."""
    proven_by: int
    """The block whose signature proves this one (itself, unless a state proof)."""
    signers: tuple[int, ...]
    """Node ids: those whose RSA signatures a wrapped block holds, or who signed a native block's TSS signature."""
    sidecar_types: tuple[int, ...]
    sidecar_records: int
    record: GeneratedPeriod | None = None
    """A wrapped block's record file."""


GeneratedUnit = GeneratedPeriod | GeneratedBlock
"""What a period became: a record file, or a block file after the cutover."""


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


LEDGER_PUBLICATION_FILE = "ledger-id-publication.bin"
"""Where the writer puts the ``SignedTransaction`` publishing the TSS ledger id (a stream with native
blocks): the trust root of its TSS signatures, as ``address-book.bin`` is of its RSA ones."""


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
    """The record files, by period index (the periods before the cutover)."""
    truth: dict[str, Any] = field(repr=False)
    blocks: tuple[GeneratedBlock, ...] = field(default=(), repr=False)
    """The block files after the cutover, in order."""
    ledger_publication: bytes | None = field(default=None, repr=False)
    """The ``SignedTransaction`` publishing the TSS ledger id and roster native blocks are signed
    under (block 0's first transaction); None for a record stream."""

    def block(self, number: int) -> GeneratedBlock:
        for block in self.blocks:
            if block.block_number == number:
                return block
        raise GeneratorError(f"no block file {number} in the generated stream")

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
