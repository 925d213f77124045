"""Where the follower reads blocks after the cutover: block nodes first, the block bucket behind them.

As the mirror node's ``CompositeBlockSource`` does, each block is asked by its number from the
sources in order (block nodes when configured, then the bucket): a block one source does not
have, or a source that fails, falls through to the next, so a block missing from one and served
by the other is filled, never skipped. The bucket is read one object per block at its known name
(``<network>/block/<split number>.blk.zstd``, ``BlockFileSource``): nothing is listed, nothing
but the block needed is read.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from hedera_history.config import Settings
from hedera_history.errors import (
    BlockNotFoundError,
    BlockNotYetAvailableError,
    ConfigError,
    FileNameError,
    ObjectNotFoundError,
    SourceError,
)
from hedera_history.formats.names import block_file_path, parse_block_file_name
from hedera_history.logs import event
from hedera_history.networks import block_folder_of, network_named
from hedera_history.sources.base import ObjectSource, open_source
from hedera_history.sources.block_node import BlockNodeClient, BlockNodeOptions
from hedera_history.sources.block_node_api import BlockNodeEndpoint, parse_endpoint, parse_endpoints

logger = logging.getLogger(__name__)

BUCKET_FOLDER_LEVELS = 4
"""Folders above a block file in the bucket layout (``0000/0000/0000/0000/007.blk.zstd``)."""


@dataclass(frozen=True, slots=True)
class FetchedBlock:
    number: int
    name: str
    """The file's name (what the block is quarantined and reported under)."""
    data: bytes
    """The block file as stored (a block node's block is the serialised ``Block``, uncompressed)."""
    source: str
    """Which source served it (``block node`` or ``bucket``)."""


class BlockFetcher(Protocol):
    kind: str

    def fetch(self, number: int) -> FetchedBlock | None:
        """Block ``number``, None when this source does not have it (yet); SourceError when it failed."""
        ...

    def newest(self) -> int | None:
        """The number of the newest block this source has, None when it has none; SourceError when
        it failed."""
        ...


class BucketBlocks:
    """Block files at their names in a bucket (or a directory in its layout)."""

    kind = "bucket"

    def __init__(self, source: ObjectSource, folder: str) -> None:
        self.source = source
        self.folder = folder

    def fetch(self, number: int) -> FetchedBlock | None:
        name = self.folder + block_file_path(number)
        try:
            return FetchedBlock(number, name, self.source.read(name), self.kind)
        except ObjectNotFoundError:
            return None

    def newest(self) -> int | None:
        """Down the number folders (``0000/0000/0000/0000/``), the last at each level, then the last
        block file in the last one: a handful of list calls, however many blocks the bucket keeps."""
        folder = self.folder
        for _ in range(BUCKET_FOLDER_LEVELS):
            below = self.source.list_prefixes(folder)
            if not below:
                return None
            folder = below[-1]
        numbers = [_number(info.name[len(self.folder) :]) for info in self.source.list(folder, delimiter="/")]
        known = [number for number in numbers if number is not None]
        return max(known, default=None)


class NodeBlocks:
    """Blocks from block nodes (HIP-1081), by priority with failover (``sources.block_node``)."""

    kind = "block node"

    def __init__(self, client: BlockNodeClient, *, registered: bool = False) -> None:
        self.client = client
        self.registered = registered
        """Block nodes registered on chain (HIP-1137), asked after the configured ones."""
        if registered:
            self.kind = "registered block node"

    def fetch(self, number: int) -> FetchedBlock | None:
        try:
            block = self.client.get_block(number)
        except (BlockNotFoundError, BlockNotYetAvailableError):
            return None
        return FetchedBlock(number, f"{number:019d}.blk", block.content, self.kind)

    def newest(self) -> int | None:
        """The last block any of the nodes holds (their ``serverStatus``)."""
        return max((s.last_available for s in self.client.statuses() if s.last_available is not None), default=None)


