"""Applying an errata plan: the errata log first, then the history cells, then the compensation
for derived state, and last the ``f/<id>`` record that says the errata was applied.

Each step is idempotent (cells are recomputed from the log, see ``errata.plan``), so a crash
anywhere is repaired by applying the same errata again. Apply errata for one time of error one
at a time (the errata ingest runs with one instance).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from hedera_history.config import Settings
from hedera_history.errata.model import ErrataFile
from hedera_history.errata.plan import CellChange, ErrataPlan, plan_errata
from hedera_history.logs import event
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


def apply_plan(plan: ErrataPlan, gateway: BigtableGateway, settings: Settings) -> int:
    """Write the plan's cells in order; the number of cells written."""
    writer = BlockWriter(gateway, settings)
    for step in (plan.log, plan.history, plan.derived, plan.record):
        rows = rows_of(step)
        if rows:
            writer.write_rows(rows)
    return len(plan.changes)


def rows_of(changes: Sequence[CellChange]) -> list[Row]:
    grouped: dict[tuple[str, bytes], list[Cell]] = {}
    for change in changes:
        cell = Cell(change.family, change.qualifier, change.value, change.timestamp_micros)
        grouped.setdefault((change.table, change.key), []).append(cell)
    return [Row(table, key, tuple(cells)) for (table, key), cells in grouped.items()]
