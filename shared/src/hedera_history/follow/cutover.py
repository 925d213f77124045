"""When a follower reading record periods asks for blocks, and when a block found switches it.

The network's presets carry the last HAPI release that writes record files (``Cutover``: 0.79 on
mainnet and testnet; the reference mirror node's ``hiero.mirror.importer.block.cutover.hapiVersion``);
the cutover comes with the release after it. Two versions then decide, as the reference's
``CutoverServiceImpl`` reads its last record file's HAPI version:

- the **last record file's** (its block's ``hapi_version``): at the pinned release or later, the next
  record file may never come, so the follower asks for the next block every tick, without waiting
  for a quiet interval; below it the network has a release to go before it cuts over, so a quiet
  network (a freeze for an upgrade, an outage) asks only after the quiet interval, as before;
- the **block found's** (its ``BlockHeader.hapi_proto_version``): a block of a later release than
  the pinned one is the block stream after the cutover and switches the follower at once. A block of
  the pinned release or an earlier one is a record file wrapped into a block (HIP-1427), which a
  block bucket may hold beside the record files still being written: it switches the follower only
  when the record files stopped (the quiet interval) at the pinned release, never below it. A block
  that does not parse says nothing of its release and is taken as one of the pinned release: it
  switches a follower only there, once quiet (its ingest then rejects it and asks the other
  sources), never one whose record files are still coming or below the pinned release.

Without a pinned version (a custom network) or without the last record file's version, the quiet
interval and the block's existence decide, as they did before versions were read.
"""

from __future__ import annotations

from dataclasses import dataclass

from hedera_history.errors import ConfigError

HapiVersion = tuple[int, int, int]
NO_VERSION = ("", "none")


def parse_hapi_version(text: str) -> HapiVersion | None:
    """``major.minor.patch`` (``0.79`` is ``0.79.0``); None for empty or ``none``."""
    cleaned = text.strip().lower()
    if cleaned in NO_VERSION:
        return None
    parts = cleaned.split(".")
    if not 1 <= len(parts) <= 3 or not all(part.isdigit() for part in parts):
        raise ConfigError(f"HEDERA_HISTORY_FOLLOW_CUTOVER_HAPI_VERSION {text!r} is not major.minor.patch or none")
    numbers = [int(part) for part in parts] + [0] * (3 - len(parts))
    return numbers[0], numbers[1], numbers[2]


@dataclass(frozen=True, slots=True)
class CutoverRule:
    last_record_release: HapiVersion | None
    """The last HAPI version that writes record files; None: not known for this network."""

    def ask_now(self, record_version: HapiVersion | None, *, quiet: bool) -> bool:
        """Whether to ask the block sources for the block after the last record file now."""
        if self.last_record_release is None or record_version is None:
            return quiet
        return quiet or record_version >= self.last_record_release

    def switch(
        self, record_version: HapiVersion | None, block_version: HapiVersion | None, *, quiet: bool
    ) -> str | None:
        """None when the block found switches the follower to blocks, else why it does not
        (``block_version`` None: the block does not parse)."""
        pinned = self.last_record_release
        if pinned is None or record_version is None or (block_version is not None and block_version > pinned):
            return None
        block = "does not parse" if block_version is None else f"is HAPI {_text(block_version)}"
        if record_version < pinned:
            return (
                f"the last record file is HAPI {_text(record_version)}, before the last release writing "
                f"record files ({_text(pinned)}), and the block {block}"
            )
        if not quiet:
            return f"record files may still come: the block {block}, not after {_text(pinned)}"
        return None


def _text(version: HapiVersion) -> str:
    return ".".join(str(part) for part in version)


__all__ = ["CutoverRule", "HapiVersion", "parse_hapi_version"]
