"""The TSS-signed blocks of ``blocks/tss-schnorr`` (a 4-node HAPI 0.78 network) and their golden
values from ``blocks/README.md``: block roots (asserted by the block node's own tests), the ledger id
block 0 publishes, and who signs."""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hedera_history import hapi  # noqa: F401  (registers the SDK package the block protobufs load from)
from hedera_history.verify.tss import LedgerPublication, MerklePath, find_publication, merkle_paths
from hiero_sdk_python.hapi.block.stream import block_pb2

FOLDER = "blocks/tss-schnorr"
ROOTS = (
    "85d7117a94f091156a97e1f94fb11b640c12431527106e50aa7ce8e4e02af287f3f28591dc43d4c3942a67e7064e4148",
    "9799848eff3420617d5c2eb8e092f903bde6de8662887105f3bd17363d7c1cd3629814f9fc58a9d8f5e1e6ed3fdd53c1",
    "0facbf0e5d94d4576635796c6be83f2d16203e6be633e475b70942f2b22c880944c156e1badcd27be96ffc7ee7b7e194",
    "9d1ac9ba0c57558ab99691f97414d19698e068ff6d600502c3896fccfe3f58c261515f00dc3c116107961385be9f8eec",
    "e313796875ef100613684c0ee4ef1a80a13b73aa9c97f5f9592f9b9a25c798b33e36e397fa0e1456b17cee2155b8d7ac",
    "1c417b370965dd85e274b568694d0a5b3325b39f619a840df0161339864a30e389ba3aec4c7763236d2f4c505d031921",
)
DIRECTLY_SIGNED = (0, 5)
STATE_PROVEN = (1, 2, 3, 4)
SIGNED_BLOCK_OF_STATE_PROOFS = 5
SIGNED_BLOCK_TIME_NS = 1786398539_392281000
LEDGER_ID = "2d342330e766b2bee6d8c147393aa697fc0f8c2d88e65260af9aee0be1bfb205"
ROSTER_NODE_IDS = (0, 1, 2, 3)
ENDORSERS = (1, 2, 3)
HINTS_SIGNED_WEIGHT = 3
HINTS_TOTAL_WEIGHT = 4
WRAPS_PROOF = "blocks/tss/genesis-wraps-proof.bin"


@dataclass(frozen=True)
class TssBlock:
    number: int
    root: bytes
    signature: bytes
    """The ``block_signature`` of its own signed proof, or of the signed proof inside its state proof."""
    paths: tuple[MerklePath, ...]
    """The state proof's paths (empty for a directly signed block)."""
    block: Any


def load_block(data: Path, number: int) -> TssBlock:
    block = block_pb2.Block.FromString(gzip.decompress((data / FOLDER / f"{number}.blk.gz").read_bytes()))
    proof = block.items[-1].block_proof
    paths: tuple[MerklePath, ...] = ()
    if proof.WhichOneof("proof") == "signed_block_proof":
        signature = bytes(proof.signed_block_proof.block_signature)
    else:
        signature = bytes(proof.block_state_proof.signed_block_proof.block_signature)
        paths = merkle_paths(proof.block_state_proof.paths)
    return TssBlock(number, bytes.fromhex(ROOTS[number]), signature, paths, block)


def signed_transactions(block: TssBlock) -> list[bytes]:
    return [
        bytes(item.signed_transaction) for item in block.block.items if item.WhichOneof("item") == "signed_transaction"
    ]


def ledger_publication(block_zero: TssBlock) -> LedgerPublication:
    publication = find_publication(signed_transactions(block_zero))
    assert publication is not None, "block 0 publishes no ledger id"
    return publication