class CompositeBlocks:
    """The sources in order; the first that has the block serves it."""

    def __init__(self, sources: Sequence[BlockFetcher]) -> None:
        self.sources = tuple(sources)
        self.errors = 0

    @property
    def kinds(self) -> str:
        return ", ".join(source.kind for source in self.sources) or "none"

    def fetch(self, number: int) -> FetchedBlock | None:
        for source in self.sources:
            try:
                block = source.fetch(number)
            except SourceError as e:
                self.errors += 1
                event(logger, "block source failed", logging.WARNING, source=source.kind, block=number, error=str(e))
                continue
            if block is not None:
                return block
        return None

    def newest(self) -> int | None:
        """The newest block any source has (a source that fails is logged and passed over)."""
        found: list[int] = []
        for source in self.sources:
            try:
                number = source.newest()
            except SourceError as e:
                self.errors += 1
                event(logger, "block source failed", logging.WARNING, source=source.kind, block=None, error=str(e))
                continue
            found.extend([number] if number is not None else [])
        return max(found, default=None)


def _number(relative: str) -> int | None:
    try:
        return parse_block_file_name(relative).number
    except FileNameError:
        return None


def with_registered(sources: CompositeBlocks, endpoints: Sequence[str], settings: Settings) -> CompositeBlocks:
    """``sources`` with the block nodes registered on chain (``follow.registered_nodes``) after the
    configured ones and before the bucket, those configured already left out; unchanged when
    discovery is off (``HEDERA_HISTORY_BLOCK_NODE_DISCOVERY``) and when unsigned blocks are taken
    (``HEDERA_HISTORY_UNSIGNED_BLOCKS``: a placeholder proof anyone can make, so any registrant's
    blocks would be taken)."""
    if not reads_registered(settings):
        return sources
    configured = {(e.host, e.port, e.tls) for e in parse_endpoints(settings.block_nodes)}
    found = [e for e in _registered_endpoints(endpoints) if (e.host, e.port, e.tls) not in configured]
    kept = [source for source in sources.sources if not getattr(source, "registered", False)]
    if found:
        client = BlockNodeClient(found, BlockNodeOptions.from_settings(settings))
        after = sum(1 for source in kept if isinstance(source, NodeBlocks))
        kept.insert(after, NodeBlocks(client, registered=True))
    return CompositeBlocks(kept)


def reads_registered(settings: Settings) -> bool:
    """Whether block nodes registered on chain are read (see :func:`with_registered`)."""
    return settings.block_node_discovery and not settings.unsigned_blocks


def _registered_endpoints(endpoints: Sequence[str]) -> list[BlockNodeEndpoint]:
    """The registered endpoints that parse, each on its own: they come from the chain, where anyone
    registers, so one that does not is logged and left out rather than stopping the follower."""
    parsed: list[BlockNodeEndpoint] = []
    for text in endpoints:
        try:
            if "," in text:
                raise ConfigError(f"block node {text!r}: not one address")
            parsed.append(parse_endpoint(text))
        except ConfigError as e:
            event(logger, "registered block node left out", logging.WARNING, endpoint=text, reason=str(e))
    return parsed


def block_source_url(settings: Settings) -> str:
    """The block bucket root: ``block_source``, else the preset's block bucket on GCS, else none."""
    if settings.block_source:
        return settings.block_source
    preset = network_named(settings.network)
    return f"gs://{preset.block_bucket}" if preset is not None and preset.block_bucket else ""


def block_sources(settings: Settings, *, bucket: ObjectSource | None = None) -> CompositeBlocks:
    """Block nodes (when configured) then the bucket (when there is one)."""
    sources: list[BlockFetcher] = []
    if settings.block_nodes:
        sources.append(NodeBlocks(BlockNodeClient.from_settings(settings)))
    url = block_source_url(settings)
    if bucket is None and url:
        bucket = open_source(url, settings)
    if bucket is not None:
        sources.append(BucketBlocks(bucket, block_folder_of(settings.network)))
    return CompositeBlocks(sources)


__all__ = [
    "BlockFetcher",
    "BucketBlocks",
    "CompositeBlocks",
    "FetchedBlock",
    "NodeBlocks",
    "block_source_url",
    "block_sources",
    "reads_registered",
    "with_registered",
]
