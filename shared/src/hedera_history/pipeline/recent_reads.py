"""Reads of state rows that the threads of one instance share for a moment.

The runs one instance handles at once for the same period (its record, sidecar and signature
uploads arrive together) all look at the period's row while another run verifies it; a look that
another thread made a few milliseconds ago answers as well as a new read, and the compare-and-set
of a claim still refuses a value that changed since. The instance's own writes to a row drop what
it remembered of that row.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")

_FORGET_AFTER_SECONDS = 1.0
"""Entries older than this are dropped when another is remembered (the map stays small)."""


class RecentReads(Generic[V]):
    """Row key -> the last value read for it and when (monotonic), shared by the threads."""

    def __init__(self) -> None:
        self._reads: dict[bytes, tuple[float, V]] = {}
        self._lock = threading.Lock()

    def get(self, key: bytes, max_age: float) -> V | None:
        """The value read for ``key`` at most ``max_age`` seconds ago (None: none that recent)."""
        with self._lock:
            found = self._reads.get(key)
        if found is None or time.monotonic() - found[0] > max_age:
            return None
        return found[1]

    def remember(self, key: bytes, value: V, read_at: float) -> None:
        """Remember ``value`` as read for ``key`` at monotonic time ``read_at`` (when the read began)."""
        with self._lock:
            current = self._reads.get(key)
            if current is None or current[0] < read_at:
                self._reads[key] = (read_at, value)
            old = [k for k, (at, _) in self._reads.items() if read_at - at > _FORGET_AFTER_SECONDS]
            for k in old:
                del self._reads[k]

    def read_through(self, key: bytes, max_age: float, read: Callable[[], V]) -> V:
        """The value read for ``key`` at most ``max_age`` seconds ago (0: none will do), else
        ``read()``, remembered as read when it began."""
        recent = self.get(key, max_age) if max_age > 0 else None
        if recent is not None:
            return recent
        read_at = time.monotonic()
        value = read()
        self.remember(key, value, read_at)
        return value

    def forget(self, *keys: bytes) -> None:
        """Drop what was read for ``keys`` (this instance wrote them)."""
        with self._lock:
            for key in keys:
                self._reads.pop(key, None)
