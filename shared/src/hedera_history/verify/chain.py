"""Chain links between consecutive record files, and block numbering.

- V5 and V6 (also V5 -> V6): the start running hash equals the previous file's end running hash.
- V1 and V2 (also V1 -> V2): the previous file hash equals the previous file's hash.
- V2 -> V5: the first V5 file's start running hash equals the last V2 file's *file hash*. That is
  how the network seeded the running-hash chain, and the reference mirror node requires it
  (``Downloader``: every file's previous hash must equal the last file's hash, across versions).
  A V5 file naming any other hash is broken, however well signed.
- A version going back (e.g. V6 then V5) is broken.

So one rule holds at every boundary: ``current.previous_hash == previous.hash``.
``LinkStatus.UNVERIFIABLE`` is left for links that cannot be checked because a period between the
two blocks failed (see ``verify.stream`` and ``backfill.boundaries``).

Block numbers: V6 files carry their own; earlier files are the previous block's number + 1, and
the first is the configured ``start_block``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from hedera_history.errors import BrokenChainError
from hedera_history.formats.parsed_files import RecordFile


class LinkStatus(Enum):
    OK = "ok"
    UNVERIFIABLE = "unverifiable"


@dataclass(frozen=True, slots=True)
class ChainLink:
    previous: str
    """The previous file's name (or ``"previous block"`` when only its hash is known)."""
    current: str
    status: LinkStatus
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.status is LinkStatus.OK


def check_link(
    previous: RecordFile | bytes,
    current: RecordFile,
    *,
    previous_version: int | None = None,
    previous_name: str = "previous block",
) -> ChainLink:
    """Check that ``current`` follows ``previous`` (a file, or the hash its successor must name).

    With a bare hash, ``previous_version`` says which era it comes from (default: the current
    file's). Raises BrokenChainError naming both files when the link is broken.
    """
    if isinstance(previous, RecordFile):
        previous_name, previous_version, expected = previous.name, previous.version, previous.hash
    else:
        expected = previous
        previous_version = current.version if previous_version is None else previous_version
    if current.version < previous_version:
        raise BrokenChainError(
            f"version goes back: {previous_name} is V{previous_version}, then V{current.version}",
            file=_both(previous_name, current.name),
        )
    found = current.previous_hash
    if found != expected:
        what = "start running hash" if current.version >= 5 else "previous file hash"
        end = "file hash" if previous_version <= 2 else "end running hash"
        raise BrokenChainError(
            f"{what}: expected {expected.hex()} (the {end} of {previous_name}), got {found.hex()}",
            file=_both(previous_name, current.name),
        )
    return ChainLink(previous_name, current.name, LinkStatus.OK)


def block_number_for(current: RecordFile, previous_number: int | None, start_block: int = 0) -> int:
    """The file's own block number (V6), else the previous number + 1, else ``start_block``."""
    if current.block_number is not None:
        return current.block_number
    return start_block if previous_number is None else previous_number + 1


def _both(previous: str, current: str) -> str:
    return f"{previous} -> {current}"
