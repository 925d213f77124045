"""Block nodes registered on chain (HIP-1137), read from the blocks the follower reads.

HIP-1137 gives non-consensus nodes an on-chain address book: ``RegisteredNodeCreate``,
``RegisteredNodeUpdate`` and ``RegisteredNodeDelete`` transactions write a ``RegisteredNode``
(its id and service endpoints, each a block node's, mirror node's, relay's or other service's) into
the network's state, and a native block carries each such write as a state change of the
registered-nodes map (state id 56): a ``map_update`` with the whole ``RegisteredNode`` as its value,
a ``map_delete`` with its id as the key. Reading those state changes gives the registry after each
block without the transactions (whose receipts need the state changes anyway for a new node's id).

Which registered node is a block node to read from, and where, is ``books.registered_nodes``
(one home for what a registered node is, shared with the API). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hedera_history.books.registered_nodes import block_node_endpoint
from hedera_history.formats.block import BlockFile, ItemKind
from hedera_history.formats.block_protos import StateChanges
from hedera_history.formats.block_state import STATE_ID_REGISTERED_NODES

_MAP_UPDATE_FIELD, _MAP_DELETE_FIELD = 5, 6
_MARKERS = tuple(
    bytes((0x08, STATE_ID_REGISTERED_NODES, (field << 3) | 2)) for field in (_MAP_UPDATE_FIELD, _MAP_DELETE_FIELD)
)
"""``state_id`` 56 followed by a ``map_update`` or ``map_delete``, as any state change of the map
is serialised (fields in number order): a block without these bytes has no such change, and the
search over the block's bytes costs far less than a look at each of its items."""


@dataclass(frozen=True, slots=True)
class RegisteredNodeChange:
    registered_node_id: int
    endpoint: str | None
    """The block node to read it at (``[tls://]host:port``), None when the node was deleted or no
    longer offers the block-node APIs read."""


def may_register_block_nodes(content: bytes) -> bool:
    """Whether a serialised ``Block`` may carry a registered-node change (a cheap test first)."""
    return any(marker in content for marker in _MARKERS)


def registered_node_changes(block: BlockFile) -> list[RegisteredNodeChange]:
    """The registered-node changes of a parsed block, in order: none without a look at its items
    when the block as read has no marker (one search of its bytes, when the parse kept them)."""
    whole = block.items_only
    if whole is not None and not may_register_block_nodes(whole):
        return []
    return list(changes_of(block))


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


__all__ = [
    "RegisteredNodeChange",
    "block_node_endpoint",
    "changes_of",
    "may_register_block_nodes",
    "registered_node_changes",
]
