"""Chain links between consecutive record files, and block numbering.

- V5 and V6 (also V5 -> V6): the start running hash equals the previous file's end running hash.
- V1 and V2 (also V1 -> V2): the previous file hash equals the previous file's hash.
- V2 -> V5: the first V5 file starts a new running-hash chain; nothing in it names the last V2
  file, so the link cannot be verified *by design*. It is reported as ``UNVERIFIABLE``, never as
  broken; the V5 file's own signatures are what vouch for it.
- A version going back (e.g. V6 then V5) is broken.

Block numbers: V6 files carry their own; earlier files are the previous block's number + 1, and
the first is the configured ``start_block``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from hedera_history.errors import BrokenChainError
from hedera_history.formats.model import RecordFile


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
    if previous_version <= 2 < current.version:
        return ChainLink(
            previous_name,
            current.name,
            LinkStatus.UNVERIFIABLE,
            f"V{previous_version} -> V{current.version}: the running-hash chain starts anew, no common hash",
        )
    found = current.previous_hash
    if found != expected:
        what = "start running hash" if current.version >= 5 else "previous file hash"
        raise BrokenChainError(
            f"{what}: expected {expected.hex()} (the end of {previous_name}), got {found.hex()}",
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
