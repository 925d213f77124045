"""One period's files in a bucket, for every node of the address book, read lazily.

The paths come from the layout (nothing is listed): every node's signature file is read (in
parallel, as the verification needs them all), a record copy only from the nodes verification
asks for, each sidecar once. A missing object is ``None`` (the node has not uploaded it yet or
never will); other source errors propagate so the caller can tell "not there" from "could not ask".
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Sequence
from dataclasses import dataclass

from hedera_history.books.address_book import AddressBook
from hedera_history.errors import ObjectNotFoundError
from hedera_history.formats.names import StreamFileKind, StreamFileName, parse_timestamp
from hedera_history.formats.stream_paths import BucketLayout, NodeDirectory, NodeIdentity, ObjectPath, object_path
from hedera_history.sources.base import ObjectSource
from hedera_history.verify.period import FetchedFile

SIGNATURE_READ_CONCURRENCY = 16


@dataclass(frozen=True, slots=True)
class StreamLocation:
    """Where a stream's node folders are: the layout and what the layout needs around a node."""

    layout: BucketLayout
    prefix: str = ""
    network: str = ""
    """Node-id layout only."""
    shard: int = 0
    """Node-id layout only."""

    @classmethod
    def of(cls, path: ObjectPath) -> StreamLocation:
        return cls(path.layout, path.prefix, path.network or "", path.shard or 0)

    def path(self, node: NodeIdentity, file: StreamFileName, directory: NodeDirectory | None = None) -> str:
        return object_path(
            self.layout, node, file, prefix=self.prefix, network=self.network, shard=self.shard, directory=directory
        )

    def identities(self, book: AddressBook) -> list[NodeIdentity]:
        """How this layout names each node of ``book``."""
        if self.layout is BucketLayout.ACCOUNT:
            return [NodeIdentity(account=entry.account) for entry in book.nodes]
        return [NodeIdentity(node_id=entry.node_id) for entry in book.nodes]


class SourcePeriod:
    """A :class:`~hedera_history.verify.period.PeriodFiles` over an :class:`ObjectSource`."""

    def __init__(
        self,
        source: ObjectSource,
        location: StreamLocation,
        period_key: str,
        nodes: Sequence[NodeIdentity],
        *,
        directory: NodeDirectory | None = None,
        max_bytes: int | None = None,
    ) -> None:
        self._source = source
        self._location = location
        self._period_key = period_key
        self._nodes = list(nodes)
        self._directory = directory
        self._max_bytes = max_bytes
        # Names come from the key as written: older files have fewer than nine fraction digits.
        self._name = StreamFileName(period_key, parse_timestamp(period_key), StreamFileKind.SIGNATURE)
        self._signatures: dict[NodeIdentity, FetchedFile | None] = {}
        self.reads = 0
        """Objects read (found or not), for logs and tests."""

    @classmethod
    def for_book(
        cls,
        source: ObjectSource,
        location: StreamLocation,
        period_key: str,
        book: AddressBook,
        *,
        max_bytes: int | None = None,
    ) -> SourcePeriod:
        return cls(source, location, period_key, location.identities(book), directory=book, max_bytes=max_bytes)

    @property
    def period_key(self) -> str:
        return self._period_key

    @property
    def consensus_ns(self) -> int:
        return self._name.consensus_ns

    def nodes(self) -> Sequence[NodeIdentity]:
        return self._nodes

    def signature(self, node: NodeIdentity) -> FetchedFile | None:
        if node not in self._signatures:
            self.prefetch_signatures()
        return self._signatures.get(node)

    def prefetch_signatures(self) -> None:
        """Read every node's signature file at once (a bucket answers many small reads in parallel)."""
        missing = [node for node in self._nodes if node not in self._signatures]
        if not missing:
            return
        workers = min(SIGNATURE_READ_CONCURRENCY, len(missing))
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="signatures") as pool:
            fetched = list(pool.map(lambda node: self._fetch(node, self._name.signature()), missing))
        self._signatures.update(zip(missing, fetched, strict=True))

    def signatures_found(self) -> int:
        self.prefetch_signatures()
        return sum(1 for fetched in self._signatures.values() if fetched is not None)

    def record(self, node: NodeIdentity) -> FetchedFile | None:
        # V6 files are gzipped, earlier ones not; the newer form is by far the common one today.
        for compressed in (True, False):
            fetched = self._fetch(node, self._name.record(compressed=compressed))
            if fetched is not None:
                return fetched
        return None

    def sidecar(self, node: NodeIdentity, sidecar_id: int) -> FetchedFile | None:
        return self._fetch(node, self._name.sidecar(sidecar_id))

    def _fetch(self, node: NodeIdentity, file: StreamFileName) -> FetchedFile | None:
        path = self._location.path(node, file, self._directory)
        self.reads += 1
        try:
            if self._max_bytes is None:
                data = self._source.read(path)
            else:
                data = self._source.read(path, max_bytes=self._max_bytes)
        except ObjectNotFoundError:
            return None
        return FetchedFile(file.name, data)
