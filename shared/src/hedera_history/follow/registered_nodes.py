"""Block nodes registered on chain (HIP-1137), read from the blocks the follower reads.

HIP-1137 gives non-consensus nodes an on-chain address book: ``RegisteredNodeCreate``,
``RegisteredNodeUpdate`` and ``RegisteredNodeDelete`` transactions write a ``RegisteredNode``
(its id and service endpoints, each a block node's, mirror node's, relay's or other service's) into
the network's state, and a native block carries each such write as a state change of the
registered-nodes map (state id 56): a ``map_update`` with the whole ``RegisteredNode`` as its value,
a ``map_delete`` with its id as the key. Reading those state changes gives the registry after each
block without the transactions (whose receipts need the state changes anyway for a new node's id).

A registered node counts as a block node to read from, as the reference's
``BlockNodeDiscoveryService`` counts its "tier 1" nodes, when one of its block-node endpoints offers
the ``PUBLISH``, ``STATUS`` and ``SUBSCRIBE_STREAM`` APIs itself (APIs spread over several endpoints
do not count: this project's client, like the reference's, asks one address for ``serverStatus``,
``getBlock`` and the subscription); it is read at the first such endpoint, by domain name when it
has one (a host name: an endpoint whose domain name is not one is passed over), else by IP address,
with TLS when the endpoint requires it. Pure: no I/O.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hedera_history.formats.block import BlockFile, ItemKind, parse_block
from hedera_history.formats.block_protos import StateChanges
from hedera_history.formats.block_state import STATE_ID_REGISTERED_NODES

_API_PUBLISH, _API_STATUS, _API_SUBSCRIBE_STREAM = 2, 1, 3
_NEEDED_APIS = frozenset((_API_PUBLISH, _API_STATUS, _API_SUBSCRIBE_STREAM))
_MAP_UPDATE_FIELD, _MAP_DELETE_FIELD = 5, 6
_MARKERS = tuple(
    bytes((0x08, STATE_ID_REGISTERED_NODES, (field << 3) | 2)) for field in (_MAP_UPDATE_FIELD, _MAP_DELETE_FIELD)
)
"""``state_id`` 56 followed by a ``map_update`` or ``map_delete``, as any state change of the map
is serialised (fields in number order): a block without these bytes has no such change, and the
search over the decompressed block costs far less than parsing it."""
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST_NAME = re.compile(rf"(?=.{{1,254}}$){_LABEL}(?:\.{_LABEL})*\.?")
"""A host name (RFC 1123 labels): anyone can register a node, and a domain name holding anything else
(a comma, a colon, a scheme) is no address to dial, and would not be read back as one."""


@dataclass(frozen=True, slots=True)
class RegisteredNodeChange:
    registered_node_id: int
    endpoint: str | None
    """The block node to read it at (``[tls://]host:port``), None when the node was deleted or no
    longer offers the block-node APIs read."""


def may_register_block_nodes(content: bytes) -> bool:
    """Whether a serialised ``Block`` may carry a registered-node change (a cheap test first)."""
    return any(marker in content for marker in _MARKERS)


def registered_node_changes(content: bytes, name: str) -> list[RegisteredNodeChange]:
    """The registered-node changes of a serialised ``Block``, in order."""
    if not may_register_block_nodes(content):
        return []
    return list(changes_of(parse_block(content, name)))


def changes_of(block: BlockFile) -> Iterable[RegisteredNodeChange]:
    for item in block.items:
        if item.kind != ItemKind.STATE_CHANGES or not may_register_block_nodes(item.data):
            continue
        for change in StateChanges.FromString(item.payload).state_changes:
            if change.state_id != STATE_ID_REGISTERED_NODES:
                continue
            operation = change.WhichOneof("change_operation")
            if operation == "map_update" and change.map_update.value.HasField("registered_node_value"):
                node = change.map_update.value.registered_node_value
                yield RegisteredNodeChange(node.registered_node_id, block_node_endpoint(node.service_endpoint))
            elif operation == "map_delete" and change.map_delete.key.HasField("entity_number_key"):
                yield RegisteredNodeChange(change.map_delete.key.entity_number_key.value, None)


def block_node_endpoint(endpoints: Iterable[Any]) -> str | None:
    """Where a registered node is read as a block node (see the module), None when it is not one."""
    for endpoint in endpoints:
        if not endpoint.HasField("block_node") or not _NEEDED_APIS.issubset(endpoint.block_node.endpoint_api):
            continue
        host = _host_name(endpoint.domain_name) if endpoint.domain_name.strip() else _ip_text(endpoint.ip_address)
        if host and 0 < endpoint.port < 65536:
            return f"{'tls://' if endpoint.requires_tls else ''}{host}:{endpoint.port}"
    return None


def _host_name(text: str) -> str:
    name = text.strip()
    return name if _HOST_NAME.fullmatch(name) else ""


def _ip_text(raw: bytes) -> str:
    try:
        address = ipaddress.ip_address(raw)
    except ValueError:
        return ""
    return f"[{address}]" if address.version == 6 else str(address)


__all__ = [
    "RegisteredNodeChange",
    "block_node_endpoint",
    "changes_of",
    "may_register_block_nodes",
    "registered_node_changes",
]
