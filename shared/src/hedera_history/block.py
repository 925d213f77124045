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
class NativeBlock:
    """What a block-stream block (HIP-1056) keeps beside the record file its items become."""

    content: bytes
    """The serialised ``Block``: every item as it stands on the wire (what its root hash covers)."""
    proof: bytes
    """The serialised ``BlockProof`` that proved the block (TSS signature, or state proof and signature)."""
    signed: bool
    """False for a pre-TSS placeholder proof (SHA-384 of the root) accepted as unsigned: the block is
    stored for its content and chain, with no signature behind it."""


@dataclass(frozen=True, slots=True)
class VerifiedBlock:
    """A record file whose hashes, signatures and sidecars all checked out (or a block-stream
    block, whose items became that record file, whose root and proof checked out).

    ``block_number`` is the file's own (V6) or the one assigned from the chain (earlier versions).
    ``signatures`` holds only signatures that verified and agree with the consensus file hash.
    The chain link to the previous block is checked separately, when both are known.
    """

    record: RecordFile
    block_number: int
    sidecars: tuple[SidecarFile, ...]
    signatures: tuple[NodeSignature, ...]
    consensus: ConsensusSummary
    native: NativeBlock | None = None
    """Set for a block-stream block: its own bytes and proof. ``consensus`` then holds the TSS
    signers' weight and the key's total weight (0 of 0 when unsigned)."""
    wrapped_envelope: bytes | None = None
    """Set for a wrapped record block: the block without the record file contents its items row
    keeps (V6), or whole (``formats.wrapped_envelope``)."""

    @property
    def hash(self) -> bytes:
        """What the next block names as its previous hash (end running hash, or V1/V2 file hash)."""
        return self.record.hash

    @property
    def previous_hash(self) -> bytes:
        return self.record.previous_hash
