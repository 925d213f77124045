"""The backfill learns the ledger's trust from the settings through ``sources.ledger_trust``, as
ingest, ``load`` and ``verify`` do: the driver ships the configured publication's bytes, a task
pins the configured ledger id, and an unreadable publication is the same ConfigError everywhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.backfill.block_driver import tss_root
from hedera_history.backfill.block_plan import BlockJob, TssRoot
from hedera_history.backfill.block_task import tss_check
from hedera_history.config import Settings
from hedera_history.errors import ConfigError
from hedera_history.sources.ledger_trust import ledger_publication_of, ledger_tss_check

from tests.unit.store.fakes import MemoryGateway

LEDGER_ID = "ab" * 32


def _job(settings: Settings, tmp_path: Path) -> BlockJob:
    return BlockJob(settings, 1, None, source_url=str(tmp_path))


def test_the_driver_ships_the_configured_publication(tmp_path: Path) -> None:
    publication = tmp_path / "ledger-id-publication.bin"
    publication.write_bytes(b"the publication's bytes")
    settings = Settings(ledger_publication=str(publication))
    root = tss_root(_job(settings, tmp_path), [], MemoryGateway())
    assert root.ledger_publication == ledger_publication_of(settings) == b"the publication's bytes"


def test_a_task_pins_the_configured_ledger_id(tmp_path: Path) -> None:
    settings = Settings(ledger_id=LEDGER_ID)
    check = tss_check(_job(settings, tmp_path))
    assert check.ledger_id == ledger_tss_check(settings).ledger_id == bytes.fromhex(LEDGER_ID)
    assert tss_check(_job(Settings(), tmp_path)).ledger_id is None


def test_an_unreadable_publication_is_one_config_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.bin"
    settings = Settings(ledger_publication=str(missing))
    with pytest.raises(ConfigError) as from_the_stream:
        ledger_tss_check(settings)
    with pytest.raises(ConfigError) as from_the_backfill:
        tss_root(_job(settings, tmp_path), [], MemoryGateway())
    assert str(from_the_backfill.value) == str(from_the_stream.value)
    assert str(missing) in str(from_the_stream.value)


def test_without_a_publication_nothing_is_read(tmp_path: Path) -> None:
    assert ledger_publication_of(Settings()) is None
    assert tss_root(_job(Settings(), tmp_path), [], MemoryGateway()) == TssRoot()
