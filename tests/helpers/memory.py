"""Peak memory of one call, as tracemalloc sees it (every Python allocation, the C libraries' that
go through Python's allocator)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable


def traced_peak(action: Callable[[], object]) -> int:
    """The most bytes traced at once while ``action`` ran."""
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
