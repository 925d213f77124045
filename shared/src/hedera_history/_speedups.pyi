from collections.abc import Sequence
from typing import Any

from hedera_history.speedups import EdwardsMultiply, PoseidonPermute, SubtreeRoots, TableRows, TransactionGroups

def v6_item_lists(content: bytes, /) -> tuple[list[bytes], list[bytes], list[int]] | None: ...
def mutation_entries(rows: Sequence[Any], /) -> list[bytes] | None: ...
def record_items(
    cls: type[Any], slots: tuple[Any, Any, Any], a: list[bytes], b: list[bytes], c: list[int], /
) -> tuple[Any, ...]: ...
def mutation_runs(rows: Sequence[Any], /) -> list[tuple[str, int, bytes, bytes, bytes]] | None: ...
def mutate_rows_answer(response: bytes, /) -> tuple[int, list[tuple[int, int, str]]] | None: ...

table_rows: TableRows

def renumbered_fields(data: bytes, mapping: bytes, /) -> bytes | None: ...
def block_items(cls: type[Any], slots: tuple[Any, Any, Any], items: list[bytes], /) -> list[Any]: ...
def transaction_rows(
    record: bytes,
    transaction: bytes | None,
    consensus_ns: int,
    entities: list[tuple[int, int, int]],
    tables: tuple[Any, ...],
    cells: tuple[Any, ...],
    place: tuple[Any, ...],
    /,
) -> tuple[bytes, int, bool, int] | None: ...
def transaction_body_bytes(transaction: bytes, /) -> bytes | None: ...
def record_result_member(record: bytes, /) -> int | None: ...

block_subtree_roots: SubtreeRoots
babyjubjub_multiply: EdwardsMultiply
poseidon_permute: PoseidonPermute
block_transaction_groups: TransactionGroups
