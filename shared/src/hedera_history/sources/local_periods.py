"""Periods found in a local directory, in either bucket layout, read lazily.

The directory may be any level of a layout: the bucket root, ``recordstreams/``, one node's
folder, a folder holding several buckets. Every file below it whose full path parses as a stream
file in a known layout is grouped by period and node; other files are ignored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hedera_history.errors import FileNameError, SourceError
from hedera_history.formats.names import StreamFileKind
from hedera_history.formats.stream_paths import NodeIdentity, parse_object_path
from hedera_history.verify.period import FetchedFile


@dataclass(frozen=True, slots=True, eq=False)
class LocalPeriod:
    """One period's files per node on disk; a :class:`~hedera_history.verify.period.PeriodFiles`."""

    period_key: str
    consensus_ns: int
    signatures: dict[NodeIdentity, Path] = field(default_factory=dict)
    records: dict[NodeIdentity, Path] = field(default_factory=dict)
    sidecar_files: dict[tuple[NodeIdentity, int], Path] = field(default_factory=dict)

    def nodes(self) -> Sequence[NodeIdentity]:
        found = {*self.signatures, *self.records, *(node for node, _ in self.sidecar_files)}
        return sorted(found, key=lambda n: (n.account is None, n.account or "", n.node_id or 0))

    def signature(self, node: NodeIdentity) -> FetchedFile | None:
        return _read(self.signatures.get(node))

    def record(self, node: NodeIdentity) -> FetchedFile | None:
        return _read(self.records.get(node))

    def sidecar(self, node: NodeIdentity, sidecar_id: int) -> FetchedFile | None:
        return _read(self.sidecar_files.get((node, sidecar_id)))


def find_local_periods(root: Path) -> list[LocalPeriod]:
    """Every period under ``root``, in consensus-time order."""
    if not root.is_dir():
        raise SourceError(f"not a directory: {root}", file=str(root))
    periods: dict[str, LocalPeriod] = {}
    for path in sorted(root.resolve().rglob("*")):
        if not path.is_file():
            continue
        try:
            parsed = parse_object_path(path.as_posix())
        except FileNameError:
            continue
        name = parsed.file
        period = periods.setdefault(name.period_key, LocalPeriod(name.period_key, name.consensus_ns))
        if name.kind is StreamFileKind.SIGNATURE:
            period.signatures.setdefault(parsed.node, path)
        elif name.kind is StreamFileKind.RECORD:
            period.records.setdefault(parsed.node, path)
        else:
            assert name.sidecar_id is not None
            period.sidecar_files.setdefault((parsed.node, name.sidecar_id), path)
    return sorted(periods.values(), key=lambda p: (p.consensus_ns, p.period_key))


def _read(path: Path | None) -> FetchedFile | None:
    if path is None:
        return None
    try:
        return FetchedFile(path.name, path.read_bytes())
    except FileNotFoundError:
        return None
    except OSError as e:
        raise SourceError(f"cannot read: {e}", file=str(path)) from e
