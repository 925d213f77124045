"""A ``held`` marker an errata removes moves to the next transaction of its block that changes the
same balance (``store.token_index``: one marker per (account, token) per block, at the first such
transaction). Removing or correcting that transaction tombstones the marker as any of its index
rows; the block's later changes of the balance keep their ``holder/`` rows, so the marker is put at
the first of them that an errata has not removed, with the pointer its other rows hold, and the
account's token set stays whole. Found by one ReadRows of the pair's ``holder/`` rows within the
block; written with the errata's other cells, so planning it again finds nothing to change."""

from __future__ import annotations

from collections.abc import Iterable

from hedera_history.errata.cells import is_tombstone
from hedera_history.errata.log import Address
from hedera_history.errors import RowLayoutError
from hedera_history.store import schema as s
from hedera_history.store.decode import decode_pointer_cell
from hedera_history.store.gateway import BigtableGateway, KeyRange, RowQuery
from hedera_history.store.reader import HistoryReader
from hedera_history.store.token_index import (
    HELD,
    RELATION_PREFIX,
    decode_holder_key,
    decode_relation_key,
    holder_range,
    relation_key,
)


def moved_markers(
    gateway: BigtableGateway, removed: Iterable[tuple[Address, bytes | None]], block_number: int
) -> dict[Address, bytes]:
    """Where the ``held`` markers of ``removed`` (each cell an errata tombstones, with its value
    before) move: marker address -> the value to write."""
    block = None
    moved: dict[Address, bytes] = {}
    for address, before in removed:
        table, key, family, qualifier = address
        if table != s.ACCOUNT_HISTORY or not key.startswith(RELATION_PREFIX) or before is None or is_tombstone(before):
            continue
        try:
            held = decode_relation_key(key)
        except RowLayoutError:
            continue
        if held.event != HELD:
            continue
        block = block or HistoryReader(gateway).get_block(block_number)
        if block is None:
            break
        start, end = holder_range(held.token, held.account, held.consensus_ns, block.consensus_end)
        successors = []
        for row in gateway.read_rows(s.ACCOUNT_HISTORY, RowQuery(ranges=(KeyRange(start, end),))):
            pointer = decode_pointer_cell(row)
            if pointer is not None and pointer.block_number == block_number:
                cell = row.cell(s.ACCOUNT_HISTORY_FAMILY, s.Q_BLOCK)
                if cell is not None:
                    successors.append((decode_holder_key(row.key).consensus_ns, cell.value))
        if successors:
            consensus_ns, value = min(successors)
            moved[(table, relation_key(held.account, held.token, consensus_ns, HELD), family, qualifier)] = value
    return moved
