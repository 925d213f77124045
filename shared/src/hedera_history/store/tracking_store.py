"""The Cardinal ``TrackingStore`` on the ``cardinal_tracking`` table.

One tracking row is one Bigtable row; one tracking column is one qualifier in family ``t``.
``read_row`` reads the latest cell of each column (older versions linger until the lazy garbage
collection, so the read filters to one cell per column); ``check_and_set`` is one
CheckAndMutateRow whose predicate tests that column. Both go through the data gateway, which
turns client errors into ``StoreUnavailableError`` (try again) or ``StoreError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from hedera_history.store.gateway import CellSwap, ConditionalGateway, RowQuery
from hedera_history.store.schema import CARDINAL_TRACKING, CARDINAL_TRACKING_FAMILY

SERVER_TIME: Final = -1
"""``SetCell`` timestamp asking Bigtable to stamp the cell with its own clock: instances with
skewed clocks must never write a compare-and-set value older than the one it replaced."""


TrackingGateway = ConditionalGateway


class BigtableTrackingStore:
    """A :class:`hedera_history.cardinal.TrackingStore` over a Bigtable gateway.

    Holds no state besides the gateway, so each function instance builds its own and they all
    share the table safely: every write is a single-row CheckAndMutateRow.
    """

    def __init__(
        self,
        gateway: TrackingGateway,
        *,
        table: str = CARDINAL_TRACKING,
        family: str = CARDINAL_TRACKING_FAMILY,
    ) -> None:
        self._gateway = gateway
        self._table = table
        self._family = family
        self._query_families = (family,)

    def read_row(self, row: bytes) -> Mapping[bytes, bytes]:
        """Every column of ``row`` with its latest value; empty when the row does not exist."""
        # The gateway's read filter keeps one cell per column (the latest).
        query = RowQuery(keys=(row,), families=self._query_families)
        cells: dict[bytes, bytes] = {}
        for stored in self._gateway.read_rows(self._table, query):
            for cell in stored.family(self._family):
                cells.setdefault(cell.qualifier, cell.value)
        return cells

    def check_and_set(self, row: bytes, column: bytes, expected: bytes | None, value: bytes) -> bool:
        """Set the cell to ``value`` if its latest value is ``expected`` (None: if it is absent)."""
        return self._gateway.check_and_set(
            self._table, row, CellSwap(self._family, column, expected, value, timestamp_micros=SERVER_TIME)
        )
