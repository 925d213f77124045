"""Every stream file under a local directory: record periods (either bucket layout) and block
files (one run per chain folder), as ``load`` reads a folder that may cross the cutover."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hedera_history.sources.local_blocks import LocalBlock, find_block_runs
from hedera_history.sources.local_periods import LocalPeriod, find_local_periods


@dataclass(frozen=True, slots=True)
class LocalFiles:
    periods: list[LocalPeriod]
    block_runs: list[list[LocalBlock]]

    @property
    def count(self) -> int:
        """Periods and block files."""
        return len(self.periods) + sum(len(run) for run in self.block_runs)


def find_local_files(root: Path, *, max_decompressed: int | None = None) -> LocalFiles:
    """The periods and block runs under ``root`` (either may be empty)."""
    return LocalFiles(find_local_periods(root), find_block_runs(root, max_decompressed=max_decompressed))
