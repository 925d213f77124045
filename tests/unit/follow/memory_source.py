"""An in-memory ObjectSource that grows between a follower's ticks, counting its calls."""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from datetime import UTC, datetime

from hedera_history.errors import ObjectNotFoundError, SourceUnavailableError
from hedera_history.sources.base import DEFAULT_MAX_OBJECT_BYTES, ObjectInfo, split_delimited


class MemorySource:
    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}
        self.reads: list[str] = []
        self.lists: list[tuple[str, str | None]] = []
        self.broken_folders: set[str] = set()

    @property
    def url(self) -> str:
        return "memory://"

    def put(self, name: str, data: bytes = b"x") -> None:
        self.objects[name] = data

    def list(
        self, prefix: str = "", *, delimiter: str | None = None, start_after: str | None = None
    ) -> Iterator[ObjectInfo]:
        if prefix in self.broken_folders:
            raise SourceUnavailableError("listing timed out", file=prefix)
        self.lists.append((prefix, start_after))
        for name in sorted(self.objects):
            if not name.startswith(prefix) or split_delimited(name[len(prefix) :], delimiter) is not None:
                continue
            if start_after is not None and name <= start_after:
                continue
            yield ObjectInfo(name, len(self.objects[name]), "1", datetime.now(UTC))

    def list_prefixes(self, prefix: str = "") -> builtins.list[str]:
        found = {split_delimited(n[len(prefix) :], "/") for n in self.objects if n.startswith(prefix)}
        return sorted(prefix + f for f in found if f)

    def read(self, name: str, *, max_bytes: int = DEFAULT_MAX_OBJECT_BYTES) -> bytes:
        self.reads.append(name)
        if name not in self.objects:
            raise ObjectNotFoundError("no such object", file=name)
        return self.objects[name]

    def exists(self, name: str) -> bool:
        return name in self.objects
