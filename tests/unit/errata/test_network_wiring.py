"""The network errata reach history on every path: the backfill, the stream's store function
(through its context) and the sweep, with the ``mainnet`` preset and only with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hedera_history.books.parse import parse_address_book
from hedera_history.config import Settings
from hedera_history.errata.network import mainnet_errata, network_errata_for
from hedera_history.errata.network_pass import NetworkErrataPass, network_errata_pass
from hedera_history.errata.read import errata_marker
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream, write_stream
from hedera_history.pipeline.runtime import build_store_context
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.store.schema import ERRATA_LOG, HISTORY_TABLES
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.stream import verify_stream

from tests.helpers.backfill import backfill_in_process, stream_job
from tests.unit.store.fakes import MemoryGateway

NS = 1_000_000_000
MAINNET = Settings(network="mainnet")
SEPT_17 = GeneratorConfig(periods=4, transactions=5, seed=7, start_time_ns=1_568_680_376 * NS, rotate_key=False)
"""2019-09-17T00:32:56Z on: 27 mainnet transactions are missing from the next 4 s."""


@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory) -> tuple[GeneratedStream, Path]:
    generated = generate_stream(SEPT_17)
    folder = tmp_path_factory.mktemp("sept-17")
    write_stream(generated, folder)
    return generated, folder


def _expected(generated: GeneratedStream) -> list[int]:
    first = generated.periods[0].consensus_start_ns
    last = generated.periods[-1].consensus_end_ns
    return [e.time_of_error for e in mainnet_errata().missing if first <= e.time_of_error <= last]


def _tables(gateway: MemoryGateway) -> dict[str, Any]:
    return {t: rows for t, rows in gateway.snapshot().items() if t in (*HISTORY_TABLES, ERRATA_LOG)}


def test_only_the_mainnet_preset_brings_errata() -> None:
    assert network_errata_for(MAINNET) is mainnet_errata()
    assert network_errata_for(Settings()) is None and network_errata_for(Settings(network="testnet")) is None
    assert network_errata_pass(MemoryGateway(), Settings()) is None
    assert build_store_context(MAINNET, MemoryGateway()).network_errata is not None  # type: ignore[arg-type]
    assert build_store_context(Settings(), MemoryGateway()).network_errata is None  # type: ignore[arg-type]


def test_backfill_and_stream_insert_the_missing_transactions_alike(stream: tuple[GeneratedStream, Path]) -> None:
    generated, folder = stream
    expected = _expected(generated)
    assert len(expected) >= 20

    backfilled = MemoryGateway()
    report = backfill_in_process(stream_job(generated, folder, settings=MAINNET, partitions=2), backfilled)
    assert report.ok, report.summary_lines()
    for ns in expected:
        marker = errata_marker(backfilled, ns)
        assert marker is not None and marker.kind.value == "INSERT", ns

    # the stream's path: blocks written one by one, the pass run after each (as the store function does)
    streamed = MemoryGateway()
    results = verify_stream(find_local_periods(folder), parse_address_book(generated.address_book))
    for result in results:
        assert result.report.block is not None
        BlockWriter(streamed, MAINNET).write_blocks([result.report.block])
        NetworkErrataPass(streamed, MAINNET, mainnet_errata()).run()
    assert _history_and_errata(streamed) == _history_and_errata(backfilled)


def _history_and_errata(gateway: MemoryGateway) -> dict[str, Any]:
    tables = _tables(gateway)
    tables.get(ERRATA_LOG, {}).pop(b"p/network/mainnet", None)  # the stream's progress; the backfill keeps none
    return tables


def test_the_errata_cli_shows_plans_and_applies(
    stream: tuple[GeneratedStream, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner  # noqa: PLC0415
    from hedera_history.cli.main import cli  # noqa: PLC0415
    from hedera_history.store import bigtable_client  # noqa: PLC0415

    generated, folder = stream
    gateway = MemoryGateway()
    results = verify_stream(find_local_periods(folder), parse_address_book(generated.address_book))
    BlockWriter(gateway, MAINNET).write_blocks(r.report.block for r in results if r.report.block)
    monkeypatch.setattr(bigtable_client, "open_gateway", lambda settings: gateway)
    expected = _expected(generated)

    shown = CliRunner().invoke(cli, ["errata", "network", "--network", "mainnet"], catch_exceptions=False)
    assert shown.exit_code == 0 and "113 missing transaction(s)" in shown.output

    dry = CliRunner().invoke(cli, ["errata", "network", "--network", "mainnet", "--dry-run"], catch_exceptions=False)
    assert dry.exit_code == 0, dry.output
    assert f"{len(expected)} errata would be applied" in dry.output
    assert all(errata_marker(gateway, ns) is None for ns in expected)

    applied = CliRunner().invoke(
        cli, ["errata", "network", "--network", "mainnet", "--apply", "--blocks", "0-3"], catch_exceptions=False
    )
    assert applied.exit_code == 0, applied.output
    assert f"4 block(s) visited, {len(expected)} errata applied" in applied.output
    assert all(errata_marker(gateway, ns) is not None for ns in expected)
