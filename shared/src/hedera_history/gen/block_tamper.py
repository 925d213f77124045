"""Damaged block files, for the tests of what must refuse them: :func:`tamper_block`.

Like :func:`~hedera_history.gen.tamper.tamper`, it returns a new :class:`GeneratedStream` whose
``objects`` hold the damaged file (re-compressed as the network writes it), the ground truth left
as the honest stream's.
"""

from __future__ import annotations

from dataclasses import replace
from enum import Enum

from hedera_history.errors import GeneratorError
from hedera_history.formats.block import parse_block_file, serialize_block
from hedera_history.formats.block_protos import BlockItem
from hedera_history.gen.blocks import zstd_compress
from hedera_history.gen.config_and_output import GeneratedStream

_HINTS_SIGNATURE_AT = 1096
"""Where the hinTS signature starts in a TSS ``block_signature`` (after the verification key)."""


class BlockTamper(Enum):
    TRANSACTION = "transaction"
    """Charge the first transaction one tinybar more (its result, or a wrapped file's record): the
    block's root changes, so its proof no longer signs it and the next block's link breaks; a
    wrapped file's running hash no longer holds."""
    SIGNATURE = "signature"
    """Flip a bit of the proof's signature (the hinTS signature, or the first node's RSA signature)."""


def tamper_block(
    stream: GeneratedStream, number: int, target: BlockTamper = BlockTamper.TRANSACTION
) -> GeneratedStream:
    """The stream with block file ``number`` damaged as ``target`` says."""
    path = stream.block(number).path
    block = parse_block_file(stream.objects[path], path)
    items = [BlockItem.FromString(item.data) for item in block.items]
    if target is BlockTamper.TRANSACTION:
        _charge_more(items, path)
    else:
        _flip_signature(items[-1], path)
    damaged = zstd_compress(serialize_block(item.SerializeToString() for item in items))
    return replace(stream, objects={**stream.objects, path: damaged})


def _charge_more(items: list[BlockItem], path: str) -> None:
    for item in items:
        case = item.WhichOneof("item")
        if case == "transaction_result":
            item.transaction_result.transaction_fee_charged += 1
            return
        if case == "record_file":
            item.record_file.record_file_contents.record_stream_items[0].record.transactionFee += 1
            return
    raise GeneratorError("no transaction to tamper with", file=path)


def _flip_signature(item: BlockItem, path: str) -> None:
    proof = item.block_proof
    case = proof.WhichOneof("proof")
    if case == "signed_record_file_proof":
        signature = proof.signed_record_file_proof.record_file_signatures[0]
        signature.signatures_bytes = _flipped(signature.signatures_bytes, 0)
    elif case == "signed_block_proof":
        proof.signed_block_proof.block_signature = _flipped(proof.signed_block_proof.block_signature)
    elif case == "block_state_proof":
        signed = proof.block_state_proof.signed_block_proof
        signed.block_signature = _flipped(signed.block_signature)
    else:
        raise GeneratorError(f"no signature in a proof of kind {case}", file=path)


def _flipped(data: bytes, at: int = _HINTS_SIGNATURE_AT + 100) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :]
