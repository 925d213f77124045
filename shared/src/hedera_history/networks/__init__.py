"""The public networks' facts, in one place: buckets, layout, bootstrap books, block-number pins.

Every value comes from the Hiero mirror node (paths under
``importer/src/main/java/org/hiero/mirror/importer/``); ``docs/networks.md`` lists them with their
sources. ``custom`` presets nothing: every value comes from the settings.

- Buckets (``ImporterProperties.HederaNetwork``): the same name on GCS and S3; the mirror node reads
  every network but demo as requester pays (``RequestPayer.REQUESTER`` on every S3 call) and demo
  anonymously (``isAllowAnonymousAccess``).
- Layout (``downloader/CommonDownloaderProperties.pathType``, default ``ACCOUNT_ID``): record files
  under ``recordstreams/record0.0.<N>/``; the newer node-id layout is
  ``<network>/<shard>/<nodeId>/record/`` with the network's name as first folder
  (``downloader/provider/S3StreamFileProvider.getNodeIdPrefix``).
- Bootstrap books (``addressbook/AddressBookServiceImpl``): ``addressbook/<network>``, or the
  ``<network>-<ns>`` book with the latest time not after the start; the files and the choice live
  with the other book code (``hedera_history.books.bootstrap``).
- Block-number pins (``migration/BlockNumberMigration.BLOCK_NUMBER_MAPPING``): the record file
  with that consensus end has that block number; files before V6 are numbered from it.
- Block streams (HIP-1056; ``ImporterProperties.HederaNetwork`` and ``downloader/block/``): each
  network's requester-pays ``hedera-<network>-recent-block-streams`` bucket, one file per block at
  ``<network>/block/<19-digit number split 4/4/4/4/3>.blk.zstd`` (``BlockFileSource``); mainnet and
  testnet cut over (``HederaNetwork.hasCutover``) after HAPI 0.79 (``block.cutover.hapiVersion``,
  the operator guide ``docs/cutover.md``: testnet 2026-11-25, mainnet 2026-12-09). No public
  network's ledger id is published yet (``BlockProperties.DEFAULT_LEDGER_IDS`` is empty): it comes
  from the stream (the ledger id publication) or the ``HEDERA_HISTORY_LEDGER_ID`` setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hedera_history.books.bootstrap import shipped_book_for, shipped_paths
from hedera_history.errors import ConfigError
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.networks.block_numbers import BlockPin

CUSTOM = "custom"


@dataclass(frozen=True, slots=True)
class Cutover:
    """The switch from record files to blocks (HIP-1193), as a follower detects it."""

    after_hapi_version: tuple[int, int, int]
    """The last HAPI version that writes record files: the cutover comes with a later release."""
    planned_utc: str
    """The announced date (``docs/cutover.md`` of the mirror node), for alerts and docs only."""


@dataclass(frozen=True, slots=True)
class Network:
    """One public network's stream facts."""

    name: str
    bucket: str
    """Record-stream bucket, the same name on GCS and on S3."""
    requester_pays: bool
    """Reads are billed to the reader (GCS ``userProject``, S3 ``RequestPayer=requester``)."""
    anonymous: bool
    """Readable without credentials (S3 unsigned requests)."""
    books: tuple[tuple[int, str], ...]
    """Bootstrap address books as (in force from ns, file under ``books/shipped/``), oldest first;
    the first is in force from genesis (0)."""
    pin: BlockPin | None = None
    """The mirror node's block-number pin for files before V6, if any."""
    layout: BucketLayout = BucketLayout.ACCOUNT
    prefix: str = ""
    """Folder inside the bucket above the layout's folders."""
    errata: str | None = None
    """The known errata shipped for the network (``errata.network.network_errata``), if any."""
    duplicate_blocks: str = ""
    """Record files that carry one block number, ``NUMBER:FIRST_END_NS:SECOND_END_NS``
    (``migration/MergeDuplicateBlocksMigration``), stored as one block (``store.duplicates``)."""
    block_bucket: str = ""
    """Block-stream bucket (HIP-1056 files, recent blocks only), requester pays as ``requester_pays``."""
    cutover: Cutover | None = None
    """When the network leaves the record stream for the block stream; None: it never does."""
    ledger_id: bytes | None = None
    """The TSS ledger id, where the network has published it."""
    block_nodes: tuple[str, ...] = ()
    """Block nodes (HIP-1081) serving its blocks, each ``[tls://]host[:port][@priority]``. None is
    public yet for any network: the reference mirror node ships none either, and finds them on
    chain (HIP-1137 registered nodes) or in its ``hiero.mirror.importer.block.nodes`` setting."""

    @property
    def block_folder(self) -> str:
        """The block bucket's folder of this network's block files (``<network>/block/``)."""
        return f"{self.name}/block/"

    @property
    def node_id_folder(self) -> str:
        """First folder of the node-id layout (``<network>/<shard>/<nodeId>/record/``)."""
        return self.name

    def bootstrap_book(self, at_ns: int | None = None) -> Path:
        """The packaged book the mirror node starts from for a start at ``at_ns`` (None: now, the newest)."""
        return shipped_book_for(self.books, at_ns)

    def packaged_books(self) -> tuple[Path, ...]:
        return shipped_paths(self.books)


NETWORKS: dict[str, Network] = {
    network.name: network
    for network in (
        Network(
            "mainnet",
            "hedera-mainnet-streams",
            requester_pays=True,
            anonymous=False,
            books=((0, "mainnet.bin"), (1769623200803405897, "mainnet-1769623200803405897.bin")),
            pin=BlockPin(consensus_end_ns=1656461547557609267, block_number=34305852),
            errata="mainnet",
            duplicate_blocks="44029066:1675962000231859003:1675962001984524003",
            block_bucket="hedera-mainnet-recent-block-streams",
            cutover=Cutover(after_hapi_version=(0, 79, 0), planned_utc="2026-12-09"),
        ),
        Network(
            "testnet",
            "hedera-testnet-streams-2024-02",
            requester_pays=True,
            anonymous=False,
            books=((0, "testnet.bin"), (1767117600294393897, "testnet-1767117600294393897.bin")),
            # From the testnet before its 2024 reset; the 2024-02 bucket's files are all V6 and
            # carry their own numbers, so the pin is never reached there.
            pin=BlockPin(consensus_end_ns=1656461617493248000, block_number=22384256),
            block_bucket="hedera-testnet-recent-block-streams",
            cutover=Cutover(after_hapi_version=(0, 79, 0), planned_utc="2026-11-25"),
        ),
        Network(
            "previewnet",
            "hedera-preview-testnet-streams",
            requester_pays=True,
            anonymous=False,
            books=((0, "previewnet.bin"),),
            block_bucket="hedera-previewnet-recent-block-streams",
        ),
        Network(
            "demo",
            "hedera-demo-streams",
            requester_pays=False,
            anonymous=True,
            books=((0, "demo.bin"),),
            block_bucket="hedera-demo-recent-block-streams",
        ),
    )
}
NAMES = (*NETWORKS, CUSTOM)


def block_folder_of(name: str) -> str:
    """The folder of network ``name``'s block files below a block bucket's root (``<network>/block/``;
    ``demo``'s for a custom network, as the generator writes it)."""
    preset = network_named(name)
    return preset.block_folder if preset is not None else "demo/block/"


def network_named(name: str) -> Network | None:
    """The preset called ``name``; None for ``custom``; ConfigError for anything else."""
    key = name.strip().lower()
    if key == CUSTOM:
        return None
    if key not in NETWORKS:
        raise ConfigError(f"unknown network {name!r}: expected one of {', '.join(NAMES)}")
    return NETWORKS[key]
