"""A verified block: what verification hands to row building, publishing and the store."""

from __future__ import annotations

from dataclasses import dataclass

from hedera_history.formats.parsed_files import RecordFile, SidecarFile


@dataclass(frozen=True, slots=True)
class NodeSignature:
    """One node's verified signatures for a period (each becomes its own cell in the block row)."""

    node_account: str
    """``shard.realm.num`` of the node account, e.g. ``0.0.3``."""
    node_id: int
    file_signature: bytes
    metadata_signature: bytes | None


@dataclass(frozen=True, slots=True)
class ConsensusSummary:
    file_hash: bytes
    metadata_hash: bytes | None
    stake: int
    """Stake of the nodes whose valid signatures name ``file_hash``."""
    total_stake: int


@dataclass(frozen=True, slots=True)
class VerifiedBlock:
    """A record file whose hashes, signatures and sidecars all checked out.

    ``block_number`` is the file's own (V6) or the one assigned from the chain (earlier versions).
    ``signatures`` holds only signatures that verified and agree with the consensus file hash.
    The chain link to the previous block is checked separately, when both are known.
    """

    record: RecordFile
    block_number: int
    sidecars: tuple[SidecarFile, ...]
    signatures: tuple[NodeSignature, ...]
    consensus: ConsensusSummary

    @property
    def hash(self) -> bytes:
        """What the next block names as its previous hash (end running hash, or V1/V2 file hash)."""
        return self.record.hash

    @property
    def previous_hash(self) -> bytes:
        return self.record.previous_hash
