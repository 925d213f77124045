"""The compiled core (``_speedups``, built from ``_speedups.c``) when this platform has it.

The one place that chooses: the format readers and the store writer take its functions and run their
pure-Python code when they are None (a platform the wheel was not built for). Both give the same bytes
(tests run them against each other); the compiled one is faster. ``make test`` sets
``REQUIRE_ENV`` so that a test fails when the module did not build there.

The fallback is logged once, at WARNING, through the standard ``logging`` call that
``logs.event`` makes: the pure packages that import this module may not import ``logs``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol

REQUIRE_ENV = "HEDERA_HISTORY_REQUIRE_SPEEDUPS"
"""Set to 1 where the compiled core must be present (``make test``)."""

ItemLists = Callable[[bytes], tuple[list[bytes], list[bytes], list[int]] | None]
"""Decompressed V6 content to its items' transactions, records and consensus times (ns), or None
where the Python reader must decide (anything but the regular shape)."""
RecordItems = Callable[[type[Any], tuple[Any, Any, Any], list[bytes], list[bytes], list[int]], tuple[Any, ...]]
"""Instances of a slots class (``RecordItem``) from its three slot descriptors and three columns,
left out of the cyclic garbage collector (they hold bytes and ints only); TypeError for anything
else."""
MutationEntries = Callable[[Sequence[Any]], list[bytes] | None]
"""Rows (``store.model.Row``) to their MutateRows ``entries`` fields, or None for a value of
another type than the model's."""
MutationRuns = Callable[[Sequence[Any]], list[tuple[str, int, bytes, bytes, bytes]] | None]
"""Rows to the runs of rows of one table, each encoded into one buffer: (table, stop, the rows'
``entries`` fields back to back, where each ends in them and the running cell count, both as
native int64 arrays counted from the run's start), or None as for ``MutationEntries``."""
MutateRowsAnswer = Callable[[bytes], tuple[int, list[tuple[int, int, str]]] | None]
"""A serialised MutateRowsResponse to its number of entries and the (index, code, message) of those
that failed, or None where the protobuf parser must decide (anything but the regular shape)."""

TableRows = Callable[[tuple[Any, ...], str, dict[bytes, Any], int, tuple[str, bytes] | None, list[Any]], None]
"""``((Row, its slot descriptors, Cell, its slot descriptors), table, rows, stamp, single, out)``:
appends to ``out`` the ``Row`` of each key of ``rows`` in key order, with one ``Cell`` per
``(family, qualifier) -> value`` of the key's dict in that order (or, with ``single`` a
``(family, qualifier)``, one cell of the key's value), each stamped ``stamp``; left out of the cyclic
garbage collector (they hold str, bytes and ints only). TypeError for anything else."""

RenumberedFields = Callable[[bytes, bytes], bytes | None]
"""``(message, mapping)``: the fields of a serialised message that ``mapping`` names (triples of
bytes: number, new number below 128, wire type), in order, each under its new number, the values as
they stand; None where the bytes do not parse (malformed, or a group)."""

BlockItems = Callable[[type[Any], tuple[Any, Any, Any], list[bytes]], list[Any]]
"""Instances of a slots class (``formats.block.BlockItem``: kind, data, payload start) from the
items of a ``Block``, each where it has the common shape (a one-byte tag of a length-delimited
field, a one- or two-byte length ending at its end), else None (the Python walk reads it); left out
of the cyclic garbage collector. TypeError for anything but a list of bytes."""


class SubtreeRoots(Protocol):
    """``(BlockItem, its kind and data slot descriptors, items, positions, subtrees)``: the root of
    each of ``subtrees`` streaming SHA-384 trees (``formats.block_hash``) over the leaves of the items
    whose kind ``positions`` sends there (``positions[kind]``: a subtree, or 0xFF for an item not
    hashed), and how many items were hashed; None where an item's kind is past ``positions`` or has
    another value there (the Python code decides). TypeError for anything but items of that class.
    Eight digests run side by side where the processor has AVX-512, unless ``lanes`` is false."""

    def __call__(
        self,
        cls: type[Any],
        slots: tuple[Any, Any],
        items: Sequence[Any],
        positions: bytes,
        subtrees: int,
        lanes: bool = True,
        /,
    ) -> tuple[tuple[bytes, ...], int] | None: ...


EdwardsMultiply = Callable[[bytes, bytes], bytes | None]
"""``(point, scalar)``: an ed_on_bn254 point (x ‖ y, 32 bytes little-endian each, below the field's
modulus) times a scalar (32 bytes little-endian), by the steps of ``verify.tss.babyjubjub``'s
double-and-add, as x ‖ y; None where the sum's z ends at 0 (the Python code decides)."""

