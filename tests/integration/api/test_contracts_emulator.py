"""Contract actions, state changes and newest-first blocks through the ``query`` function on the
Bigtable emulator: a generated stream with sidecars written once, answers compared with the ground
truth and with the sidecar records the generator wrote."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from hedera_history import hapi
from hedera_history.config import Settings
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.gen.config_and_output import GeneratedStream

from tests.fixtures.emulators import unique_name
from tests.integration.query_function import query_client, write_verified_blocks

PREFIX = "c_"


def ts(ns: int) -> str:
    return f"{ns // 10**9}.{ns % 10**9:09d}"


def word(data: bytes) -> str:
    return "0x" + data.rjust(32, b"\x00").hex()


@pytest.fixture(scope="module")
def client(bigtable_client: Any, generated_stream: GeneratedStream, generated_stream_dir: Path) -> Iterator[Any]:
    from google.api_core.exceptions import NotFound  # noqa: PLC0415

    instance = bigtable_client.instance(unique_name("api"))
    settings = Settings.from_env({}, table_prefix=PREFIX)
    periods = generated_stream_dir / "recordstreams"
    blocks = write_verified_blocks(instance, settings, periods, generated_stream.address_book)
    assert len(blocks) == len(generated_stream.truth["blocks"])
    with query_client(instance.instance_id, PREFIX) as client:
        yield client
    for table in instance.list_tables():
        with contextlib.suppress(NotFound):
            table.delete()


@pytest.fixture(scope="module")
def written_sidecars(generated_stream: GeneratedStream) -> dict[tuple[int, int], list[Any]]:
    """(consensus ns, sidecar type) -> the generator's sidecar records, in file order."""
    kinds = {"state_changes": SidecarType.CONTRACT_STATE_CHANGE, "actions": SidecarType.CONTRACT_ACTION}
    found: dict[tuple[int, int], list[Any]] = {}
    for period in generated_stream.periods:
        for sidecar in sorted(period.sidecars, key=lambda f: f.name.sidecar_id or 0):
            for record in hapi.SidecarFile.FromString(sidecar.data).sidecar_records:
                kind = kinds.get(record.WhichOneof("sidecar_records") or "")
                if kind is not None:
                    stamp = record.consensus_timestamp
                    found.setdefault((stamp.seconds * 10**9 + stamp.nanos, int(kind)), []).append(record)
    return found


def get(client: Any, path: str) -> Any:
    response = client.get(path)
    assert response.status_code == 200, response.data
    return response.get_json()


def contract_transactions(truth: dict[str, Any], kind: SidecarType) -> list[dict[str, Any]]:
    found = [t for t in truth["transactions"] if int(kind) in t["sidecar_types"]]
    assert found, f"the generated stream must hold {kind.name} sidecar records"
    return found


def test_actions_equal_the_written_sidecar_records(
    client: Any, generated_stream: GeneratedStream, written_sidecars: dict[tuple[int, int], list[Any]]
) -> None:
    for tx in contract_transactions(generated_stream.truth, SidecarType.CONTRACT_ACTION):
        body = get(client, f"/api/v1/contracts/results/{ts(tx['consensus_ns'])}/actions?limit=100")
        records = written_sidecars[(tx["consensus_ns"], SidecarType.CONTRACT_ACTION)]
        expected = [action for record in records for action in record.actions.contract_actions]
        actions = body["actions"]
        assert len(actions) == len(expected) and body["links"]["next"] is None
        top = actions[0]
        assert (top["caller"], top["caller_type"], top["call_depth"]) == (tx["payer"], "ACCOUNT", 0)
        assert (top["recipient"], top["recipient_type"]) == (tx["contract"], "CONTRACT")
        for index, (got, want) in enumerate(zip(actions, expected, strict=True)):
            assert got["index"] == index and got["timestamp"] == ts(tx["consensus_ns"])
            assert (got["gas"], got["gas_used"], got["value"]) == (want.gas, want.gas_used, want.value)
            assert got["input"] == "0x" + want.input.hex()
            assert (got["result_data"], got["result_data_type"]) == ("0x" + want.output.hex(), "OUTPUT")
            assert got["call_type"] == ("CREATE" if want.call_type == 2 else "CALL")
            assert got["call_depth"] == want.call_depth


