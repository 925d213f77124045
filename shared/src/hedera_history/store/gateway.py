"""What the writer and reader need from Bigtable, as plain data and a protocol.

``bigtable_client.BigtableDataGateway`` implements it over the real client; tests wrap it to
inject failures. Tables are named by their logical name; the gateway applies the prefix.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

from hedera_history.errors import StoreUnavailableError
from hedera_history.store.model import Row

# gRPC status codes worth another attempt for one MutateRows entry.
DEADLINE_EXCEEDED = 4
RESOURCE_EXHAUSTED = 8
ABORTED = 10
UNAVAILABLE = 14
RETRYABLE_CODES = frozenset({DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, UNAVAILABLE})

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class StoredCell:
    family: str
    qualifier: bytes
    value: bytes
    timestamp_micros: int


@dataclass(frozen=True, slots=True)
class CellSwap:
    """A compare-and-set of one cell: ``value`` is set if the cell's latest value is ``expected``
    (None: if the cell is absent). ``timestamp_micros`` None stamps it with the writer's clock."""

    family: str
    qualifier: bytes
    expected: bytes | None
    value: bytes
    timestamp_micros: int | None = None


@dataclass(frozen=True, slots=True)
class StoredRow:
    key: bytes
    cells: tuple[StoredCell, ...]

    def cell(self, family: str, qualifier: bytes) -> StoredCell | None:
        for cell in self.cells:
            if cell.family == family and cell.qualifier == qualifier:
                return cell
        return None

    def family(self, family: str) -> list[StoredCell]:
        return [cell for cell in self.cells if cell.family == family]


@dataclass(frozen=True, slots=True)
class KeyRange:
    """``[start, end)``; ``end`` None is open ended."""

    start: bytes = b""
    end: bytes | None = None


@dataclass(frozen=True, slots=True)
class RowQuery:
    """Rows by key and/or range. A query with neither reads nothing (never the whole table)."""

    keys: tuple[bytes, ...] = ()
    ranges: tuple[KeyRange, ...] = ()
    families: tuple[str, ...] = ()
    """Only these families (empty: all)."""
    qualifier_regex: bytes | None = None
    key_only: bool = False
    """Strip values (keys, families and qualifiers still come back)."""
    cells_per_row: int | None = None
    limit: int | None = None
    """At most this many rows."""


@dataclass(frozen=True, slots=True)
class MutationFailure:
    """One entry of a MutateRows request that did not apply."""

    index: int
    code: int
    message: str

    @property
    def retryable(self) -> bool:
        return self.code in RETRYABLE_CODES


class BigtableGateway(Protocol):
    def mutate_rows(self, table: str, rows: Sequence[Row]) -> list[MutationFailure]:
        """Apply every row's cells; return the entries that failed (empty: all applied).

        Raises StoreUnavailableError when the call as a whole could not be made (try again),
        StoreError when it can never succeed (e.g. the table does not exist).
        """
        ...

    def read_rows(self, table: str, query: RowQuery) -> Iterator[StoredRow]:
        """Rows in key order (StoreUnavailableError / StoreError as above)."""
        ...

    def close(self) -> None: ...


def write_or_raise(gateway: BigtableGateway, table: str, rows: Sequence[Row], what: str) -> None:
    """One MutateRows call for a few state rows, without the writer's retries: any entry that did
    not apply is a StoreUnavailableError naming ``what`` (the caller's call fails and is retried)."""
    failures = gateway.mutate_rows(table, rows)
    if failures:
        raise StoreUnavailableError(f"{what}: {len(failures)} row(s) not written: {failures[0].message}")


def chunks(items: Sequence[T], size: int) -> Iterator[list[T]]:
    """``items`` in consecutive lists of at most ``size``: the keys of one request each."""
    for i in range(0, len(items), size):
        yield list(items[i : i + size])


@runtime_checkable
class ConditionalGateway(BigtableGateway, Protocol):
    """A gateway that can also compare-and-set one cell (state tables: tracking, keepers, leases)."""

    def check_and_set(self, table: str, key: bytes, swap: CellSwap) -> bool:
        """Apply ``swap`` to its cell in row ``key`` atomically; True when the cell was set."""
        ...
