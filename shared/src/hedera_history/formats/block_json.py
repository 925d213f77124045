"""A block file as a JSON-ready dict (``hedera-history inspect``): hex for hashes, decoded protobufs
for items, the root hash, and for a wrapped record block the record file it wraps."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import CorruptFileError, FormatError
from hedera_history.formats.block import BlockFile, BlockItem, ItemKind, ProofKind, parse_block_file, parse_message
from hedera_history.formats.block_hash import block_hashes
from hedera_history.formats.dispatch import record_to_dict, sidecar_to_dict
from hedera_history.formats.hashing import hex_or_none
from hedera_history.formats.wrapped_record import rebuild_wrapped_record

from hiero_sdk_python.hapi.block.stream import signed_record_file_proof_pb2  # isort: skip


def inspect_block(data: bytes, name: str, *, max_decompressed: int | None = None) -> dict[str, Any]:
    block = parse_block_file(data, name, max_decompressed=max_decompressed)
    shown = block_summary(block)
    try:
        hashes = block_hashes(block)
        shown["root_hash"], shown["layout"] = hashes.root.hex(), hashes.layout.value
    except FormatError as e:
        shown["root_hash"], shown["root_hash_error"] = None, str(e)
    shown["proofs"] = [
        {"kind": proof.kind, "block": proof.block, "size": len(proof.data), "proof": _message_dict(proof.message(name))}
        for proof in block.proofs
    ]
    shown["items"] = [_item_dict(item, name) for item in block.items]
    version = _record_version(block)
    if block.record_file is not None and version is not None:
        wrapped = rebuild_wrapped_record(block.record_file, version, name)
        shown["record_file"] = record_to_dict(wrapped.record)
        shown["sidecar_files"] = [sidecar_to_dict(sidecar) for sidecar in wrapped.sidecars]
        shown["amendments"] = len(wrapped.amendments)
    return shown


def block_summary(block: BlockFile) -> dict[str, Any]:
    """What a block's header and footer say, and its items counted by kind."""
    footer = block.footer
    return {
        "kind": "block",
        "name": block.name,
        "size": block.size,
        "number": block.number,
        "hapi_version": str(block.hapi_version),
        "software_version": str(block.software_version),
        "timestamp": block.timestamp_ns,
        "item_counts": block.item_counts(),
        "previous_root_hash": footer.previous_block_root_hash.hex(),
        "all_block_hashes_root": footer.root_hash_of_all_block_hashes_tree.hex(),
        "start_of_block_state_root_hash": hex_or_none(footer.start_of_block_state_root_hash or None),
        "proof": block.proofs[0].kind,
    }


def _record_version(block: BlockFile) -> int | None:
    for proof in block.proofs:
        if proof.field == ProofKind.SIGNED_RECORD_FILE_PROOF:
            message = parse_message(
                signed_record_file_proof_pb2.SignedRecordFileProof, proof.body, "signed_record_file_proof", block.name
            )
            return int(message.version)
    return None


def _item_dict(item: BlockItem, name: str) -> dict[str, Any]:
    shown: dict[str, Any] = {"kind": item.name, "size": len(item.data)}
    if item.kind == ItemKind.RECORD_FILE:
        return shown  # shown below as the record file it wraps
    try:
        message = item.message(name)
    except CorruptFileError as e:
        shown.update(raw=item.data.hex(), decodeError=e.reason)  # hashed as it stands, shown as it stands
        return shown
    if item.kind == ItemKind.SIGNED_TRANSACTION:
        shown["item"] = _signed_transaction_dict(item.payload)
    elif message.WhichOneof("item") is None:
        shown["raw"] = item.data.hex()  # a kind newer than these protobufs
    else:
        shown["item"] = _message_dict(getattr(message, message.WhichOneof("item")))
    return shown


def _signed_transaction_dict(data: bytes) -> dict[str, Any]:
    try:
        signed = hapi.SignedTransaction.FromString(data)
        shown = _message_dict(signed)
        shown["decodedBody"] = _message_dict(hapi.TransactionBody.FromString(signed.bodyBytes))
    except DecodeError as e:
        return {"raw": data.hex(), "decodeError": str(e)}
    return shown


def _message_dict(message: Any) -> dict[str, Any]:
    shown: dict[str, Any] = json_format.MessageToDict(message)
    return shown
