"""Block files as a network after its cutover publishes them: wrapped record blocks and native blocks.

A block is its items (as serialised ``BlockItem`` messages), a footer linking it to the chain and a
proof. The chain (:class:`BlockChain`) is what every block's footer names: the root of the block
before it, the root of the streaming tree over every earlier block's root, and the state root at
its start. Roots are computed by the project's own reader and hasher (``formats.block``,
``formats.block_hash``), over a draft of the block whose proof is a placeholder: the proof is not
hashed, so the root is the final block's, and it is what the proof then signs.

- A **wrapped record block** (HIP-1427) of a V6 record file: a header (the block number, the file's
  HAPI version, its first transaction's consensus time; no software version), the
  ``RecordFileItem`` (the file's name time, its contents and sidecar files exactly as the nodes
  wrote them), the footer (the state root left empty: the empty tree's hash) and a
  ``signed_record_file_proof``. Every record file before the cutover has the same wrapped block
  as its place in the chain, proof aside, which is how the network carries the record stream's
  blocks into the block stream (the consensus node's wrapped record file block hashes).
- A **native block** (HIP-1056): a header (block HAPI version, software version, the period's start),
  a round header, then per event (a run of transactions one node submitted) an event header and
  each transaction's items (:mod:`~hedera_history.gen.block_items`), the footer and a TSS proof
  (:mod:`~hedera_history.gen.block_proofs`).

Files are written zstd-compressed, as the buckets hold them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import zstandard

from hedera_history.formats.block import BlockFile, parse_block, serialize_block
from hedera_history.formats.block_hash import EMPTY_TREE_HASH, AllBlockHashesTree, BlockHashes, Subtree, block_hashes
from hedera_history.formats.block_protos import BlockHeader, BlockItem
from hedera_history.formats.hashing import sha384
from hedera_history.formats.names import block_file_path
from hedera_history.formats.record_v6 import VERSION_PREFIX
from hedera_history.formats.wire import length_delimited, varint_field
from hedera_history.gen.config_and_output import NS_PER_SECOND, GeneratedPeriod

BLOCK_FOLDER = "block"
_ZSTD_LEVEL = 3
_ITEM_RECORD_FILE = 10
_ITEM_FOOTER = 12
_ITEM_PROOF = 9


def block_object_path(network: str, number: int, *, flat: bool = False) -> str:
    """``<network>/block/0000/0000/0000/0000/007.blk.zstd``, or ``<network>/block/0000000000000000007.blk.zstd``."""
    return f"{network}/{BLOCK_FOLDER}/{block_file_path(number, bucket=not flat)}"


def timestamp_bytes(ns: int) -> bytes:
    """A ``Timestamp`` message, as protobuf writes it."""
    seconds, nanos = divmod(ns, NS_PER_SECOND)
    return varint_field(1, seconds) + varint_field(2, nanos)


def header_item(
    number: int, timestamp_ns: int, hapi_version: tuple[int, int, int], software_version: tuple[int, int, int] | None
) -> bytes:
    header = BlockHeader(number=number)
    header.hapi_proto_version.major, header.hapi_proto_version.minor, header.hapi_proto_version.patch = hapi_version
    if software_version is not None:
        version = header.software_version
        version.major, version.minor, version.patch = software_version
    header.block_timestamp.seconds, header.block_timestamp.nanos = divmod(timestamp_ns, NS_PER_SECOND)
    return _item(block_header=header)


def round_header_item(round_number: int) -> bytes:
    item = BlockItem()
    item.round_header.round_number = round_number
    return bytes(item.SerializeToString())


def event_header_item(creator_node_id: int, birth_round: int, created_ns: int) -> bytes:
    item = BlockItem()
    core = item.event_header.event_core
    core.creator_node_id = creator_node_id
    core.birth_round = birth_round
    core.time_created.seconds, core.time_created.nanos = divmod(created_ns, NS_PER_SECOND)
    return bytes(item.SerializeToString())


def record_file_item(period: GeneratedPeriod) -> bytes:
    """A V6 record file as the ``RecordFileItem`` of its wrapped block: its name time, its contents
    and its sidecar files, each as the bytes the nodes wrote."""
    contents = period.record_bytes[len(VERSION_PREFIX) :]
    fields = length_delimited(1, timestamp_bytes(period.record_name.consensus_ns)) + length_delimited(2, contents)
    fields += b"".join(length_delimited(3, sidecar.data) for sidecar in period.sidecars)
    return length_delimited(_ITEM_RECORD_FILE, fields)


def wrapped_items(period: GeneratedPeriod, hapi_version: tuple[int, int, int]) -> list[bytes]:
    """A wrapped record block's items before its footer: the header and the record file."""
    header = header_item(period.block_number, period.consensus_start_ns, hapi_version, None)
    return [header, record_file_item(period)]


