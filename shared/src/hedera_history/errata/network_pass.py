"""Applying a network's known errata (``errata.network``) to stored history, block by block.

A planned pass behind the contiguous run of complete blocks, as the balance applier is: each run
continues from its progress with the next block and stops at the first block that is not
complete. For each block it applies

- the missing transactions whose time falls in the block's slot (after the previous block's last
  item, up to this block's last item; from the first stored block's first item for the first
  block); one the stream does have is left alone, as the reference does;
- the rule's errata for the block's items, while the block starts before the rule's bound (the
  items come from the ``items`` table, as the nodes signed them).

Every errata goes through ``plan_errata`` / ``apply_plan`` like a council errata, so answers carry
the marker, originals stay in the errata log and compensations reach derived balances. Applying
is idempotent (a crash, a second instance, a backfill that re-writes the blocks: the same cells
again). The stream's store function and the sweep run the pass before the balance applier, the
backfill after its blocks are written, and the errata CLI on demand (docs/errata.md).
"""

from __future__ import annotations

import bisect
import logging
import struct
from dataclasses import dataclass, field

from hedera_history.config import Settings
from hedera_history.derived.applier import original_items
from hedera_history.errata.apply import apply_plan
from hedera_history.errata.cell_changes import ErrataPlan, plan_errata
from hedera_history.errata.errata_file import ErrataFile
from hedera_history.errata.network import NetworkErrata, network_errata_for
from hedera_history.errors import ErrataPlacementError, HistoryError, RowDecodeError, is_transient
from hedera_history.logs import event
from hedera_history.store import schema as s
from hedera_history.store.decode import StoredBlock
from hedera_history.store.encoding import decode_value, encode_value
from hedera_history.store.gateway import BigtableGateway, RowQuery
from hedera_history.store.model import Cell, Row
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter

logger = logging.getLogger(__name__)
Q_PROGRESS = b"next"
NETWORK_ERRATA_BLOCKS_PER_RUN = 256
"""Blocks one run of the store function or the sweep visits (outside the rule's window a visit is
one row read)."""
PROGRESS_TIMESTAMP = 0
"""The progress cell always has this timestamp, so each write replaces the last."""
_PROGRESS = struct.Struct(">Qq")
"""(next block, end of the last visited slot; -1 before the first block)."""


def progress_row_key(network: str) -> bytes:
    """``errata_log`` row holding the pass's progress for ``network``."""
    return b"p/network/" + network.encode("ascii")


@dataclass
class NetworkPassReport:
    visited: list[int] = field(default_factory=list)
    """Block numbers whose errata this run applied (or found applied), in order."""
    applied: list[str] = field(default_factory=list)
    """Ids of the errata this run wrote."""
    skipped: list[str] = field(default_factory=list)
    """Missing transactions the stream itself carries (left alone)."""
    stopped_at: int | None = None
    """The first block that was not complete, or whose errata could not be placed yet."""
    pending: str | None = None
    """Why the run stopped before a complete block (an errata not placeable yet)."""
    plans: list[ErrataPlan] = field(default_factory=list)
    """Every plan that writes something (with ``dry_run``: that would)."""


def network_errata_pass(gateway: BigtableGateway, settings: Settings) -> NetworkErrataPass | None:
    """The pass for the network preset ``settings`` names; None when it ships no errata."""
    errata = network_errata_for(settings)
    return None if errata is None else NetworkErrataPass(gateway, settings, errata)


def run_network_errata(errata_pass: NetworkErrataPass, max_blocks: int | None = None) -> NetworkPassReport | None:
    """One run whose failure is logged, not raised (for the store function and the sweep, whose own
    work is done: the next run tries again)."""
    try:
        return errata_pass.run(max_blocks)
    except HistoryError as e:
        level = logging.WARNING if is_transient(e) else logging.ERROR
        event(logger, "network errata not applied", level, error=str(e), error_type=type(e).__name__)
        return None


