"""Back to record files when blocks stall after the switch (the reference mirror node's ``AUTO``).

The reference's ``CutoverServiceImpl``, while the last file it stored is a record file, alternates
between reading record files and blocks each time ``cutoverThreshold`` (8 s) passes without a file
verified; once a block is stored it reads blocks for good. The follower switches to blocks only
when the block after the last record file is there (``follow.cutover``), but that block may then
never be stored (it fails its proof, a stray object under the name) while the network goes on
writing record files. So after the switch, when no block has advanced for
``follow_block_fallback_seconds``, it looks for proof that record files go on, and goes back to
them when it finds it:

- the last block stored (``next_block - 1``) is a **record file** and no block is stored after it: a
  block-stream block stored after the last record file (a wrapped or a native one) means the stream
  is blocks now, and the follower never goes back (logged once, ``follower stays on blocks``);
- a **record file of a later period** is in a node folder (each folder of the book in force listed
  after that period's names, up to its first record file: one list call and one read, usually);
- its **previous hash** (V5 and V6: its start running hash) is the stored record file's end running
  hash: it is the next file of the same chain, not some other network's or a stale copy (one that
  is not: the next folder's first record file is looked at).

Then the follower reads record periods again from its position (every period up to the last record
file's is finished; nothing after it was handed off), logs ``follower back to record files``
(WARNING) and stores the position without ``next_block``, so a restart resumes on record files too.
Nothing is stored twice and nothing is skipped: no block was stored after the record file, and the
next record period is published as that block number. It switches to blocks again by the same rule
as the first time, the block it waited on asked again only after a quiet interval.

Each look costs one list call per folder listed (usually one) and one read; it is made once per
interval while blocks stall.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from hedera_history.config import Settings
from hedera_history.errors import FileNameError, FormatError, HistoryError
from hedera_history.follow.position import AFTER_PERIOD
from hedera_history.formats.block_record_file import BLOCK_FILE_VERSION
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.names import StreamFileKind, parse_stream_file_name
from hedera_history.logs import event
from hedera_history.sources.base import ObjectSource
from hedera_history.store.decode import StoredBlock
from hedera_history.store.reader import HistoryReader

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RecordsGoOn:
    """Why the follower goes back: the record file found after the last one stored."""

    block: int
    """The block the follower waited for (the record period after ``after_block`` becomes it)."""
    after_block: int
    """The last record file stored."""
    record_file: str
    waited_seconds: float


class RecordFallback:
    """Decides, tick by tick after the switch, whether the follower goes back to record files."""

    def __init__(self, reader: HistoryReader, source: ObjectSource, settings: Settings, *, now: float) -> None:
        self.reader = reader
        self.source = source
        self.settings = settings
        self._waiting: int | None = None
        """The block waited for since ``_since``."""
        self._since = now
        self._next_look = now
        self._refused: int | None = None
        """The block for which ``follower stays on blocks`` was logged."""
        self._unlinked: str | None = None
        """The last record file found that does not link (logged once)."""

    def check(self, next_block: int, folders: Sequence[str], now: float) -> RecordsGoOn | None:
        """Whether to go back to record files now (see the module); None: stay on blocks."""
        interval = self.settings.follow_block_fallback_seconds
        if next_block != self._waiting:
            self._waiting, self._since, self._next_look = next_block, now, now + interval
            return None
        if interval <= 0 or now < self._next_look:
            return None
        self._next_look = now + interval
        try:
            last = self._last_record_file(next_block)
            if last is None:
                return None
            name = self._linked_record_file(last, folders)
            if name is None:
                return None
        except HistoryError as e:
            event(logger, "follower record fallback failed", logging.WARNING, block=next_block, error=str(e))
            return None
        return RecordsGoOn(next_block, last.number, name, round(now - self._since, 1))

    def _last_record_file(self, next_block: int) -> StoredBlock | None:
        """The stored block before ``next_block`` when it is a record file and nothing is stored
        after it; None (logged once per block) when blocks were stored after the last record file."""
        last = self.reader.get_block(next_block - 1) if next_block > 0 else None
        if last is None:
            return None
        if last.version == BLOCK_FILE_VERSION or last.wrapped_envelope is not None:
            self._stay(next_block, f"block {last.number}, after the last record file, is stored: the stream is blocks")
            return None
        if self.reader.complete_blocks([next_block]):
            self._stay(next_block, f"block {next_block} is stored after the last record file {last.number}")
            return None
        return last

    def _stay(self, block: int, reason: str) -> None:
        if self._refused != block:
            self._refused = block
            event(logger, "follower stays on blocks", block=block, reason=reason)

    def _linked_record_file(self, last: StoredBlock, folders: Sequence[str]) -> str | None:
        """The first record file of a period after ``last``'s in a folder of ``folders`` (in order)
        that names ``last``'s end as its predecessor's; each folder's first one looked at."""
        try:
            period_key = parse_stream_file_name(last.name.rsplit("/", 1)[-1]).period_key
        except FileNameError:
            return None
        for folder in folders:
            name = next(
                (
                    info.name
                    for info in self.source.list(folder, delimiter="/", start_after=folder + period_key + AFTER_PERIOD)
                    if _is_record_file(info.name.removeprefix(folder))
                ),
                None,
            )
            if name is not None and self._links(last, name):
                return name
        return None

    def _links(self, last: StoredBlock, name: str) -> bool:
        """Whether the record file ``name`` names ``last``'s end as its predecessor's."""
        data = self.source.read(name)
        try:
            record = parse_record_file(data, name, max_decompressed=self.settings.max_decompressed_bytes)
        except FormatError as e:
            self._unlinked_once(name, f"does not parse: {e}")
            return False
        if record.previous_hash == last.following_hash:
            return True
        self._unlinked_once(name, f"its previous hash is not block {last.number}'s")
        return False

    def _unlinked_once(self, name: str, reason: str) -> None:
        if self._unlinked != name:
            self._unlinked = name
            event(logger, "follower stays on blocks", record_file=name, reason=f"the record file {reason}")


def _is_record_file(relative: str) -> bool:
    try:
        return parse_stream_file_name(relative).kind is StreamFileKind.RECORD
    except FileNameError:
        return False


def went_back(found: RecordsGoOn) -> None:
    """Log the return to record files (WARNING: a switch that did not hold)."""
    event(
        logger,
        "follower back to record files",
        logging.WARNING,
        block=found.block,
        after_block=found.after_block,
        record_file=found.record_file,
        waited_seconds=found.waited_seconds,
    )


__all__ = ["RecordFallback", "RecordsGoOn", "went_back"]
