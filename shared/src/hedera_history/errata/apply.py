"""Applying an errata plan: the errata log first, then the history cells, then the compensation
for derived state, and last the ``f/<id>`` record that says the errata was applied.

With the node check of the verdict that accepted it, the signature files that ratified the errata
are kept in its ``f/<id>`` row before that record (``errata.log``), so proofs can carry them.

Each step is idempotent (cells are recomputed from the log, see ``errata.cell_changes``), so a crash
anywhere is repaired by applying the same errata again. Apply errata for one time of error one
at a time (the errata ingest runs with one instance).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from hedera_history.config import Settings
from hedera_history.errata.authority import NodeCheck
from hedera_history.errata.cell_changes import CellChange, ErrataPlan, plan_errata, read_latest
from hedera_history.errata.errata_file import ErrataFile
from hedera_history.errata.log import file_row_key, signature_qualifier, stored_signature_file
from hedera_history.logs import event
from hedera_history.store import schema as s
from hedera_history.store.chaintime import cell_timestamp_micros
from hedera_history.store.encoding import encode_value
from hedera_history.store.gateway import BigtableGateway
from hedera_history.store.model import Cell, Row
from hedera_history.store.writer import BlockWriter

logger = logging.getLogger(__name__)


def apply_errata(
    errata: ErrataFile, gateway: BigtableGateway, settings: Settings, *, dry_run: bool = False
) -> ErrataPlan:
    """Plan the errata and, unless ``dry_run``, write the plan; the plan either way."""
    plan = plan_errata(errata, gateway, settings)
    if not dry_run:
        apply_plan(plan, gateway, settings)
    event(
        logger,
        "errata planned" if dry_run else "errata applied",
        errata=errata.errata_id,
        time_of_error=errata.time_of_error,
        kind=plan.entry_kind.value,
        in_force=plan.in_force,
        cells=len(plan.changes),
    )
    return plan


def apply_plan(
    plan: ErrataPlan, gateway: BigtableGateway, settings: Settings, *, ratified_by: NodeCheck | None = None
) -> int:
    """Write the plan's cells in order, the signature files of ``ratified_by`` before the record
    that says the errata was applied; the number of cells written."""
    ratification = ratification_changes(plan.errata, ratified_by, gateway) if ratified_by is not None else ()
    writer = BlockWriter(gateway, settings)
    for step in (plan.log, plan.history, plan.derived, ratification, plan.record):
        rows = rows_of(step)
        if rows:
            writer.write_rows(rows)
    return len(plan.changes) + len(ratification)


def record_ratification(errata: ErrataFile, nodes: NodeCheck, gateway: BigtableGateway, settings: Settings) -> int:
    """Keep the ratifying signature files of an errata applied before (a signature that arrived
    later, or one applied before the log kept them); the number of cells written."""
    changes = ratification_changes(errata, nodes, gateway)
    if changes:
        BlockWriter(gateway, settings).write_rows(rows_of(changes))
    return len(changes)


def ratification_changes(errata: ErrataFile, nodes: NodeCheck, gateway: BigtableGateway) -> tuple[CellChange, ...]:
    """The ``sig/<node>`` cells of the errata's ``f/`` row that are missing or differ."""
    key = file_row_key(errata.errata_id)
    stamp = cell_timestamp_micros(errata.consensus_ns)
    wanted = {
        (s.ERRATA_LOG, key, s.ERRATA_LOG_FAMILY, signature_qualifier(node_id)): encode_value(
            stored_signature_file(signature)
        )
        for node_id, signature in nodes.counted.items()
    }
    current = read_latest(gateway, wanted)
    return tuple(
        CellChange(*address, value=value, timestamp_micros=stamp, before=current.get(address))
        for address, value in sorted(wanted.items())
        if current.get(address) != value
    )


def rows_of(changes: Sequence[CellChange]) -> list[Row]:
    grouped: dict[tuple[str, bytes], list[Cell]] = {}
    for change in changes:
        cell = Cell(change.family, change.qualifier, change.value, change.timestamp_micros)
        grouped.setdefault((change.table, change.key), []).append(cell)
    return [Row(table, key, tuple(cells)) for (table, key), cells in grouped.items()]
