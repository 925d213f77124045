"""Errata fixtures: a generated stream with a missing and an inconsistent record, written to
disk (stream and errata objects), verified, and a store on the Bigtable emulator."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.gen.errata import ErrataScenario, generate_errata_scenario
from hedera_history.gen.writer import write_stream
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader
from hedera_history.store.schema import ensure_tables
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.integration.store.conftest import Store


@dataclass(frozen=True)
class WrittenScenario:
    scenario: ErrataScenario
    root: Path
    blocks: tuple[VerifiedBlock, ...]


@pytest.fixture(scope="module")
def written_scenario(tmp_path_factory: pytest.TempPathFactory) -> WrittenScenario:
    scenario = generate_errata_scenario()
    root = tmp_path_factory.mktemp("errata-scenario")
    write_stream(scenario.stream, root)
    for errata in scenario.errata:
        for path, data in errata.objects.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(data)
    book = parse_address_book(scenario.stream.address_book)
    results = list(verify_stream(find_local_periods(root), book))
    assert all(r.ok for r in results), [str(r.error) for r in results if not r.ok]
    return WrittenScenario(scenario, root, tuple(r.report.block for r in results if r.report.block is not None))


@pytest.fixture
def errata_store(bigtable_instance: Any, written_scenario: WrittenScenario) -> Iterator[Store]:
    council = ",".join(written_scenario.scenario.council_keys)
    settings = Settings.from_env({}, table_prefix="e_", errata_council_keys=council)
    ensure_tables(bigtable_instance, settings)
    gateway = gateway_for_instance(bigtable_instance, settings)
    yield Store(bigtable_instance, settings, gateway, BlockWriter(gateway, settings), HistoryReader(gateway))
    gateway.close()
