"""Verify one period end to end: signatures, consensus, the record file, its sidecars.

Pure: the files come through :class:`PeriodFiles`, whose methods return bytes (or None when the
node has no such file), so a caller reading from a bucket fetches only what is needed: every
signature file, one good record copy (the next agreeing node's when one is missing or bad) and
each sidecar once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, TypedDict, Unpack

from hedera_history.block import VerifiedBlock
from hedera_history.books.address_book import AddressBook, NodeEntry
from hedera_history.errors import (
    BlockNumberNotKnownError,
    FileNameMismatchError,
    FormatError,
    HashMismatchError,
    HistoryError,
    ObjectNotFoundError,
    RunningHashMismatchError,
    SidecarMismatchError,
    SourceError,
)
from hedera_history.formats.dispatch import parse_record_file, parse_sidecar_file, parse_signature_file
from hedera_history.formats.names import parse_stream_file_name, timestamp_resolution_ns
from hedera_history.formats.parsed_files import RecordFile, SidecarFile, SidecarMetadata, SidecarType, SignatureFile
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.verify.consensus import (
    DEFAULT_RATIO,
    ConsensusResult,
    count_signatures,
    require_consensus,
)


@dataclass(frozen=True, slots=True)
class FetchedFile:
    name: str
    """The file's name (not its path), e.g. ``2022-07-13T08_46_11.304284003Z.rcd.gz``."""
    data: bytes


class PeriodFiles(Protocol):
    """One period's files, per node; each method returns None when the node has no such file."""

    @property
    def period_key(self) -> str:
        """The timestamp part of the period's names."""
        ...

    def nodes(self) -> Sequence[NodeIdentity]:
        """The nodes that may hold files for the period."""
        ...

    def signature(self, node: NodeIdentity) -> FetchedFile | None: ...

    def record(self, node: NodeIdentity) -> FetchedFile | None: ...

    def sidecar(self, node: NodeIdentity, sidecar_id: int) -> FetchedFile | None: ...


@dataclass(frozen=True, slots=True)
class PeriodReport:
    """What verifying one period found; ``error`` is None exactly when ``block`` is set."""

    period_key: str
    consensus: ConsensusResult | None
    block: VerifiedBlock | None
    error: HistoryError | None
    record: RecordFile | None = None
    """The record copy that was checked, also when a later check failed."""

    @property
    def ok(self) -> bool:
        return self.error is None


class CheckOptions(TypedDict, total=False):
    """:func:`check_period`'s keyword options, for :func:`verify_period` to pass on."""

    ratio: Fraction
    block_number: int | None
    sidecars: bool
    max_decompressed: int | None


def verify_period(files: PeriodFiles, book: AddressBook, **options: Unpack[CheckOptions]) -> VerifiedBlock:
    """The period's verified block, or the first HistoryError that stopped it (options as
    :func:`check_period` takes them; ``block_number`` is used for files before V6, which do not
    carry one)."""
    report = check_period(files, book, **options)
    if report.error is not None:
        raise report.error
    assert report.block is not None
    return report.block


def check_period(
    files: PeriodFiles,
    book: AddressBook,
    *,
    ratio: Fraction = DEFAULT_RATIO,
    block_number: int | None = None,
    sidecars: bool = True,
    max_decompressed: int | None = None,
) -> PeriodReport:
    """Like :func:`verify_period`, but returns what was found instead of raising."""
    key = files.period_key
    consensus: ConsensusResult | None = None
    record: RecordFile | None = None
    try:
        consensus = count_signatures(collect_signatures(files), book, ratio=ratio)
        require_consensus(consensus, key)
        identities = _identities_by_node(files, book)
        record, source = fetch_signed_record(files, consensus, identities, max_decompressed)
        check_running_hash(record)
        check_file_name(record)
        number = record.block_number if record.block_number is not None else block_number
        if number is None:
            raise BlockNumberNotKnownError(
                f"V{record.version} files carry no block number and none was given", file=record.name
            )
        sidecar_files = (
            fetch_sidecars(files, record, [source, *consensus_nodes(consensus, identities)], max_decompressed)
            if sidecars
            else ()
        )
        block = VerifiedBlock(record, number, sidecar_files, consensus.node_signatures(), consensus.summary())
        return PeriodReport(key, consensus, block, None, record)
    except HistoryError as e:
        return PeriodReport(key, consensus, None, e, record)


def collect_signatures(files: PeriodFiles) -> dict[NodeIdentity, SignatureFile | HistoryError]:
    """Every node's parsed signature file, or the error that kept it from parsing."""
    found: dict[NodeIdentity, SignatureFile | HistoryError] = {}
    for node in files.nodes():
        try:
            fetched = files.signature(node)
            if fetched is not None:
                found[node] = parse_signature_file(fetched.data, fetched.name, node=str(node))
        except (FormatError, SourceError) as e:
            found[node] = e
    return found


def consensus_nodes(consensus: ConsensusResult, identities: dict[int, list[NodeIdentity]]) -> list[NodeIdentity]:
    """The identities of the agreeing nodes, in node-id order."""
    return [identity for node, _ in consensus.agreeing for identity in identities.get(node.node_id, [])]


