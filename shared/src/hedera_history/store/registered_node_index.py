"""The registered-node index (HIP-1137): the transactions that made each registered node what it is.
Pure: keys and what one transaction contributes.

``regnode/<registered node id, hex16>/<consensus ns, hex16>/<change>``, ``<change>`` ``c`` for a
successful RegisteredNodeCreate (by its receipt's ``registered_node_id``), ``u`` for a successful
RegisteredNodeUpdate and ``d`` for a successful RegisteredNodeDelete of the node. A node's rows are
adjacent, oldest first, and the nodes in id order, so ``/network/registered-nodes`` is a scan from a
node id, folded node by node from its transactions (``books.registered_nodes``). Record files carry
none (the transactions came with block streams).

The rows live in ``account_history`` beside the entity index (``store.entity_index``), each with the
pointer cell an account's history entry has, so errata correct them and readers check their block's
completion alike.
"""

from __future__ import annotations

from typing import Any

from hedera_history.books.registered_nodes import CREATE_CASE, DELETE_CASE, NODE_CASES, UPDATE_CASE, node_id_of
from hedera_history.errors import RowLayoutError
from hedera_history.store.entity_index import REGISTERED_NODE_PREFIX, SUCCESS
from hedera_history.store.keys import ACCOUNT_SEPARATOR, MAX_U64, decode_hex16, hex16, prefix_end

CREATED, UPDATED, DELETED = b"c", b"u", b"d"
_CHANGES = {CREATE_CASE: CREATED, UPDATE_CASE: UPDATED, DELETE_CASE: DELETED}
_ALL_CHANGES = frozenset(_CHANGES.values())


def registered_node_index_keys(case: str | None, body: Any, record: Any, consensus_ns: int) -> list[bytes]:
    """The index row of one transaction whose body's ``data`` case is ``case`` (almost always none)."""
    if case not in NODE_CASES or record.receipt.status != SUCCESS:
        return []
    node_id = node_id_of(case, body, record)
    if node_id is None or not 0 <= node_id <= MAX_U64:
        return []
    return [registered_node_key(node_id, consensus_ns, _CHANGES[case])]


def registered_node_key(node_id: int, consensus_ns: int, change: bytes) -> bytes:
    return (
        REGISTERED_NODE_PREFIX + hex16(node_id) + ACCOUNT_SEPARATOR + hex16(consensus_ns) + ACCOUNT_SEPARATOR + change
    )


def registered_node_range(low: int, high: int | None) -> tuple[bytes, bytes]:
    """``[start, end)`` of the rows of the nodes ``low`` to ``high`` (None: no end), inclusive."""
    start = REGISTERED_NODE_PREFIX + hex16(low)
    if high is None or high >= MAX_U64:
        return start, prefix_end(REGISTERED_NODE_PREFIX)
    return start, REGISTERED_NODE_PREFIX + hex16(high + 1)


def decode_registered_node_key(key: bytes) -> tuple[int, int, bytes]:
    """``(node id, consensus ns, change)`` of an index row."""
    parts = key[len(REGISTERED_NODE_PREFIX) :].split(ACCOUNT_SEPARATOR)
    if not key.startswith(REGISTERED_NODE_PREFIX) or len(parts) != 3 or parts[2] not in _ALL_CHANGES:
        raise RowLayoutError(f"not a registered node index key: {key!r}")
    return decode_hex16(parts[0]), decode_hex16(parts[1]), parts[2]


__all__ = [
    "CREATED",
    "DELETED",
    "UPDATED",
    "decode_registered_node_key",
    "registered_node_index_keys",
    "registered_node_key",
    "registered_node_range",
]