@dataclass(frozen=True, slots=True)
class BlockDraft:
    """A block whose every item but the proof is final: its root is the final block's."""

    number: int
    items: tuple[bytes, ...]
    """Every item, footer included, but the proof."""
    block: BlockFile
    """The draft as the reader parses it (with a placeholder proof)."""
    hashes: BlockHashes

    def file(self, proof_item: bytes) -> bytes:
        """The block file with ``proof_item``, zstd-compressed."""
        return zstd_compress(serialize_block((*self.items, proof_item)))


class BlockChain:
    """What the next block's footer names: the last root, the tree of every root, the state root."""

    def __init__(self, previous_root: bytes = EMPTY_TREE_HASH, *, stand_in: bytes | None = None) -> None:
        """A chain from block 0 (``previous_root`` the empty tree's hash), or one started later: its
        first footer names ``previous_root`` and a tree whose one node, ``stand_in``, stands for the
        roots of the blocks before (which a generated stream does not have)."""
        self.previous_root = previous_root
        self.tree = AllBlockHashesTree()
        if stand_in is not None:
            self.tree.add(stand_in)
        self.state_root = EMPTY_TREE_HASH

    def draft(self, number: int, items: Sequence[bytes], *, state_root: bool) -> BlockDraft:
        """The block of ``items`` (header first), with this chain's footer; ``state_root``: the
        footer names the state root (native blocks), else the empty tree's hash (wrapped ones)."""
        footer = _footer_item(self.previous_root, self.tree.root(), self.state_root if state_root else EMPTY_TREE_HASH)
        final = (*items, footer)
        placeholder = _item_bytes(_ITEM_PROOF, varint_field(1, number))
        block = parse_block(serialize_block((*final, placeholder)), block_file_path(number, compression=""))
        return BlockDraft(number, final, block, block_hashes(block))

    def advance(self, draft: BlockDraft) -> None:
        """``draft`` is the chain's latest block."""
        self.previous_root = draft.hashes.root
        self.tree.add(draft.hashes.root)
        # Stands for the state after the block: its state changes folded into the state before.
        self.state_root = sha384(self.state_root + draft.hashes.subtree_roots[Subtree.STATE_CHANGES.value])


def zstd_compress(data: bytes) -> bytes:
    """One zstd frame stating its content size (what the block node writes); the same bytes every time."""
    compressed: bytes = zstandard.ZstdCompressor(level=_ZSTD_LEVEL).compress(data)
    return compressed


def _footer_item(previous: bytes, all_blocks: bytes, state: bytes) -> bytes:
    footer = length_delimited(1, previous) + length_delimited(2, all_blocks) + length_delimited(3, state)
    return _item_bytes(_ITEM_FOOTER, footer)


def _item_bytes(kind: int, payload: bytes) -> bytes:
    return length_delimited(kind, payload)


def _item(**case: object) -> bytes:
    return bytes(BlockItem(**case).SerializeToString())
