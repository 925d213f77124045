"""Contract logs and every contract result through the ``query`` function on the Bigtable emulator:
a generated stream whose calls emit logs (``GeneratorConfig.contract_logs``) written once, each
answer followed page by page and compared with the generator's ground truth."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.config_and_output import GeneratedStream

from tests.fixtures.emulators import unique_name
from tests.integration.query_function import query_client, write_verified_blocks

PREFIX = "l_"
CONFIG = GeneratorConfig(nodes=4, periods=4, transactions=60, seed=3, contract_logs=True)
RESULT_TYPES = ("contractCall", "contractCreateInstance")


def ts(ns: int) -> str:
    return f"{ns // 10**9}.{ns % 10**9:09d}"


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(CONFIG)


@pytest.fixture(scope="module")
def client(bigtable_client: Any, stream: GeneratedStream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from google.api_core.exceptions import NotFound  # noqa: PLC0415

    folder: Path = tmp_path_factory.mktemp("contract-logs")
    write_stream(stream, folder)
    instance = bigtable_client.instance(unique_name("logs"))
    settings = Settings.from_env({}, table_prefix=PREFIX)
    blocks = write_verified_blocks(instance, settings, folder / "recordstreams", stream.address_book)
    assert len(blocks) == CONFIG.periods
    with query_client(instance.instance_id, PREFIX) as client:
        yield client
    for table in instance.list_tables():
        with contextlib.suppress(NotFound):
            table.delete()


def follow(client: Any, url: str, field: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.data
        page = response.get_json()
        found.extend(page[field])
        link = page["links"]["next"]
        url = "" if link is None else urlsplit(link).path + "?" + urlsplit(link).query
    return found


def truth_logs(stream: GeneratedStream) -> list[tuple[str, int, str, list[str], str]]:
    """(timestamp, index, contract, topics, data) of every log the generator wrote, oldest first."""
    return [
        (ts(t["consensus_ns"]), i, log["contract"], ["0x" + topic for topic in log["topics"]], "0x" + log["data"])
        for t in stream.truth["transactions"]
        for i, log in enumerate(t.get("logs", []))
    ]


def shown(log: dict[str, Any]) -> tuple[str, int, str, list[str], str]:
    return log["timestamp"], log["index"], log["contract_id"], log["topics"], log["data"]


def test_every_log_oldest_and_newest_first(client: Any, stream: GeneratedStream) -> None:
    expected = truth_logs(stream)
    assert len(expected) > 20
    ascending = follow(client, "/api/v1/contracts/results/logs?order=asc&limit=7", "logs")
    assert [shown(log) for log in ascending] == expected
    descending = follow(client, "/api/v1/contracts/results/logs?limit=9", "logs")
    assert [shown(log) for log in descending] == expected[::-1]
    by_time = {t["consensus_ns"]: t for t in stream.truth["transactions"]}
    for log in ascending:
        tx = by_time[int(log["timestamp"].replace(".", ""))]
        assert log["block_number"] == tx["block_number"]
        assert log["transaction_hash"] == "0x" + tx["hash"][:64]
        assert log["root_contract_id"] == tx["contract"]


def test_each_contracts_logs(client: Any, stream: GeneratedStream) -> None:
    expected = truth_logs(stream)
    emitters = sorted({log[2] for log in expected})
    assert len(emitters) > 1
    for contract in emitters:
        found = follow(client, f"/api/v1/contracts/{contract}/results/logs?limit=4", "logs")
        assert [shown(log) for log in found] == [log for log in expected if log[2] == contract][::-1]


def test_topic_filters_within_a_timestamp_range(client: Any, stream: GeneratedStream) -> None:
    expected = truth_logs(stream)
    low, high = expected[0][0], expected[-1][0]
    transfer = expected[0][3][0]
    url = f"/api/v1/contracts/results/logs?order=asc&limit=5&topic0={transfer}&timestamp=gte:{low}&timestamp=lte:{high}"
    found = follow(client, url, "logs")
    assert [shown(log) for log in found] == [log for log in expected if log[3][0] == transfer]
    assert client.get(f"/api/v1/contracts/results/logs?topic0={transfer}").status_code == 400


def test_every_contract_result(client: Any, stream: GeneratedStream) -> None:
    results = [t for t in stream.truth["transactions"] if t["type"] in RESULT_TYPES]
    top = [t for t in results if t["transaction_id"]["nonce"] == 0]
    found = follow(client, "/api/v1/contracts/results?limit=6", "results")
    assert [r["timestamp"] for r in found] == [ts(t["consensus_ns"]) for t in reversed(top)]
    assert [r["contract_id"] for r in found] == [t["contract"] for t in reversed(top)]
    internal = follow(client, "/api/v1/contracts/results?internal=true&order=asc&limit=8", "results")
    assert [r["timestamp"] for r in internal] == [ts(t["consensus_ns"]) for t in results]
    block = results[0]["block_number"]
    one_block = follow(client, f"/api/v1/contracts/results?internal=true&order=asc&block.number={block}", "results")
    assert [r["timestamp"] for r in one_block] == [ts(t["consensus_ns"]) for t in results if t["block_number"] == block]