def fetch_signed_record(
    files: PeriodFiles,
    consensus: ConsensusResult,
    identities: dict[int, list[NodeIdentity]],
    max_decompressed: int | None = None,
) -> tuple[RecordFile, NodeIdentity]:
    """The first agreeing node's record copy whose hashes equal the signed ones, and that node."""
    failures: list[HistoryError] = []
    for node, _sig in consensus.agreeing:
        for identity in identities.get(node.node_id, []):
            try:
                fetched = files.record(identity)
                if fetched is None:
                    continue
                record = parse_record_file(
                    fetched.data, fetched.name, max_decompressed=max_decompressed, node=node.account
                )
                check_signed_hashes(record, consensus, node)
                return record, identity
            except (FormatError, SourceError, HashMismatchError) as e:
                failures.append(e)
    if failures:
        raise failures[0]
    raise ObjectNotFoundError(
        f"no record file among the {len(consensus.agreeing)} agreeing nodes", file=files.period_key
    )


def check_signed_hashes(record: RecordFile, consensus: ConsensusResult, node: NodeEntry) -> None:
    """The record copy's file hash and metadata hash equal the ones the nodes signed."""
    if record.file_hash != consensus.file_hash:
        raise HashMismatchError(
            f"file hash: expected the signed {_hex(consensus.file_hash)}, got {record.file_hash.hex()}",
            file=record.name,
            node=node.account,
        )
    if consensus.metadata_hash is not None and record.metadata_hash != consensus.metadata_hash:
        raise HashMismatchError(
            f"metadata hash: expected the signed {consensus.metadata_hash.hex()}, got {_hex(record.metadata_hash)}",
            file=record.name,
            node=node.account,
        )


def check_running_hash(record: RecordFile) -> None:
    """V5 and V6: the running hash recomputed over the items equals the end running hash."""
    if record.version < 5:
        return
    if record.computed_end_running_hash != record.end_running_hash:
        raise RunningHashMismatchError(
            f"end running hash: the file states {_hex(record.end_running_hash)}, "
            f"the items give {_hex(record.computed_end_running_hash)}",
            file=record.name,
        )


def check_file_name(record: RecordFile) -> None:
    """The file's name gives the consensus time of its first transaction, as the network names
    every record file.

    Names written with fewer than nine fraction digits (V1/V2, ``...T14_13_00.317763Z``) are
    compared at the precision they carry. A file without transactions has nothing to compare; its
    place is vouched for by the chain links alone.
    """
    if not record.items:
        return
    name = parse_stream_file_name(record.name)
    resolution = timestamp_resolution_ns(name.period_key)
    start = record.consensus_start
    if start - start % resolution != name.consensus_ns:
        raise FileNameMismatchError(
            f"the name says {name.period_key}, the first transaction reached consensus at {start} ns: "
            "a file replayed under another period's name",
            file=record.name,
        )


def fetch_sidecars(
    files: PeriodFiles,
    record: RecordFile,
    nodes: Sequence[NodeIdentity],
    max_decompressed: int | None = None,
) -> tuple[SidecarFile, ...]:
    """Each sidecar the record promises, from the first of ``nodes`` holding a matching copy."""
    return tuple(_fetch_sidecar(files, record, meta, nodes, max_decompressed) for meta in record.sidecars)


def check_sidecar(sidecar: SidecarFile, meta: SidecarMetadata, record_name: str) -> None:
    """The sidecar's hash and types equal its SidecarMetadata.

    Types the HAPI protobufs do not know yet (a metadata value outside ``SidecarType``, a record
    whose payload is a field this version cannot name) all count as ``UNKNOWN``: they cannot be
    matched one to one, and the hash already vouches for the bytes, so a newer type never stops a
    period that verifies by hash.
    """
    if sidecar.hash != meta.hash:
        raise SidecarMismatchError(
            f"sidecar {meta.id} hash: expected {meta.hash.hex()} (from {record_name}), got {sidecar.hash.hex()}",
            file=sidecar.name,
        )
    if _type_classes(meta.types) != _type_classes(sidecar.types):
        raise SidecarMismatchError(
            f"sidecar {meta.id} types: expected {sorted(meta.types)} (from {record_name}), got {sorted(sidecar.types)}",
            file=sidecar.name,
        )


def _fetch_sidecar(
    files: PeriodFiles,
    record: RecordFile,
    meta: SidecarMetadata,
    nodes: Sequence[NodeIdentity],
    max_decompressed: int | None,
) -> SidecarFile:
    failures: list[HistoryError] = []
    for identity in dict.fromkeys(nodes):
        try:
            fetched = files.sidecar(identity, meta.id)
            if fetched is None:
                continue
            sidecar = parse_sidecar_file(
                fetched.data, fetched.name, id=meta.id, max_decompressed=max_decompressed, node=str(identity)
            )
        except (FormatError, SourceError) as e:
            failures.append(e)
            continue
        if sidecar.hash != meta.hash:
            failures.append(
                SidecarMismatchError(
                    f"sidecar {meta.id} hash: expected {meta.hash.hex()}, got {sidecar.hash.hex()}",
                    file=fetched.name,
                    node=str(identity),
                )
            )
            continue
        # The copy is the one the record vouches for, so a type mismatch is the record's own fault.
        check_sidecar(sidecar, meta, record.name)
        return sidecar
    if failures:
        raise failures[0]
    raise SidecarMismatchError(f"sidecar {meta.id} is missing on every agreeing node", file=record.name)


def _type_classes(types: Iterable[int]) -> set[SidecarType]:
    known = {int(t) for t in SidecarType}
    return {SidecarType(t) if t in known else SidecarType.UNKNOWN for t in types}


def _identities_by_node(files: PeriodFiles, book: AddressBook) -> dict[int, list[NodeIdentity]]:
    found: dict[int, list[NodeIdentity]] = {}
    for identity in files.nodes():
        node = book.find(identity)
        if node is not None:
            found.setdefault(node.node_id, []).append(identity)
    return found


def _hex(value: bytes | None) -> str:
    return value.hex() if value is not None else "nothing"
