"""What the format readers return: frozen values, no I/O, no judgement.

Readers compute every hash while parsing (file hash, metadata hash, the running hash recomputed
over the items) and store both the value the file claims and the value computed; deciding whether
they agree is verification's job (``hedera_history.verify``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Protocol


class SidecarType(IntEnum):
    """``SidecarType`` of HAPI's ``record_stream_file.proto``."""

    UNKNOWN = 0
    CONTRACT_STATE_CHANGE = 1
    CONTRACT_ACTION = 2
    CONTRACT_BYTECODE = 3


@dataclass(frozen=True, slots=True)
class RecordItem:
    """One transaction and its record, as the exact bytes that stand in the file.

    ``transaction_bytes`` is a serialised ``Transaction``, ``record_bytes`` a serialised
    ``TransactionRecord``; the running hash covers exactly these bytes.
    """

    transaction_bytes: bytes
    record_bytes: bytes
    consensus_ns: int


class ItemBytes(Protocol):
    """What the format writers need of an item: its two serialised messages (a
    :class:`RecordItem`, or anything else holding them)."""

    @property
    def transaction_bytes(self) -> bytes: ...

    @property
    def record_bytes(self) -> bytes: ...


@dataclass(frozen=True, slots=True)
class SidecarMetadata:
    """A record file's promise about one sidecar file (``SidecarMetadata`` in V6)."""

    id: int
    types: tuple[int, ...]
    hash: bytes


class ChainLinked:
    """A record file's two links in the chain of files, from its version and hashes: from V5 on
    the start and end running hashes, before that the previous file hash and its own hash."""

    __slots__ = ()
    version: int
    file_hash: bytes
    start_running_hash: bytes | None
    end_running_hash: bytes | None
    previous_file_hash: bytes | None

    @property
    def previous_hash(self) -> bytes:
        """What the predecessor must have ended with."""
        value = self.start_running_hash if self.version >= 5 else self.previous_file_hash
        assert value is not None
        return value

    @property
    def hash(self) -> bytes:
        """What the successor must name as its ``previous_hash``."""
        value = self.end_running_hash if self.version >= 5 else self.file_hash
        assert value is not None
        return value


@dataclass(frozen=True, slots=True)
class RecordFile(ChainLinked):
    """A parsed record file of any version (1, 2, 5 or 6).

    Chain links: ``previous_hash`` is what this file says its predecessor ended with and
    ``hash`` what its successor must name. For V5 and V6 these are the start and end running
    hashes; for V1 and V2 the previous file hash and this file's hash.
    """

    name: str
    version: int
    hapi_version: tuple[int, int, int]
    items: tuple[RecordItem, ...]
    file_hash: bytes
    """SHA-384 as the version defines it (V6: of the decompressed bytes)."""
    metadata_hash: bytes | None
    """V5 and V6 only."""
    start_running_hash: bytes | None
    """V5 and V6: the running hash before the first item."""
    end_running_hash: bytes | None
    """V5 and V6: the running hash the file claims after the last item."""
    computed_end_running_hash: bytes | None
    """V5 and V6: the running hash recomputed over ``items`` from ``start_running_hash``."""
    previous_file_hash: bytes | None
    """V1 and V2: the hash of the previous file as this file states it."""
    block_number: int | None
    """V6 carries it; earlier versions get it assigned from the chain."""
    sidecars: tuple[SidecarMetadata, ...] = ()
    size: int = 0
    """Bytes as stored (compressed for V6)."""
    object_stream_version: int | None = None
    """V5 only."""
    header_hapi_int: int | None = None
    """V1 and V2: the header's second int32, kept to rebuild the signed bytes. The reference mirror
    node reads no HAPI version from these files, so ``hapi_version`` is 0.0.0 for them."""
    block_timestamp_ns: int | None = None
    """Native blocks: the header's block timestamp, the consensus start and end of a block without
    transactions (as the reference gives them); None for record files."""

    @property
    def consensus_start(self) -> int:
        return self.items[0].consensus_ns if self.items else self.block_timestamp_ns or 0

    @property
    def consensus_end(self) -> int:
        return self.items[-1].consensus_ns if self.items else self.block_timestamp_ns or 0


@dataclass(frozen=True, slots=True)
class SidecarRecord:
    """One ``TransactionSidecarRecord``, kept as its exact bytes."""

    consensus_ns: int
    type: SidecarType
    raw: bytes


@dataclass(frozen=True, slots=True)
class SidecarFile:
    """A parsed sidecar file; ``hash`` is SHA-384 of the decompressed bytes."""

    name: str
    id: int
    hash: bytes
    records: tuple[SidecarRecord, ...]
    size: int = 0

    @property
    def types(self) -> frozenset[int]:
        return frozenset(int(r.type) for r in self.records)


@dataclass(frozen=True, slots=True)
class SignatureFile:
    """A node's signature file (version 2, 5 or 6).

    ``file_hash`` / ``metadata_hash`` are the hashes the node signed, as the file states them;
    the signatures are RSA PKCS#1 v1.5 with SHA-384 over those 48 bytes.
    """

    name: str
    version: int
    file_hash: bytes
    file_signature: bytes
    metadata_hash: bytes | None = None
    metadata_signature: bytes | None = None


@dataclass(frozen=True, slots=True)
class StreamObjects:
    """Everything of one period as one node uploaded it (any part may be missing)."""

    node: str
    record: RecordFile | None = None
    signature: SignatureFile | None = None
    sidecars: tuple[SidecarFile, ...] = field(default=())
