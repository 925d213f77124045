"""Errata as project values: what the codec returns and the authority, planner and applier take."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from hedera_history.errors import ErrataFormatError
from hedera_history.formats.hashing import sha384
from hedera_history.formats.parsed_files import RecordItem

ERRATA_FILE_VERSION = 1
ERRATA_ID_BYTES = 16
_MAX_U64 = (1 << 64) - 1


class EntryKind(Enum):
    """What an errata does to the history entry at its time of error (the mirror node's ``errata``
    column says INSERT or DELETE; UPDATE is this project's word for a replaced entry)."""

    INSERT = "INSERT"
    UPDATE = "UPDATE"
    DELETE = "DELETE"


@dataclass(frozen=True, slots=True)
class ErrataBody:
    """A ``RecordStreamErrataTransactionBody``."""

    consensus_time_of_error: int
    """Nanoseconds since the epoch."""
    correct_item: RecordItem | None
    """What should have been exported at that time; None: nothing should have been."""
    compensating_items: tuple[RecordItem, ...]
    """Synthetic transactions for derived state only; each carries the errata's consensus time."""


@dataclass(frozen=True, slots=True)
class CouncilSignature:
    public_key: bytes
    """Raw 32-byte Ed25519 public key."""
    signature: bytes
    """Ed25519 signature over the body bytes."""


@dataclass(frozen=True, slots=True)
class ErrataFile:
    """A parsed errata file; hashes are computed, never judged here."""

    name: str
    consensus_ns: int
    """The errata's own consensus time (the HIP's T2, T3)."""
    body_bytes: bytes
    """The body exactly as carried (and as the council signed it)."""
    body: ErrataBody
    council_signatures: tuple[CouncilSignature, ...]
    file_hash: bytes
    """SHA-384 of the file's bytes: what each node's file signature covers."""
    body_hash: bytes
    """SHA-384 of the body bytes: what each node's metadata signature covers."""
    data: bytes = field(repr=False)
    """The file's bytes as read (kept in the errata log, so every answer can be re-verified)."""

    @property
    def errata_id(self) -> str:
        return errata_id(self.consensus_ns, self.body_bytes)

    @property
    def time_of_error(self) -> int:
        return self.body.consensus_time_of_error

    @property
    def entry_kind(self) -> EntryKind:
        """DELETE when the body has no correct item; otherwise UPDATE (the store may find nothing
        to replace there, which makes it an INSERT: see ``errata.cell_changes``)."""
        return EntryKind.DELETE if self.body.correct_item is None else EntryKind.UPDATE


def errata_id(consensus_ns: int, body_bytes: bytes) -> str:
    """32 hex digits naming one errata: its consensus time and body, not its signatures (adding a
    council signature does not make another errata)."""
    # The time as ``store.keys.hex16`` writes it, spelt out here: the proof verifier judges errata
    # with this package and must not load the store.
    if not 0 <= consensus_ns <= _MAX_U64:
        raise ErrataFormatError(f"errata consensus time {consensus_ns} does not fit in 64 bits")
    return sha384(b"%016x" % consensus_ns + body_bytes)[:ERRATA_ID_BYTES].hex()
