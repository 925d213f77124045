"""The block nodes the follower found registered on chain (``follow.registered_nodes``), kept durably.

Row ``follow/block_nodes`` of ``ingest_progress``, cell ``p:nodes``: JSON of the registered node id
-> endpoint of each registered block node, and the last block whose changes it holds. The follower
applies each block's registered-node changes as it publishes the block and writes the row when they
changed it; a restarted follower reads the row back, so the nodes found stay sources. Blocks read
again after a restart apply the same changes again: the same registry.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from hedera_history.errors import RowDecodeError
from hedera_history.follow.registered_nodes import RegisteredNodeChange
from hedera_history.store import schema as s
from hedera_history.store.encoding import decode_value, encode_value
from hedera_history.store.gateway import BigtableGateway, RowQuery, write_or_raise
from hedera_history.store.model import Cell, Row

REGISTRY_KEY = b"follow/block_nodes"
Q_NODES = b"nodes"


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


def write_registry(gateway: BigtableGateway, registry: BlockNodeRegistry) -> None:
    """Store ``registry`` (StoreUnavailableError when the write did not apply)."""
    cell = Cell(s.INGEST_PROGRESS_FAMILY, Q_NODES, encode_value(registry.to_json()), 0)
    row = Row(s.INGEST_PROGRESS, REGISTRY_KEY, (cell,))
    write_or_raise(gateway, s.INGEST_PROGRESS, [row], "registered block nodes")


__all__ = ["BlockNodeRegistry", "read_registry", "write_registry"]
