"""A small bounded cache of object bytes in front of the follower's source.

Why: a period that has not reached consensus yet is verified again (on a new signature file, or
with backoff); each attempt reads every book node's signature file by name. Stream files are
immutable once uploaded, so the bytes read by one attempt are the bytes the next would read, and
each of those reads would be a paid requester-pays GET. With the cache, a retry reads only the
signature files still missing (a 404 is never cached: the file may appear any moment) and the
record file once.

What is not done: answering a read with "not found" because the follower's own listing did not
show the name. A listing is a snapshot, and the name may have been uploaded since, so such an
answer could only be right with a listing taken after the read was asked for, which costs the
request it would save.

The cache is bounded by the bytes it holds (least recently used first out); an object larger
than a quarter of the bound is passed through uncached so one large record file cannot empty it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from hedera_history.sources.base import DEFAULT_MAX_OBJECT_BYTES, ObjectSource, PassThroughSource


class CachedSource(PassThroughSource):
    """An :class:`ObjectSource` that keeps the bytes it read (thread-safe)."""

    def __init__(self, inner: ObjectSource, max_bytes: int) -> None:
        super().__init__(inner)
        self.max_bytes = max(0, max_bytes)
        self.hits = 0
        self.misses = 0
        self._held: OrderedDict[str, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    @property
    def held_bytes(self) -> int:
        return self._size

    def read(self, name: str, *, max_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> bytes:
        with self._lock:
            data = self._held.get(name)
            if data is not None and len(data) <= max_bytes:
                self._held.move_to_end(name)
                self.hits += 1
                return data
            self.misses += 1
        data = self.inner.read(name, max_bytes=max_bytes)
        self._keep(name, data)
        return data

    def exists(self, name: str) -> bool:
        with self._lock:
            if name in self._held:
                return True
        return self.inner.exists(name)

    def _keep(self, name: str, data: bytes) -> None:
        if len(data) > self.max_bytes // 4:
            return
        with self._lock:
            previous = self._held.pop(name, None)
            if previous is not None:
                self._size -= len(previous)
            self._held[name] = data
            self._size += len(data)
            while self._size > self.max_bytes and self._held:
                _, dropped = self._held.popitem(last=False)
                self._size -= len(dropped)


__all__ = ["CachedSource"]
