"""A load refuses a block whose number the tables already hold complete with another block.

One block number holds one block, as ingest and the backfill hold it (``ConflictingBlockError``):
loading a second stream into tables that hold another one would otherwise overwrite the first
stream's cells block by block. The check comes before any of the block's rows (or the book changes
it carries) are written, and the load stops at the first conflict: the blocks after it would only
chain onto the refused one. A block stored with its own hash (the same stream loaded again) is
written again, the same cells.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from hedera_history.block import VerifiedBlock
from hedera_history.config import Settings
from hedera_history.errors import ConflictingBlockError
from hedera_history.store.duplicates import duplicate_part, parse_duplicate_blocks
from hedera_history.store.gateway import BigtableGateway
from hedera_history.store.reader import HistoryReader
from hedera_history.verify.blocks import conflicting_block

LOOKAHEAD = 256
"""Block numbers whose stored hashes one read fetches: a load's blocks come in ascending order."""


class ConflictGuard:
    """Admits the blocks a load may write; the first conflict it finds is kept in ``refused``."""

    def __init__(self, gateway: BigtableGateway, settings: Settings) -> None:
        self._reader = HistoryReader(gateway)
        self._duplicates = parse_duplicate_blocks(settings.duplicate_blocks)
        self._hashes: dict[int, bytes | None] = {}
        """The hash each number is stored (or admitted in this load) with; None: neither."""
        self.refused: ConflictingBlockError | None = None

    def admit(self, block: VerifiedBlock) -> bool:
        """True when ``block`` may be written: its number holds nothing yet, or this very block.
        Once a block is refused, none is admitted."""
        if self.refused is not None:
            return False
        number = block.block_number
        if duplicate_part(block.record, number, self._duplicates) is not None:
            return True  # the two files of a known duplicate block share their number by design
        stored = self._stored_hash(number)
        if stored is not None and stored != block.hash:
            self.refused = conflicting_block(number, stored, block.hash, file=block.record.name)
            return False
        self._hashes[number] = block.hash
        return True

    def admitted(self, blocks: Iterable[VerifiedBlock]) -> Iterator[VerifiedBlock]:
        """``blocks`` up to the first one refused."""
        for block in blocks:
            if not self.admit(block):
                return
            yield block

    def raise_refused(self) -> None:
        """The conflict found, raised (once the blocks before it are written)."""
        if self.refused is not None:
            raise self.refused

    def _stored_hash(self, number: int) -> bytes | None:
        if number not in self._hashes:
            wanted = [n for n in range(number, number + LOOKAHEAD) if n not in self._hashes]
            found = self._reader.shown_hashes(wanted)
            self._hashes.update({n: found.get(n) for n in wanted})
        return self._hashes[number]
