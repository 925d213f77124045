"""The periods of a time range, found by listing the signature files in every node folder.

A period exists for us once some node uploaded its signature file, so listing signature files is
how a backfill (or a sweep) finds what to verify without reading any object.

- Every node folder given is listed. Listing only as many nodes as the consensus threshold needs
  is not safe: a period those nodes happened to skip would be missed although others hold it.
- The range is cut at day boundaries; each day is listed with the longest common prefix of its
  names (``2024-06-01T``, or longer for a part of a day) and the delimiter ``/``, so sidecar
  folders are not descended. Record files share the prefix and come back too (a bucket cannot list
  by suffix); they are dropped here.
- Each node folder is listed by its own thread into a small queue, and the folders' listings (each
  in name order) are merged as they arrive: the output is a stream, memory holds a few pages per
  folder, never the range, and the folders are listed in parallel.

Cost for a month of mainnet (about 30 node folders, a period every 2 s): 1.3 million periods,
about 2.6 million objects per folder (signature and record files), 78 million listed in all at
1,000 a call: some 78,000 list calls, a few minutes with the folders listed side by side.
"""

from __future__ import annotations

import heapq
import queue
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from hedera_history.errors import FileNameError, HistoryError, SourceError
from hedera_history.formats.names import StreamFileKind, format_timestamp, parse_stream_file_name, signature_file_name
from hedera_history.formats.stream_paths import NodeDirectory, NodeIdentity
from hedera_history.sources.base import ObjectSource
from hedera_history.sources.period_files import StreamLocation

NS_PER_SECOND = 1_000_000_000
DAY_NS = 86_400 * NS_PER_SECOND
QUEUE_SIZE = 4096
"""Listed names a folder's thread may hold ahead of the merge."""
_PUT_WAIT_SECONDS = 0.2


@dataclass(frozen=True, slots=True)
class ListedPeriod:
    period_key: str
    """The timestamp part of the period's names, as the nodes wrote it."""
    consensus_ns: int
    signatures: int
    """How many of the listed node folders hold the period's signature file."""


def node_folder(location: StreamLocation, node: NodeIdentity, directory: NodeDirectory | None = None) -> str:
    """The folder (ending in ``/``) where ``node`` uploads its record and signature files."""
    any_name = signature_file_name(0)
    return location.path(node, any_name, directory).removesuffix(any_name.name)


def common_name_prefix(start_ns: int, end_ns: int) -> str:
    """The longest prefix shared by the names of every period starting in ``[start_ns, end_ns)``."""
    first, last = format_timestamp(start_ns), format_timestamp(max(start_ns, end_ns - 1))
    shared = 0
    while shared < min(len(first), len(last)) and first[shared] == last[shared]:
        shared += 1
    return first[:shared]


@dataclass(frozen=True, slots=True)
class NameChunk:
    """The periods starting in ``[start_ns, end_ns)``, listed with ``prefix``."""

    prefix: str
    start_ns: int
    end_ns: int


def name_chunks(start_ns: int, end_ns: int, chunk_ns: int = DAY_NS) -> list[NameChunk]:
    """The range cut at multiples of ``chunk_ns``, each part with its listing prefix; neighbours
    that would list with the same prefix are one chunk."""
    chunks: list[NameChunk] = []
    chunk_start = start_ns
    while chunk_start < end_ns:
        chunk_end = min((chunk_start // chunk_ns + 1) * chunk_ns, end_ns)
        prefix = common_name_prefix(chunk_start, chunk_end)
        if chunks and chunks[-1].prefix == prefix:
            chunks[-1] = NameChunk(prefix, chunks[-1].start_ns, chunk_end)
        else:
            chunks.append(NameChunk(prefix, chunk_start, chunk_end))
        chunk_start = chunk_end
    return chunks


def list_periods(
    source: ObjectSource,
    location: StreamLocation,
    nodes: Sequence[NodeIdentity],
    start_ns: int,
    end_ns: int,
    *,
    directory: NodeDirectory | None = None,
    chunk_ns: int = DAY_NS,
) -> Iterator[ListedPeriod]:
    """Every period starting in ``[start_ns, end_ns)`` that a node in ``nodes`` signed.

    Periods come in name order, which is time order for names with nine fraction digits (all
    since 2020; older names with fewer digits may come slightly out of time order, so a caller
    that needs exact order sorts by ``consensus_ns``). ``directory`` maps node ids and accounts for
    the layout (an address book). Source errors propagate: a folder that could not be listed must
    not look like a folder without periods.
    """
    folders = sorted({node_folder(location, node, directory) for node in nodes})
    if not folders or end_ns <= start_ns:
        return
    chunks = name_chunks(start_ns, end_ns, chunk_ns)
    stop = threading.Event()
    listings = [_FolderListing(source, folder, chunks, stop) for folder in folders]
    try:
        current: tuple[str, int] | None = None
        count = 0
        for key, consensus_ns in heapq.merge(*(listing.entries() for listing in listings)):
            if current is not None and key != current[0]:
                yield ListedPeriod(current[0], current[1], count)
                count = 0
            current = (key, consensus_ns)
            count += 1
        if current is not None:
            yield ListedPeriod(current[0], current[1], count)
    finally:
        stop.set()


class _FolderListing:
    """One node folder's signature files in the range, listed by a thread of its own."""

    _END = object()

    def __init__(self, source: ObjectSource, folder: str, chunks: list[NameChunk], stop: threading.Event) -> None:
        self.source = source
        self.folder = folder
        self.chunks = chunks
        self.stop = stop
        self.queue: queue.Queue[object] = queue.Queue(QUEUE_SIZE)
        self.thread = threading.Thread(target=self._list, name=f"listing {folder}", daemon=True)
        self.thread.start()

    def entries(self) -> Iterator[tuple[str, int]]:
        while True:
            item = self.queue.get()
            if item is self._END:
                return
            if isinstance(item, BaseException):
                raise item
            assert isinstance(item, tuple)
            yield item

    def _list(self) -> None:
        # The consumer raises what ends this thread: the end marker, a source error, or (for any
        # other exception, whose traceback the thread prints) an error saying the listing broke off.
        outcome: object = SourceError("listing stopped unexpectedly", file=self.folder)
        try:
            for chunk in self.chunks:
                if self.stop.is_set():
                    return
                for info in self.source.list(self.folder + chunk.prefix, delimiter="/"):
                    entry = _signature_in(info.name, chunk)
                    if entry is not None and not self._put(entry):
                        return
            outcome = self._END
        except HistoryError as e:
            outcome = e
        finally:
            self._put(outcome)

    def _put(self, item: object) -> bool:
        """Queue ``item``; False once the consumer has gone away."""
        while not self.stop.is_set():
            try:
                self.queue.put(item, timeout=_PUT_WAIT_SECONDS)
                return True
            except queue.Full:
                continue
        return False


def _signature_in(name: str, chunk: NameChunk) -> tuple[str, int] | None:
    """(period key, consensus ns) when ``name`` is a signature file of a period in ``chunk``."""
    if not name.endswith(".rcd_sig"):
        return None
    try:
        parsed = parse_stream_file_name(name)
    except FileNameError:
        return None
    if parsed.kind is StreamFileKind.SIGNATURE and chunk.start_ns <= parsed.consensus_ns < chunk.end_ns:
        return parsed.period_key, parsed.consensus_ns
    return None
