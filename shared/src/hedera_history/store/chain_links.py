"""Breaks in the chain, as the ``chain_links`` table records them (``broken/<hex16 block>``).

The stream (ingest) and the backfill both find broken links; both record them here, so one place
answers "where is the history not one chain" whichever path wrote the blocks. A block's own link
cells (``<hex16 block>``: hash, previous, period) are the stream's bookkeeping (``pipeline.state``).
"""

from __future__ import annotations

from hedera_history.store import schema as s
from hedera_history.store.gateway import BigtableGateway, KeyRange, RowQuery
from hedera_history.store.keys import decode_hex16, hex16, prefix_end
from hedera_history.store.model import Cell, Row

BROKEN = b"broken/"
Q_REASON = b"reason"


def broken_link_row(block_number: int, reason: str) -> Row:
    """The row saying the link from block ``block_number - 1`` to ``block_number`` is broken."""
    return Row(s.CHAIN_LINKS, BROKEN + hex16(block_number), (Cell(s.CHAIN_LINKS_FAMILY, Q_REASON, reason.encode(), 0),))


def read_broken_links(gateway: BigtableGateway, limit: int = 1000) -> dict[int, str]:
    """Block number -> why its link to its predecessor is broken."""
    query = RowQuery(ranges=(KeyRange(BROKEN, prefix_end(BROKEN)),), limit=limit)
    found: dict[int, str] = {}
    for row in gateway.read_rows(s.CHAIN_LINKS, query):
        cell = row.cell(s.CHAIN_LINKS_FAMILY, Q_REASON)
        found[decode_hex16(row.key[len(BROKEN) :])] = cell.value.decode() if cell else ""
    return found
