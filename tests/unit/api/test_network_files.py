"""/network/exchangerate, /network/fees and /network/stake on a generated stream with updates of
0.0.112 and 0.0.111 and two NodeStakeUpdates, in memory and on the Bigtable emulator: each answer,
now and as of times between the updates, is the content the generator wrote (the fee schedule
rebuilt from its update and append; the newest stake update), checked against the reference's
OpenAPI; without any, a 404."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from hedera_history import hapi
from hedera_history.api import handle
from hedera_history.api.render import timestamp
from hedera_history.block import VerifiedBlock
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter

from tests.fixtures.emulators import unique_name
from tests.integration.api.reference_contract import ReferenceContract, load_reference_document
from tests.integration.query_function import written_store
from tests.unit.api.topic_world import verified_blocks
from tests.unit.store.fakes import MemoryGateway

STAKES = ((10 * 10**8, 20 * 10**8, 30 * 10**8, 40 * 10**8), (11 * 10**8, 21 * 10**8, 31 * 10**8, 41 * 10**8))
CONFIG = GeneratorConfig(
    nodes=4,
    periods=8,
    transactions=40,
    seed=4,
    network_files=True,
    rotate_key=False,
    stake_updates={2: STAKES[0], 5: STAKES[1]},
)
ExchangeRateSet: Any = type(hapi.TransactionReceipt().exchangeRate)


@pytest.fixture(scope="module", params=["memory", pytest.param("emulator", marks=pytest.mark.emulator)])
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, list[Any]]]:
    """The stream's blocks in memory, and on the Bigtable emulator."""
    stream = generate_stream(CONFIG)
    blocks = verified_blocks(stream, tmp_path_factory.mktemp("network-files"))
    updates = [t for t in stream.truth["transactions"] if "system_file" in t or t["type"] == "node_stake_update"]
    contract = ReferenceContract(load_reference_document())
    with _store(request, blocks) as gateway:
        reader = HistoryReader(gateway)

        def get(route: str, query: dict[str, list[str]] | None = None, status: int = 200) -> Any:
            response = handle(lambda: reader, "GET", route, query or {}, b"")
            assert response.status == status, (route, query, response.body)
            contract.validate(route, status, response.body)
            return response.body

        yield get, updates


@contextmanager
def _store(request: pytest.FixtureRequest, blocks: Sequence[VerifiedBlock]) -> Iterator[Any]:
    if request.param == "memory":
        memory = MemoryGateway()
        assert all(r.complete for r in BlockWriter(memory, Settings()).write_blocks(list(blocks)))
        yield memory
        return
    instance = request.getfixturevalue("bigtable_client").instance(unique_name("network"))
    with written_store(instance, Settings.from_env({}, table_prefix="n_"), blocks) as gateway:
        yield gateway


def rates_of(truth: dict[str, Any]) -> Any:
    return ExchangeRateSet.FromString(bytes.fromhex(truth["system_file"]["contents"]))


def test_the_exchange_rate_as_of_each_update(world: tuple[Any, list[dict[str, Any]]]) -> None:
    get, updates = world
    rate_updates = [t for t in updates if t.get("system_file", {}).get("file") == "0.0.112"]
    assert len(rate_updates) >= 2
    first = rate_updates[0]["consensus_ns"]
    get("/api/v1/network/exchangerate", {"timestamp": [f"lt:{timestamp(first)}"]}, 404)
    for update, following in zip(rate_updates, [*rate_updates[1:], None], strict=True):
        query = {} if following is None else {"timestamp": [timestamp(following["consensus_ns"] - 1)]}
        answer = get("/api/v1/network/exchangerate", query)
        rates = rates_of(update)
        assert answer["timestamp"] == timestamp(update["consensus_ns"])
        assert answer["current_rate"] == {
            "cent_equivalent": rates.currentRate.centEquiv,
            "expiration_time": rates.currentRate.expirationTime.seconds,
            "hbar_equivalent": rates.currentRate.hbarEquiv,
        }
        assert answer["next_rate"]["cent_equivalent"] == rates.nextRate.centEquiv


def test_the_fees_from_the_schedule_rebuilt_from_its_update_and_append(world: tuple[Any, list[dict[str, Any]]]) -> None:
    get, updates = world
    newest_fees = [t for t in updates if t.get("system_file", {}).get("file") == "0.0.111"][-2:]
    assert [t["type"] for t in newest_fees] == ["fileUpdate", "fileAppend"]
    content = b"".join(bytes.fromhex(t["system_file"]["contents"]) for t in newest_fees)
    schedules = hapi.basic_types.CurrentAndNextFeeSchedule.FromString(content)
    at_ns = newest_fees[-1]["consensus_ns"]
    newest_rate = [
        t for t in updates if t.get("system_file", {}).get("file") == "0.0.112" and t["consensus_ns"] <= at_ns
    ][-1]
    rates = rates_of(newest_rate)
    rate = rates.currentRate if at_ns <= rates.currentRate.expirationTime.seconds * 10**9 else rates.nextRate
    schedule = schedules.currentFeeSchedule
    gas = {
        hapi.basic_types.HederaFunctionality.Name(e.hederaFunctionality): e.fees[0].servicedata.gas
        for e in schedule.transactionFeeSchedule
    }
    expected = [
        {"gas": max(gas[name] * rate.hbarEquiv // (rate.centEquiv * 1000), 1), "transaction_type": name}
        for name in ("ContractCall", "ContractCreate", "EthereumTransaction")
    ]
    answer = get("/api/v1/network/fees", {"timestamp": [f"lte:{timestamp(at_ns)}"]})
    assert answer == {"fees": expected, "timestamp": timestamp(at_ns)}
    reverse = get("/api/v1/network/fees", {"timestamp": [f"lte:{timestamp(at_ns)}"], "order": ["desc"]})
    assert reverse["fees"] == list(reversed(expected))
    get("/api/v1/network/fees", {"timestamp": [f"lt:{timestamp(updates[0]['consensus_ns'])}"]}, 404)


def test_the_network_stake_is_the_newest_stake_update(world: tuple[Any, list[dict[str, Any]]]) -> None:
    get, updates = world
    newest = [t for t in updates if t["type"] == "node_stake_update"][-1]
    answer = get("/api/v1/network/stake")
    day_ns = 86_400 * 10**9
    period_start = newest["consensus_ns"] // day_ns * day_ns  # the generator ends the period at the day's end
    assert answer["stake_total"] == sum(STAKES[1])
    assert answer["staking_period"] == {"from": timestamp(period_start), "to": timestamp(period_start + day_ns)}
    assert (answer["staking_period_duration"], answer["staking_periods_stored"]) == (1440, 365)
    assert answer["node_reward_fee_fraction"] == 0.0


def test_no_stake_update_is_the_reference_404() -> None:
    response = handle(lambda: HistoryReader(MemoryGateway()), "GET", "/api/v1/network/stake", {}, b"")
    assert response.status == 404
    assert response.body == {
        "_status": {"messages": [{"message": "Not Found", "detail": "No network stake data found"}]}
    }
