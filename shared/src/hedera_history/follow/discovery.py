"""Finding new stream files: each node folder listed after the last name seen there.

How the reference mirror node does it: its importer's downloader lists every node's folder every
500 ms, after the last file it has, and downloads signature files from all nodes. We only need the
listing to learn that a period exists: verification (``pipeline.ingest``) reads every book node's
signature file by name anyway. So:

- every ``follow_poll_seconds`` (0.5 s) only a few *hot* folders are listed (``follow_hot_nodes``,
  3): those that keep up (whose last listed name is the newest any folder has shown), rotated so
  no single node's upload delays set the pace and a node that falls behind drops out of the set;
- every ``follow_full_listing_seconds`` (10 s) every folder is listed, so a period that only
  lagging or cold nodes have uploaded is found too, and a lagging node's late signature files are
  seen (the follower hands them to ingest as uploads, which adds their signature cells);
- a listing names a folder, the delimiter ``/`` (sidecar folders are not descended: sidecars are
  read by name) and ``start_after`` the folder's last name, so an idle network costs one list call
  per folder listed and returns nothing.

Cost (about 30 node folders): 3 hot lists per 0.5 s + 30 per 10 s = 9 list calls a second,
about 780,000 a day (Class A operations on GCS, LIST requests on S3), compared with the
mirror node's 30 per 0.5 s (5.2 million a day).

Within a folder, nodes upload in time order, so "after the last name" misses nothing a node
uploads in order. A signature file a node uploads after a later period's file is still read (by
name) by every verification of its period until the period is published; listed after that, it
is not seen, and the block keeps the other nodes' signatures (the reference mirror node's
downloader, listing after the last name too, has the same blind spot).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from hedera_history.errors import FileNameError, HistoryError
from hedera_history.formats.names import StreamFileKind, parse_stream_file_name
from hedera_history.formats.stream_paths import NodeDirectory, NodeIdentity
from hedera_history.logs import event
from hedera_history.sources.base import ObjectSource
from hedera_history.sources.period_files import StreamLocation
from hedera_history.sources.period_listing import node_folder

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Sighting:
    """A signature file seen in a node folder's listing."""

    name: str
    """Relative to the source's root (what ``ingest_object`` takes)."""
    folder: str
    period_key: str
    consensus_ns: int


def book_folders(location: StreamLocation, nodes: Iterable[NodeIdentity], directory: NodeDirectory | None) -> list[str]:
    """The node folders (ending in ``/``) of ``nodes``, sorted."""
    return sorted({node_folder(location, node, directory) for node in nodes})


class Discovery:
    """Lists node folders after their last names; remembers those names (the ``listed`` map)."""

    def __init__(
        self,
        source: ObjectSource,
        folders: Sequence[str],
        *,
        after: Mapping[str, str],
        default_after: Mapping[str, str] | None = None,
        hot_nodes: int = 3,
    ) -> None:
        """``after``: folder -> last name listed there (a stored position's, or the start point);
        ``default_after``: where a folder missing from ``after`` starts (a start point per folder)."""
        self.source = source
        self.hot_nodes = hot_nodes
        self._listed: dict[str, str] = dict(after)
        self._default = dict(default_after or {})
        self._folders: list[str] = []
        self._rotation = 0
        self.list_calls = 0
        self.list_errors = 0
        self.set_folders(folders)

    @property
    def folders(self) -> list[str]:
        return list(self._folders)

    @property
    def listed(self) -> dict[str, str]:
        """Folder -> last name listed (or where its listing starts, before anything was listed)."""
        return {folder: self._after(folder) for folder in self._folders}

    def set_folders(self, folders: Sequence[str]) -> None:
        """The book's folders (a new book may add or remove nodes)."""
        self._folders = sorted(set(folders))

    def set_default_after(self, folder: str, name: str) -> None:
        self._default[folder] = name

    def hot(self) -> list[str]:
        """The folders listed at every poll: ``hot_nodes`` of those that keep up (their last listed
        period is the newest any folder showed), rotated from poll to poll; the others fill in
        when fewer keep up."""
        if self.hot_nodes <= 0 or self.hot_nodes >= len(self._folders):
            return list(self._folders)
        periods = {folder: _period_part(self._after(folder), folder) for folder in self._folders}
        newest = max(periods.values())
        keeping_up = [f for f in self._folders if periods[f] == newest]
        behind = [f for f in self._folders if periods[f] != newest]
        self._rotation += 1
        return (self._rotated(keeping_up) + self._rotated(behind))[: self.hot_nodes]

    def _rotated(self, folders: list[str]) -> list[str]:
        if not folders:
            return folders
        k = self._rotation % len(folders)
        return folders[k:] + folders[:k]

    def poll(self, folders: Sequence[str]) -> list[Sighting]:
        """List ``folders`` after their last names; the signature files found, in name order per
        folder. A folder that cannot be listed is logged and tried again at the next poll (its last
        name stays where it was, so nothing is lost)."""
        found: list[Sighting] = []
        for folder in folders:
            try:
                found.extend(self._list(folder))
            except HistoryError as e:
                self.list_errors += 1
                event(logger, "follower listing failed", logging.WARNING, folder=folder, error=str(e))
        return found

    def _list(self, folder: str) -> list[Sighting]:
        self.list_calls += 1
        found: list[Sighting] = []
        last: str | None = None
        for info in self.source.list(folder, delimiter="/", start_after=self._after(folder)):
            last = info.name
            sighting = _signature(info.name, folder)
            if sighting is not None:
                found.append(sighting)
        if last is not None:
            self._listed[folder] = last
        return found

    def _after(self, folder: str) -> str:
        listed = self._listed.get(folder)
        if listed is not None:
            return listed
        return self._default.get(folder, folder)


def _period_part(name: str, folder: str) -> str:
    """The period key a listed name (or a start point ``<folder><key>~``) belongs to."""
    rest = name.removeprefix(folder)
    end = rest.find("Z")
    return rest[: end + 1] if end >= 0 else rest


def _signature(name: str, folder: str) -> Sighting | None:
    if not name.endswith(".rcd_sig"):
        return None
    try:
        parsed = parse_stream_file_name(name.removeprefix(folder))
    except FileNameError:
        return None
    if parsed.kind is not StreamFileKind.SIGNATURE:
        return None
    return Sighting(name, folder, parsed.period_key, parsed.consensus_ns)


__all__ = ["Discovery", "Sighting", "book_folders"]
