"""The errata path of the ingest: an uploaded errata file or node signature in, an outcome out.

The ingest function calls :func:`process_errata_object` for every object whose path
``layout.is_errata_path`` accepts (the errata file or any node's ``.errata_sig``). It reads the
errata file and every node's signature for it, judges both authorities against the address book
in force and the configured council, and applies the errata when both hold. A refusal changes
nothing and says why; too little node stake (more signatures may come) or a block not stored yet
leaves it pending, and a later upload or sweep tries again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import Enum

from hedera_history.books.address_book import AddressBook
from hedera_history.config import Settings
from hedera_history.errata.apply import apply_plan, record_ratification
from hedera_history.errata.authority import CouncilPolicy, Verdict, judge_errata
from hedera_history.errata.cell_changes import ErrataPlan, plan_errata
from hedera_history.errata.errata_paths import ErrataPath, parse_errata_path
from hedera_history.errors import (
    ErrataError,
    FormatError,
    HistoryError,
    ObjectNotFoundError,
    is_transient,
)
from hedera_history.formats.dispatch import parse_signature_file
from hedera_history.formats.parsed_files import SignatureFile
from hedera_history.formats.stream_paths import BucketLayout, NodeIdentity
from hedera_history.logs import event
from hedera_history.sources.base import ObjectSource
from hedera_history.store.gateway import BigtableGateway

logger = logging.getLogger(__name__)
MAX_SIGNATURE_BYTES = 64 * 1024


class ErrataStatus(Enum):
    APPLIED = "applied"
    ALREADY_APPLIED = "already_applied"
    PENDING = "pending"
    """Not yet: too little node stake so far, the errata file not uploaded yet, or its block not stored."""
    REJECTED = "rejected"
    """Never: malformed, or not approved by the council."""


@dataclass(frozen=True)
class ErrataOutcome:
    path: str
    errata_path: str
    status: ErrataStatus
    errata_id: str | None = None
    reasons: tuple[str, ...] = ()
    verdict: Verdict | None = None
    plan: ErrataPlan | None = None

    @property
    def cells_written(self) -> int:
        return len(self.plan.changes) if self.plan is not None and self.status is ErrataStatus.APPLIED else 0


def process_errata_object(
    source: ObjectSource,
    path: str,
    settings: Settings,
    gateway: BigtableGateway,
    book: AddressBook,
    *,
    policy: CouncilPolicy | None = None,
) -> ErrataOutcome:
    """Judge and apply the errata ``path`` belongs to (``path`` relative to the source's root).

    ``book`` is the address book in force at the errata's consensus time. Raises only transient
    source and store errors (try again) and FileNameError for a path that is no errata path.
    """
    parsed = parse_errata_path(path)
    errata_file = parsed.errata_file
    try:
        data = source.read(errata_file, max_bytes=settings.max_decompressed_bytes)
    except ObjectNotFoundError:
        return _done(path, errata_file, ErrataStatus.PENDING, reasons=("the errata file is not uploaded yet",))
    signatures = collect_node_signatures(source, parsed)
    verdict = judge_errata(data, errata_file, signatures, book, policy or CouncilPolicy.from_settings(settings))
    errata_id = verdict.errata.errata_id if verdict.errata is not None else None
    if verdict.error is not None:
        status = ErrataStatus.PENDING if is_transient(verdict.error) else ErrataStatus.REJECTED
        return _done(path, errata_file, status, errata_id=errata_id, reasons=verdict.reasons, verdict=verdict)
    assert verdict.errata is not None
    try:
        plan = plan_errata(verdict.errata, gateway, settings)
    except ErrataError as e:
        status = ErrataStatus.PENDING if is_transient(e) else ErrataStatus.REJECTED
        return _done(path, errata_file, status, errata_id=errata_id, reasons=(e.reason,), verdict=verdict)
    assert verdict.nodes is not None
    if plan.already_applied:
        record_ratification(verdict.errata, verdict.nodes, gateway, settings)
        return _done(path, errata_file, ErrataStatus.ALREADY_APPLIED, errata_id=errata_id, verdict=verdict, plan=plan)
    apply_plan(plan, gateway, settings, ratified_by=verdict.nodes)
    return _done(path, errata_file, ErrataStatus.APPLIED, errata_id=errata_id, verdict=verdict, plan=plan)


def collect_node_signatures(
    source: ObjectSource, errata: ErrataPath
) -> dict[NodeIdentity, SignatureFile | HistoryError]:
    """Every node's signature file for the errata, found through the node folders of its layout."""
    found: dict[NodeIdentity, SignatureFile | HistoryError] = {}
    for node, shard in _node_folders(source, errata):
        path = errata.signature_path(node, shard)
        try:
            data = source.read(path, max_bytes=MAX_SIGNATURE_BYTES)
        except ObjectNotFoundError:
            continue
        try:
            found[node] = parse_signature_file(data, path, node=str(node))
        except FormatError as e:
            found[node] = e
    return found


def _node_folders(source: ObjectSource, errata: ErrataPath) -> list[tuple[NodeIdentity, int | None]]:
    if errata.layout is BucketLayout.ACCOUNT:
        base = f"{errata.prefix}recordstreams/"
        accounts = [folder[len(base) :].rstrip("/") for folder in source.list_prefixes(base)]
        return [
            (NodeIdentity(account=a.removeprefix("record")), None)
            for a in accounts
            if a.startswith("record") and _is_account(a.removeprefix("record"))
        ]
    base = f"{errata.prefix}{errata.network}/"
    nodes: list[tuple[NodeIdentity, int | None]] = []
    for shard_folder in source.list_prefixes(base):
        shard = shard_folder[len(base) :].rstrip("/")
        if not shard.isdigit():
            continue
        for node_folder in source.list_prefixes(shard_folder):
            node_id = node_folder[len(shard_folder) :].rstrip("/")
            if node_id.isdigit():
                nodes.append((NodeIdentity(node_id=int(node_id)), int(shard)))
    return nodes


def _is_account(text: str) -> bool:
    parts = text.split(".")
    return len(parts) == 3 and all(p.isdigit() for p in parts)


def _done(
    path: str,
    errata_file: str,
    status: ErrataStatus,
    *,
    errata_id: str | None = None,
    reasons: tuple[str, ...] = (),
    verdict: Verdict | None = None,
    plan: ErrataPlan | None = None,
) -> ErrataOutcome:
    outcome = ErrataOutcome(path, errata_file, status, errata_id, reasons, verdict, plan)
    level = logging.WARNING if status in (ErrataStatus.REJECTED, ErrataStatus.PENDING) else logging.INFO
    event(
        logger,
        f"errata {status.value}",
        level,
        path=path,
        errata_file=errata_file,
        errata=errata_id,
        reasons=list(reasons),
        cells=outcome.cells_written,
    )
    return outcome