TransactionGroups = Callable[[tuple[Any, ...], tuple[Any, ...], Any], list[Any] | None]
"""``(layout, items, source)``: a native block's items (``formats.block.BlockItem``) grouped into
transactions as ``formats.block_transactions`` groups them, each a ``BlockTransaction`` whose
messages are read from ``source`` (the items parsed) when first asked for (``layout``: the item
class and its kind, data and payload start slot descriptors, the body's data case names and the
output's case names by field number, the atomic batch case, the record fields mappings of the result
and the body, the transaction class and the slot descriptors it fills); None where the Python walk
must decide (an atomic batch, a timestamp with other fields, a field of an unexpected wire type,
bytes that do not parse)."""

PoseidonPermute = Callable[[bytes, bytes, bytes, int], bytes]
"""``(state, round constants, MDS matrix, full rounds)``: ``verify.tss.poseidon.permute`` over the
BN254 scalar field (S-box x⁵), every element 32 bytes little-endian below the modulus (ValueError
for one that is not)."""

TransactionRows = Callable[
    [bytes, bytes | None, int, list[tuple[int, int, int]], tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]],
    tuple[bytes, int, bool, int] | None,
]
"""``(record, transaction, consensus_ns, entities, tables, cells, place)``: one transaction's rows as
``store.rows`` builds them (``store.rows.python_transaction_rows`` through the message API), read
from its record's bytes and its transaction's (the body's payer; None: the body did not decode)
and put into the row set's dicts; ``(pointer, status, record has a transaction id, index fields)``, or
None, nothing put, where the Python path must decide (bytes that do not parse, a value the layouts
do not fit, an entity id the keys refuse)."""

RecordResultMember = Callable[[bytes], int | None]
"""Which member of a serialised TransactionRecord's body oneof its fields give: contractCallResult
(7), contractCreateResult (8), the later one, or 0 for neither; None where the bytes do not parse
(the parser decides)."""

TransactionBodyBytes = Callable[[bytes], bytes | None]
"""A serialised Transaction to the serialised body it carries, where its layers have the common
shape and parse exactly as the messages do; None where ``formats.transactions.transaction_body``
must decide (the deprecated body, a signature list, no body bytes, bytes that do not parse)."""

_Compiled = tuple[
    ItemLists,
    RecordItems,
    MutationEntries,
    MutationRuns,
    MutateRowsAnswer,
    TableRows,
    RenumberedFields,
    BlockItems,
    TransactionRows,
    TransactionBodyBytes,
    RecordResultMember,
    SubtreeRoots,
    EdwardsMultiply,
    PoseidonPermute,
    TransactionGroups,
]

logger = logging.getLogger(__name__)


try:
    from hedera_history import _speedups

    _compiled: _Compiled | None = (
        _speedups.v6_item_lists,
        _speedups.record_items,
        _speedups.mutation_entries,
        _speedups.mutation_runs,
        _speedups.mutate_rows_answer,
        _speedups.table_rows,
        _speedups.renumbered_fields,
        _speedups.block_items,
        _speedups.transaction_rows,
        _speedups.transaction_body_bytes,
        _speedups.record_result_member,
        _speedups.block_subtree_roots,
        _speedups.babyjubjub_multiply,
        _speedups.poseidon_permute,
        _speedups.block_transaction_groups,
    )
except (ImportError, AttributeError) as e:  # AttributeError: a build older than this source
    logger.warning(
        "compiled core missing on this platform: the pure-Python code runs instead",
        extra={"fields": {"module": "hedera_history._speedups", "error": str(e)}},
    )
    _compiled = None
available = _compiled is not None
v6_item_lists: ItemLists | None = None if _compiled is None else _compiled[0]
record_items: RecordItems | None = None if _compiled is None else _compiled[1]
mutation_entries: MutationEntries | None = None if _compiled is None else _compiled[2]
mutation_runs: MutationRuns | None = None if _compiled is None else _compiled[3]
mutate_rows_answer: MutateRowsAnswer | None = None if _compiled is None else _compiled[4]
table_rows: TableRows | None = None if _compiled is None else _compiled[5]
renumbered_fields: RenumberedFields | None = None if _compiled is None else _compiled[6]
block_items: BlockItems | None = None if _compiled is None else _compiled[7]
transaction_rows: TransactionRows | None = None if _compiled is None else _compiled[8]
transaction_body_bytes: TransactionBodyBytes | None = None if _compiled is None else _compiled[9]
record_result_member: RecordResultMember | None = None if _compiled is None else _compiled[10]
block_subtree_roots: SubtreeRoots | None = None if _compiled is None else _compiled[11]
babyjubjub_multiply: EdwardsMultiply | None = None if _compiled is None else _compiled[12]
poseidon_permute: PoseidonPermute | None = None if _compiled is None else _compiled[13]
block_transaction_groups: TransactionGroups | None = None if _compiled is None else _compiled[14]