def test_action_pages_have_no_gap_or_duplicate(client: Any, generated_stream: GeneratedStream) -> None:
    paged = 0
    for tx in contract_transactions(generated_stream.truth, SidecarType.CONTRACT_ACTION):
        path = f"/api/v1/contracts/results/{ts(tx['consensus_ns'])}/actions"
        whole = [a["index"] for a in get(client, path)["actions"]]
        for order in ("asc", "desc"):
            seen: list[int] = []
            link: str | None = f"{path}?limit=1&order={order}"
            while link is not None:
                body = get(client, link)
                seen.extend(a["index"] for a in body["actions"])
                link = body["links"]["next"]
                paged += link is not None
            assert seen == (whole if order == "asc" else whole[::-1])
    assert paged > 0, "some transaction must have more than one action"


def test_state_changes_equal_the_written_sidecar_records(
    client: Any, generated_stream: GeneratedStream, written_sidecars: dict[tuple[int, int], list[Any]]
) -> None:
    for tx in contract_transactions(generated_stream.truth, SidecarType.CONTRACT_STATE_CHANGE):
        changes = get(client, f"/api/v1/contracts/results/{ts(tx['consensus_ns'])}/state")["state_changes"]
        expected = [
            (f"0.0.{change.contract_id.contractNum}", storage)
            for record in written_sidecars[(tx["consensus_ns"], SidecarType.CONTRACT_STATE_CHANGE)]
            for change in record.state_changes.contract_state_changes
            for storage in change.storage_changes
        ]
        assert len(changes) == len(expected)
        assert {c["contract_id"] for c in changes} == {tx["contract"]}
        for got, (contract_id, want) in zip(changes, expected, strict=True):
            assert got["contract_id"] == contract_id
            assert got["address"] == "0x" + (int(contract_id.rsplit(".", 1)[1])).to_bytes(20, "big").hex()
            assert (got["slot"], got["value_read"]) == (word(want.slot), word(want.value_read))
            assert got["value_written"] == word(want.value_written.value)


def test_other_transactions_and_unknown_times(client: Any, generated_stream: GeneratedStream) -> None:
    plain = next(t for t in generated_stream.truth["transactions"] if not t["sidecar_types"])
    assert get(client, f"/api/v1/contracts/results/{ts(plain['consensus_ns'])}/actions")["actions"] == []
    assert get(client, f"/api/v1/contracts/results/{ts(plain['consensus_ns'])}/state")["state_changes"] == []
    for path, status in [
        (f"/api/v1/contracts/results/{ts(plain['consensus_ns'] + 1)}/actions", 404),
        ("/api/v1/contracts/results/1.000000001/state", 404),
        ("/api/v1/contracts/results/1.x/actions", 400),
        ("/api/v1/contracts/results/1.5/actions?index=gt:-3", 400),
        ("/api/v1/contracts/results/1.5/actions?limit=1000", 400),
    ]:
        response = client.get(path)
        assert response.status_code == status, path
        assert response.get_json()["_status"]["messages"][0]["message"]
        assert b"Traceback" not in response.data


def test_blocks_newest_first(client: Any, generated_stream: GeneratedStream) -> None:
    numbers = [b["number"] for b in generated_stream.truth["blocks"]]
    seen: list[int] = []
    link: str | None = "/api/v1/blocks?order=desc&limit=4"
    while link is not None:
        body = get(client, link)
        seen.extend(b["number"] for b in body["blocks"])
        link = body["links"]["next"]
        assert link is None or urlsplit(link).path == "/api/v1/blocks"
    assert seen == numbers[::-1]
    newest = get(client, "/api/v1/blocks?order=desc&limit=1")["blocks"][0]
    assert newest["hash"] == "0x" + generated_stream.truth["blocks"][-1]["end_running_hash"]

    def rpc(method: str, *params: Any) -> Any:
        response = client.post("/", json={"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
        assert response.status_code == 200
        return response.get_json()["result"]

    assert rpc("getLatestBlock") == numbers[-1]
    assert rpc("getBlocks", numbers[1]) == numbers[1:]
    assert rpc("getBlocks", numbers[-1] + 1) == []
