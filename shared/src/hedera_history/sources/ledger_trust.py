"""The ledger native blocks are checked against, as configured: ``HEDERA_HISTORY_LEDGER_ID`` pins it,
``HEDERA_HISTORY_LEDGER_PUBLICATION`` (block 0's ledger id publication) gives its roster to blocks
read without block 0 before them (ingest and the follower read one block at a time; a network that
cuts over has a record file as block 0; a backfill's partitions start anywhere).

The one reading of both settings for ingest, ``load``, ``verify`` and the backfill, whose driver ships
the publication's bytes to its tasks (``backfill.block_plan.TssRoot``); kept apart from
``pipeline.block_load`` so that the ingest function does not import what loading needs.
"""

from __future__ import annotations

from pathlib import Path

from hedera_history.config import Settings
from hedera_history.errors import ConfigError
from hedera_history.verify.block_tss import LedgerTssCheck, ledger_check


def ledger_id_of(settings: Settings) -> bytes | None:
    """The ledger id configured (``HEDERA_HISTORY_LEDGER_ID``, or the network preset's), if any."""
    return bytes.fromhex(settings.ledger_id) if settings.ledger_id else None


def ledger_publication_of(settings: Settings) -> bytes | None:
    """The ledger id publication configured (``HEDERA_HISTORY_LEDGER_PUBLICATION``, a file), read;
    None when none is. ConfigError when the file cannot be read."""
    if not settings.ledger_publication:
        return None
    try:
        return Path(settings.ledger_publication).read_bytes()
    except OSError as e:
        raise ConfigError(f"ledger publication {settings.ledger_publication}: {e}") from e


def ledger_tss_check(settings: Settings) -> LedgerTssCheck:
    """The TSS check for the configured ledger: trusting the roster of ``ledger_publication`` when
    it is set, else block 0's own when the blocks read begin there; pinned by the ledger id."""
    pinned = ledger_id_of(settings)
    publication = ledger_publication_of(settings)
    return LedgerTssCheck(pinned) if publication is None else ledger_check(publication, pinned)


__all__ = ["ledger_id_of", "ledger_publication_of", "ledger_tss_check"]
