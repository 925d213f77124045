"""Block-stream proofs from native block files on disk (``proof get --from-dir``): the block holding
the transaction and its chain's block 0 (the ledger's publication) are read and handed to
``proofs.native``. Blocks are not verified here: the proof is, by whoever checks it."""

from __future__ import annotations

from pathlib import Path

from hedera_history.errors import ObjectNotFoundError
from hedera_history.formats.block import BlockFile, parse_block_file
from hedera_history.proofs.codec import encode_bundle
from hedera_history.proofs.native import native_transaction_bundle
from hedera_history.proofs.transaction_ids import TransactionQuery
from hedera_history.sources.local_blocks import LocalBlock, find_block_runs


class NativeDirectoryProver:
    """Proofs of transactions in the native blocks under ``directory`` (one chain per folder)."""

    def __init__(self, directory: Path, *, max_decompressed: int | None = None) -> None:
        self.max_decompressed = max_decompressed
        self.runs = find_block_runs(directory, max_decompressed=max_decompressed)

    def has_native_blocks(self) -> bool:
        return any(not self._read(block).wrapped for run in self.runs for block in run[:1])

    def transaction_proof(self, query: TransactionQuery) -> bytes:
        """The canonical bundle of the transaction ``query`` names; ObjectNotFoundError when no
        native block here holds it."""
        for run in self.runs:
            zero = next((self._read(block) for block in run if block.number in (0, None)), None)
            for local in run:
                block = self._read(local)
                if block.wrapped:
                    continue
                try:
                    bundle = native_transaction_bundle(
                        block, query, block_zero=zero if zero and zero.number == 0 else None
                    )
                except ObjectNotFoundError:
                    continue
                return encode_bundle(bundle)
        raise ObjectNotFoundError(f"transaction {query}: in no native block found here")

    def _read(self, block: LocalBlock) -> BlockFile:
        return parse_block_file(block.read(), block.name, max_decompressed=self.max_decompressed)
