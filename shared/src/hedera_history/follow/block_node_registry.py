"""The block nodes the follower found registered on chain (``follow.registered_nodes``), kept durably.

Row ``follow/block_nodes`` of ``ingest_progress``, cell ``p:nodes``: JSON of the registered node id
-> endpoint of each registered block node, and the last block whose changes it holds. The follower
applies each block's registered-node changes as it publishes the block and writes the row when they
changed it; a restarted follower reads the row back, so the nodes found stay sources. Blocks read
again after a restart apply the same changes again: the same registry.

The follower learns only from the blocks it reads, so a follower begins with the block nodes the
store's registered-node index holds as of its latest complete block (what load, the backfill and
ingest wrote with each block's rows, read as ``/api/v1/network/registered-nodes`` reads it:
``store.reader_registered_nodes``), its own row on top (:func:`starting_registry`): nodes registered
before its first block, in blocks it never read, are asked too, and deleted ones are not.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from hedera_history.books.registered_nodes import BLOCK_NODE, RegisteredNode, readable_block_node
from hedera_history.config import Settings
from hedera_history.errors import HistoryError, RowDecodeError
from hedera_history.follow.block_sources import reads_registered
from hedera_history.follow.registered_nodes import RegisteredNodeChange
from hedera_history.logs import event
from hedera_history.store import schema as s
from hedera_history.store.encoding import decode_value, encode_value
from hedera_history.store.gateway import BigtableGateway, RowQuery, write_or_raise
from hedera_history.store.model import Cell, Row
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_registered_nodes import registered_nodes_page

logger = logging.getLogger(__name__)

REGISTRY_KEY = b"follow/block_nodes"
Q_NODES = b"nodes"
INDEX_PAGE = 100
"""Registered nodes read from the index at a time."""


@dataclass(frozen=True, slots=True)
class BlockNodeRegistry:
    nodes: Mapping[int, str] = field(default_factory=dict)
    """Registered node id -> ``[tls://]host:port``."""
    through_block: int | None = None
    """The last block whose changes are applied."""

    @property
    def endpoints(self) -> tuple[str, ...]:
        """The registered block nodes' endpoints, by node id, each once."""
        return tuple(dict.fromkeys(self.nodes[node_id] for node_id in sorted(self.nodes)))

    def applied(self, changes: Iterable[RegisteredNodeChange], block: int) -> BlockNodeRegistry:
        nodes = dict(self.nodes)
        for change in changes:
            if change.endpoint is None:
                nodes.pop(change.registered_node_id, None)
            else:
                nodes[change.registered_node_id] = change.endpoint
        return BlockNodeRegistry(nodes, block)

    def over(self, nodes: Mapping[int, str]) -> BlockNodeRegistry:
        """``nodes`` with this registry's on top (where both name a node, this registry's endpoint)."""
        return BlockNodeRegistry({**nodes, **self.nodes}, self.through_block)

    def to_json(self) -> bytes:
        nodes = {str(node_id): endpoint for node_id, endpoint in sorted(self.nodes.items())}
        return json.dumps({"nodes": nodes, "through_block": self.through_block}, sort_keys=True).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> BlockNodeRegistry:
        try:
            data = json.loads(raw)
            through = data.get("through_block")
            nodes = {int(node_id): str(endpoint) for node_id, endpoint in dict(data["nodes"]).items()}
            return cls(nodes, None if through is None else int(through))
        except (ValueError, KeyError, TypeError) as e:
            raise RowDecodeError(f"registered block nodes: unreadable cell: {e}") from e


def read_registry(gateway: BigtableGateway) -> BlockNodeRegistry:
    """The stored registry; an empty one before any was written."""
    query = RowQuery(keys=(REGISTRY_KEY,), families=(s.INGEST_PROGRESS_FAMILY,))
    for row in gateway.read_rows(s.INGEST_PROGRESS, query):
        cell = row.cell(s.INGEST_PROGRESS_FAMILY, Q_NODES)
        if cell is not None:
            return BlockNodeRegistry.from_json(decode_value(cell.value))
    return BlockNodeRegistry()


def starting_registry(gateway: BigtableGateway, settings: Settings) -> BlockNodeRegistry:
    """The registry a follower begins with: its stored row over the block nodes of the store's
    registered-node index (see the module); the row alone when discovery is off (nothing registered
    is read then) or the index cannot be read (logged, never an error: the follower still starts)."""
    registry = read_registry(gateway)
    if not reads_registered(settings):
        return registry
    try:
        indexed = indexed_block_nodes(HistoryReader(gateway))
    except HistoryError as e:
        event(logger, "registered block nodes not read from the store", logging.WARNING, error=str(e))
        return registry
    return registry.over(indexed)


def indexed_block_nodes(reader: HistoryReader) -> dict[int, str]:
    """Registered node id -> where it is read as a block node, for the registered nodes of the store's
    index as of its latest complete block (deleted ones left out), by id."""
    nodes: dict[int, str] = {}
    low = 0
    while True:
        page = registered_nodes_page(reader, low, None, _has_block_node, INDEX_PAGE)
        for error in page.errors:
            event(logger, "registered node row unreadable", logging.WARNING, error=str(error))
        for node in page.nodes:
            endpoint = readable_block_node(node.endpoints)
            if endpoint is not None:
                nodes[node.registered_node_id] = endpoint
        if not page.more or not page.nodes:
            return nodes
        low = page.nodes[-1].registered_node_id + 1


def _has_block_node(node: RegisteredNode) -> bool:
    return BLOCK_NODE in node.node_types


def write_registry(gateway: BigtableGateway, registry: BlockNodeRegistry) -> None:
    """Store ``registry`` (StoreUnavailableError when the write did not apply)."""
    cell = Cell(s.INGEST_PROGRESS_FAMILY, Q_NODES, encode_value(registry.to_json()), 0)
    row = Row(s.INGEST_PROGRESS, REGISTRY_KEY, (cell,))
    write_or_raise(gateway, s.INGEST_PROGRESS, [row], "registered block nodes")


__all__ = ["BlockNodeRegistry", "indexed_block_nodes", "read_registry", "starting_registry", "write_registry"]
