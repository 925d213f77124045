"""Hand-built block files (``Block`` protobufs) for the block reader, hash and verification tests.

Items are serialised ``BlockItem`` messages built on the wire (``length_delimited``), so a test can
make any item number, a second field, a non-canonical encoding; :func:`chain` links blocks as a
network does (each footer names the previous root and the tree of all roots before it).
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import zstandard
from hedera_history import hapi
from hedera_history.formats.block import BlockFile, ItemKind, parse_block, serialize_block
from hedera_history.formats.block_hash import EMPTY_TREE_HASH, AllBlockHashesTree, block_root_hash
from hedera_history.formats.wire import length_delimited, varint_field

from hiero_sdk_python.hapi.block.stream import block_proof_pb2, tss_signed_block_proof_pb2  # isort: skip
from hiero_sdk_python.hapi.block.stream.output import block_footer_pb2, block_header_pb2  # isort: skip

BASE_SECONDS = 1_786_000_000


def item(kind: int, payload: bytes) -> bytes:
    """A serialised ``BlockItem`` holding ``payload`` as its oneof field ``kind``."""
    return length_delimited(kind, payload)


def header_item(
    number: int, *, minor: int = 78, seconds: int = BASE_SECONDS, nanos: int = 5, algorithm: int = 0
) -> bytes:
    header = block_header_pb2.BlockHeader(number=number, hash_algorithm=algorithm)
    header.hapi_proto_version.minor = minor
    header.software_version.minor = minor
    header.block_timestamp.seconds = seconds
    header.block_timestamp.nanos = nanos
    return item(ItemKind.BLOCK_HEADER, header.SerializeToString())


def footer_item(
    previous: bytes = EMPTY_TREE_HASH, all_blocks: bytes = EMPTY_TREE_HASH, state: bytes = EMPTY_TREE_HASH
) -> bytes:
    footer = block_footer_pb2.BlockFooter(
        previous_block_root_hash=previous,
        root_hash_of_all_block_hashes_tree=all_blocks,
        start_of_block_state_root_hash=state,
    )
    return item(ItemKind.BLOCK_FOOTER, footer.SerializeToString())


def tss_proof_item(number: int, signature: bytes = b"\x07" * 2920) -> bytes:
    proof = block_proof_pb2.BlockProof(
        block=number, signed_block_proof=tss_signed_block_proof_pb2.TssSignedBlockProof(block_signature=signature)
    )
    return item(ItemKind.BLOCK_PROOF, proof.SerializeToString())


def body_items(seed: int, count: int = 6) -> list[bytes]:
    """A round with events, transactions, results, outputs and state changes (opaque payloads)."""
    round_header = item(ItemKind.ROUND_HEADER, varint_field(1, 100 + seed))
    out = [round_header]
    for index in range(count):
        tag = f"{seed}/{index}".encode()
        out += [
            item(ItemKind.EVENT_HEADER, length_delimited(1, b"event " + tag)),
            item(ItemKind.SIGNED_TRANSACTION, _signed_transaction(f"body {seed}/{index}")),
            item(ItemKind.TRANSACTION_RESULT, length_delimited(2, b"result " + tag)),
            item(ItemKind.TRANSACTION_OUTPUT, length_delimited(3, b"output " + tag)),
            item(ItemKind.STATE_CHANGES, length_delimited(2, b"state " + tag)),
        ]
    return out


def _signed_transaction(memo: str) -> bytes:
    body = hapi.TransactionBody(memo=memo).SerializeToString()
    signed: bytes = hapi.SignedTransaction(bodyBytes=body).SerializeToString()
    return signed


@dataclass
class BlockSpec:
    number: int
    body: list[bytes] = field(default_factory=list)
    minor: int = 78
    proof: bytes | None = None


def block_bytes(spec: BlockSpec, previous: bytes, all_blocks: bytes) -> bytes:
    seconds = BASE_SECONDS + 2 * spec.number
    items = [
        header_item(spec.number, minor=spec.minor, seconds=seconds),
        *spec.body,
        footer_item(previous, all_blocks),
        spec.proof if spec.proof is not None else tss_proof_item(spec.number),
    ]
    return serialize_block(items)


def chain(specs: Sequence[BlockSpec]) -> list[bytes]:
    """Serialised blocks, each footer linked to the blocks before it in ``specs`` (the first block
    names the empty tree for both links, as block 0 does)."""
    tree = AllBlockHashesTree()
    previous = EMPTY_TREE_HASH
    out: list[bytes] = []
    for spec in specs:
        data = block_bytes(spec, previous, tree.root())
        previous = block_root_hash(parse_block(data, f"{spec.number}.blk"))
        tree.add(previous)
        out.append(data)
    return out


def linked_blocks(count: int, *, minor: int = 78) -> list[bytes]:
    return chain([BlockSpec(number, body_items(number), minor=minor) for number in range(count)])


def parsed(data: bytes, name: str = "block.blk") -> BlockFile:
    return parse_block(data, name)


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def zst(data: bytes) -> bytes:
    return zstandard.ZstdCompressor().compress(data)


def sha384(data: bytes) -> bytes:
    return hashlib.sha384(data).digest()


def record_file_item(contents: bytes, creation_ns: int, sidecars: Sequence[bytes] = ()) -> bytes:
    """A serialised ``RecordFileItem`` wrapping ``contents`` (a ``RecordStreamFile``'s bytes)."""
    creation = varint_field(1, creation_ns // 1_000_000_000) + varint_field(2, creation_ns % 1_000_000_000)
    return (
        length_delimited(1, creation)
        + length_delimited(2, contents)
        + b"".join(length_delimited(3, sidecar) for sidecar in sidecars)
    )


def record_file_proof_item(number: int, version: int, signatures: Sequence[tuple[int, bytes]]) -> bytes:
    """A ``BlockProof`` carrying a ``SignedRecordFileProof`` of (node id, signature) pairs."""
    proof = block_proof_pb2.BlockProof(block=number)
    proof.signed_record_file_proof.version = version
    for node_id, signature in signatures:
        proof.signed_record_file_proof.record_file_signatures.add(node_id=node_id, signatures_bytes=signature)
    return item(ItemKind.BLOCK_PROOF, proof.SerializeToString())


def wrapped_block(
    number: int,
    record_item: bytes,
    proof: bytes,
    *,
    previous: bytes = EMPTY_TREE_HASH,
    all_blocks: bytes = EMPTY_TREE_HASH,
    minor: int = 78,
) -> bytes:
    header = header_item(number, minor=minor, seconds=BASE_SECONDS + 2 * number)
    return serialize_block([header, item(ItemKind.RECORD_FILE, record_item), footer_item(previous, all_blocks), proof])
