"""Read paths of the registered-node index (``store.registered_node_index``): the registered nodes as
of the latest complete block, a page at a time in id order. As on every read path, only complete
blocks count and rows an errata removed do not exist.

A page is a scan from a node id, the nodes' transactions read together a page at a time (more when
deleted nodes or a filter leave some out) and folded node by node (``books.registered_nodes``).
Newest first there are no reverse scans: ``store.index_scan.id_groups`` finds the highest id and
scans the ids below it in windows that double.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hedera_history.books.registered_nodes import RegisteredNode, applied
from hedera_history.errors import CorruptFileError, RowDecodeError
from hedera_history.store.accounts import decode_transaction_body
from hedera_history.store.decode import AccountHistoryEntry
from hedera_history.store.gateway import StoredRow
from hedera_history.store.index_scan import IdGroup, fold_page, group_transactions, id_groups
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import pointed_value
from hedera_history.store.registered_node_index import DELETED, decode_registered_node_key, registered_node_range


@dataclass(frozen=True, slots=True)
class RegisteredNodePage:
    nodes: tuple[RegisteredNode, ...]
    """In the order asked."""
    more: bool
    """More nodes that ``accept`` keeps follow the last."""
    errors: tuple[RowDecodeError, ...] = ()


def registered_nodes_page(
    reader: HistoryReader,
    low: int,
    high: int | None,
    accept: Callable[[RegisteredNode], bool],
    limit: int,
    *,
    descending: bool = False,
) -> RegisteredNodePage:
    """Up to ``limit`` registered nodes with ids in ``[low, high]`` (None: no end), not deleted, that
    ``accept`` keeps."""
    errors: list[RowDecodeError] = []
    groups = id_groups(reader, registered_node_range, _decode_change, low, high, errors, descending=descending)
    standing = (group for group in groups if group[1][-1][0] != DELETED)  # deleted now: nothing to read
    kept, more = fold_page(standing, lambda batch: _folded(reader, batch, errors), accept, limit)
    return RegisteredNodePage(tuple(kept), more, tuple(errors))


def _folded(reader: HistoryReader, groups: list[IdGroup[bytes]], errors: list[RowDecodeError]) -> list[RegisteredNode]:
    """Each group's node as its transactions (one request) leave it, unless deleted or never created."""
    by_time = group_transactions(reader, groups, errors)
    nodes: list[RegisteredNode] = []
    for node_id, changes in groups:
        node: RegisteredNode | None = None
        for _, entry in changes:
            stored = by_time.get(entry.consensus_ns)
            if stored is None:
                continue
            try:
                body = decode_transaction_body(stored.transaction_bytes)
            except CorruptFileError as e:
                errors.append(RowDecodeError(f"registered node {node_id}: transaction body unreadable: {e}"))
                continue
            node = applied(node, node_id, body, entry.consensus_ns)
        if node is not None and not node.deleted:
            nodes.append(node)
    return nodes


def _decode_change(row: StoredRow) -> tuple[tuple[int, bytes], AccountHistoryEntry] | None:
    node_id, consensus_ns, change = decode_registered_node_key(row.key)
    return pointed_value(row, (node_id, change), consensus_ns)


__all__ = ["RegisteredNodePage", "registered_nodes_page"]