class NetworkErrataPass:
    def __init__(
        self,
        gateway: BigtableGateway,
        settings: Settings,
        errata: NetworkErrata,
        *,
        reader: HistoryReader | None = None,
        dry_run: bool = False,
    ) -> None:
        self.dry_run = dry_run
        """Plan only: nothing written, the progress not moved."""
        self.gateway = gateway
        self.settings = settings
        self.errata = errata
        self.reader = reader or HistoryReader(gateway)
        self._times = [e.time_of_error for e in errata.missing]

    def run(self, max_blocks: int | None = None) -> NetworkPassReport:
        """Visit the complete blocks after the progress, in order, up to the first gap."""
        report = NetworkPassReport()
        progress = self.read_progress()
        if progress is None:
            first = self.reader.first_available_block()
            if first is None:
                return report
            progress = (first, -1)
        number, slot_end = self._visit(*progress, None, max_blocks, report)
        if report.visited and not self.dry_run:
            self._write_progress(number, slot_end)
        return self._logged(report)

    def apply_blocks(self, first: int, last: int) -> NetworkPassReport:
        """Visit blocks ``first`` to ``last`` (a backfilled range) without moving the progress."""
        report = NetworkPassReport()
        previous = self.reader.get_block(first - 1) if first > 0 else None
        slot_end = previous.consensus_end if previous is not None and previous.item_count else -1
        self._visit(first, slot_end, last, None, report)
        return self._logged(report)

    def _visit(
        self, number: int, slot_end: int, last: int | None, max_blocks: int | None, report: NetworkPassReport
    ) -> tuple[int, int]:
        while (max_blocks is None or len(report.visited) < max_blocks) and (last is None or number <= last):
            block = self.reader.get_block(number)
            if block is None:
                report.stopped_at = number
                break
            try:
                end = self._apply_block(block, slot_end, report)
            except ErrataPlacementError as e:
                report.stopped_at, report.pending = number, e.reason
                break
            report.visited.append(number)
            number, slot_end = number + 1, end
        return number, slot_end

    def _logged(self, report: NetworkPassReport) -> NetworkPassReport:
        if report.applied or report.pending:
            event(
                logger,
                "network errata applied",
                logging.WARNING if report.pending else logging.INFO,
                network=self.errata.authority.network,
                errata=len(report.applied),
                first=report.visited[0] if report.visited else None,
                last=report.visited[-1] if report.visited else None,
                stopped_at=report.stopped_at,
                pending=report.pending,
            )
        return report

    def errata_of_block(self, block: StoredBlock, slot_end: int) -> tuple[list[ErrataFile], int]:
        """The network errata whose time lies in the block's slot, and the slot's end."""
        start = block.consensus_start - 1 if slot_end < 0 else slot_end
        end = max(start, block.consensus_end) if block.item_count else start
        low = bisect.bisect_right(self._times, start)
        high = bisect.bisect_right(self._times, end)
        found = list(self.errata.missing[low:high])
        if block.item_count and block.consensus_start < self.errata.rule_before_ns:
            for item in original_items(self.reader, block):
                made = self.errata.errata_for_item(item)
                if made is not None:
                    found.append(made)
        return found, end

    def _apply_block(self, block: StoredBlock, slot_end: int, report: NetworkPassReport) -> int:
        found, end = self.errata_of_block(block, slot_end)
        for errata in found:
            plan = plan_errata(errata, self.gateway, self.settings)
            if plan.original_present and self._is_missing(errata):
                report.skipped.append(errata.errata_id)
                continue
            if plan.already_applied:
                continue
            report.plans.append(plan)
            if not self.dry_run:
                apply_plan(plan, self.gateway, self.settings)
                report.applied.append(errata.errata_id)
        return end

    def _is_missing(self, errata: ErrataFile) -> bool:
        index = bisect.bisect_left(self._times, errata.time_of_error)
        return index < len(self._times) and self.errata.missing[index].errata_id == errata.errata_id

    # ---- progress --------------------------------------------------------------------------------

    def read_progress(self) -> tuple[int, int] | None:
        key = progress_row_key(self.errata.authority.network)
        for row in self.gateway.read_rows(s.ERRATA_LOG, RowQuery(keys=(key,))):
            cell = row.cell(s.ERRATA_LOG_FAMILY, Q_PROGRESS)
            if cell is None:
                return None
            payload = decode_value(cell.value)
            if len(payload) != _PROGRESS.size:
                raise RowDecodeError(f"network errata progress: expected {_PROGRESS.size} bytes, got {len(payload)}")
            number, slot_end = _PROGRESS.unpack(payload)
            return int(number), int(slot_end)
        return None

    def _write_progress(self, number: int, slot_end: int) -> None:
        cell = Cell(s.ERRATA_LOG_FAMILY, Q_PROGRESS, encode_value(_PROGRESS.pack(number, slot_end)), PROGRESS_TIMESTAMP)
        BlockWriter(self.gateway, self.settings).write_rows(
            [Row(s.ERRATA_LOG, progress_row_key(self.errata.authority.network), (cell,))]
        )
