"""A verified block file as the :class:`~hedera_history.block.VerifiedBlock` the row builder reads.

- A wrapped record block (HIP-1427) is its record file: the rebuilt file, its sidecars, the RSA
  signatures that agreed (by node account, as a signature file names them; a block carries no
  metadata signatures) and their stake. Its rows are the rows of the record file it wraps, and
  one more cell: the block's envelope (the block without the record file contents the items row
  keeps, ``formats.wrapped_envelope``), so the original block is retrievable.
- A native block becomes the record file its items give
  (:func:`~hedera_history.formats.block_record_file.native_block_files`), named by its number as
  the block node names block files (``0000000000000000007.blk``, whatever the copy read was
  compressed with), with its own bytes and the proof that verified it
  (:class:`~hedera_history.block.NativeBlock`); the consensus summary holds the TSS signers'
  weight against the key's total.

Only a block whose report verified becomes one, with one exception the caller chooses: a pre-TSS
placeholder proof (SHA-384 of the block root, HAPI 0.73 test networks), which proves nothing, may be
accepted as *unsigned* when nothing else about the block failed. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import replace

from hedera_history.block import ConsensusSummary, NativeBlock, VerifiedBlock
from hedera_history.errors import UnverifiedProofError, VerificationError
from hedera_history.formats.block_record_file import native_block_files
from hedera_history.formats.names import block_file_path
from hedera_history.formats.rebuild import signed_file_bytes
from hedera_history.formats.record_v6 import VERSION_PREFIX
from hedera_history.formats.wrapped_envelope import block_envelope
from hedera_history.verify.blocks import BlockReport

WRAPPED_V6 = 6


def verified_block(report: BlockReport, *, accept_unsigned: bool = False) -> VerifiedBlock:
    """The block of ``report``; its typed error when it did not verify (``accept_unsigned``: a
    placeholder proof alone does not count against it)."""
    block, hashes, check = report.block, report.hashes, report.signature
    if report.error is not None and not (accept_unsigned and is_unsigned_placeholder(report)):
        raise report.error
    if block is None or hashes is None or check is None:
        raise VerificationError(f"block file {report.name} was not checked", file=report.name)
    wrapped = report.wrapped
    if wrapped is not None:
        record = wrapped.record
        summary = ConsensusSummary(record.file_hash, None, check.stake, check.total_stake)
        stored = signed_file_bytes(record) if wrapped.version == WRAPPED_V6 else None
        envelope = block_envelope(block.content(), stored[len(VERSION_PREFIX) :] if stored else None, block.name)
        return VerifiedBlock(
            record, block.number, wrapped.sidecars, check.signatures, summary, wrapped_envelope=envelope
        )
    record, sidecars = native_block_files(block, hashes.root)
    proof = next(p for p in block.proofs if p.kind == check.proof)
    native = NativeBlock(block.content(), proof.data, signed=check.verified)
    return VerifiedBlock(
        replace(record, name=block_file_path(block.number, compression="", bucket=False)),
        block.number,
        sidecars,
        (),
        ConsensusSummary(hashes.root, None, check.stake, check.total_stake),
        native,
    )


def is_unsigned_placeholder(report: BlockReport) -> bool:
    """The block's only failure is a pre-TSS placeholder proof (its root hashed, nothing signed)."""
    return (
        isinstance(report.error, UnverifiedProofError)
        and report.signature is not None
        and report.signature.placeholder
        and report.wrapped is None
    )
