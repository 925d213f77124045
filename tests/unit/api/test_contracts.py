"""Contract actions and state changes from the sidecar table, over the in-memory gateway."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from hedera_history import hapi
from hedera_history.api import handle
from hedera_history.api.render import timestamp
from hedera_history.api.render_contracts import long_zero_address, render_action, word
from hedera_history.config import Settings
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.store.reader import HistoryReader
from hedera_history.store.rows import block_to_rows
from hedera_history.store.writer import BlockWriter

from tests.unit.store.builders import BASE_NS, NS, Tx, account, contract, make_block, make_sidecar, transfer_tx
from tests.unit.store.fakes import MemoryGateway

ACTIONS = 23
SETTINGS = Settings()


def actions_record(consensus_ns: int, count: int, first: int = 0) -> bytes:
    """``count`` actions; action i calls contract 2000 + first + i with input bytes [i]."""
    record = hapi.TransactionSidecarRecord()
    record.consensus_timestamp.seconds, record.consensus_timestamp.nanos = divmod(consensus_ns, NS)
    for i in range(first, first + count):
        action = record.actions.contract_actions.add()
        action.call_type = 1
        action.call_operation_type = 1
        action.call_depth = i % 3
        if i % 2:
            action.calling_contract.CopyFrom(contract(1999 + i))
        else:
            action.calling_account.CopyFrom(account(1001))
        action.recipient_contract.CopyFrom(contract(2000 + i))
        action.gas, action.gas_used, action.value = 100_000 + i, 21_000 + i, i
        action.input = bytes([i])
        action.output = bytes([i, i])
    return bytes(record.SerializeToString())


def state_record(consensus_ns: int) -> bytes:
    record = hapi.TransactionSidecarRecord()
    record.consensus_timestamp.seconds, record.consensus_timestamp.nanos = divmod(consensus_ns, NS)
    change = record.state_changes.contract_state_changes.add()
    change.contract_id.CopyFrom(contract(2001))
    first = change.storage_changes.add()
    first.slot, first.value_read = b"", b"\x07"
    first.value_written.value = b"\x01\x02"
    read_only = change.storage_changes.add()
    read_only.slot, read_only.value_read = b"\x01", b"\xff" * 32
    other = record.state_changes.contract_state_changes.add()
    other.contract_id.evm_address = bytes(range(20))
    written = other.storage_changes.add()
    written.slot = b"\x05"
    written.value_written.value = b""
    return bytes(record.SerializeToString())


class World:
    def __init__(self) -> None:
        start = BASE_NS + 300 * NS
        self.txs = [transfer_tx(start + i * 1000, 1001, 5000) for i in range(3)]
        self.call, self.transfer = self.txs[0].consensus_ns, self.txs[1].consensus_ns
        # The call's actions are split over two records in two sidecar files (sidecar id order counts).
        files = [
            make_sidecar(
                1,
                [
                    (self.call, SidecarType.CONTRACT_STATE_CHANGE, state_record(self.call)),
                    (self.call, SidecarType.CONTRACT_ACTION, actions_record(self.call, 20)),
                ],
            ),
            make_sidecar(2, [(self.call, SidecarType.CONTRACT_ACTION, actions_record(self.call, ACTIONS - 20, 20))]),
        ]
        self.gateway = MemoryGateway()
        BlockWriter(self.gateway, SETTINGS).write_blocks([make_block(3, self.txs, sidecars=files)])
        pending_tx: Tx = transfer_tx(start + 100 * NS, 1001, 5000)
        self.pending = pending_tx.consensus_ns
        pending = make_block(
            4,
            [pending_tx],
            sidecars=[make_sidecar(1, [(self.pending, SidecarType.CONTRACT_ACTION, actions_record(self.pending, 2))])],
        )
        for row in block_to_rows(pending, SETTINGS).rows:  # no completion: block 4 stays invisible
            self.gateway.mutate_rows(row.table, [row])
        self.reader = HistoryReader(self.gateway)

    def get(self, path: str, query: dict[str, list[str]] | None = None) -> tuple[int, Any]:
        response = handle(lambda: self.reader, "GET", path, query or {}, b"")
        json.dumps(response.body)
        return response.status, response.body


@pytest.fixture(scope="module")
def world() -> World:
    return World()


def actions_path(ns: int) -> str:
    return f"/api/v1/contracts/results/{timestamp(ns)}/actions"


def test_actions_render_like_the_mirror_node(world: World) -> None:
    status, body = world.get(actions_path(world.call), {"limit": ["100"]})
    assert status == 200
    assert [a["index"] for a in body["actions"]] == list(range(ACTIONS))
    assert body["links"]["next"] is None
    first, second = body["actions"][0], body["actions"][1]
    assert first == {
        "call_depth": 0,
        "call_operation_type": "CALL",
        "call_type": "CALL",
        "caller": "0.0.1001",
        "caller_type": "ACCOUNT",
        "from": "0x00000000000000000000000000000000000003e9",
        "gas": 100_000,
        "gas_used": 21_000,
        "index": 0,
        "input": "0x00",
        "recipient": "0.0.2000",
        "recipient_type": "CONTRACT",
        "result_data": "0x0000",
        "result_data_type": "OUTPUT",
        "timestamp": timestamp(world.call),
        "to": "0x00000000000000000000000000000000000007d0",
        "value": 0,
    }
    assert (second["caller"], second["caller_type"], second["call_depth"]) == ("0.0.2000", "CONTRACT", 1)
    # Records of the second sidecar file follow those of the first.
    assert body["actions"][20]["recipient"] == "0.0.2020"


@pytest.mark.parametrize(("limit", "order"), [(1, "asc"), (4, "asc"), (5, "desc"), (25, "asc"), (7, "desc")])
def test_action_pages_follow_links_without_gap_or_duplicate(world: World, limit: int, order: str) -> None:
    seen: list[int] = []
    path, query = actions_path(world.call), {"limit": [str(limit)], "order": [order]}
    pages = 0
    while True:
        status, body = world.get(path, query)
        assert status == 200
        assert 0 < len(body["actions"]) <= limit
        seen.extend(a["index"] for a in body["actions"])
        pages += 1
        link = body["links"]["next"]
        if link is None:
            break
        parts = urlsplit(link)
        path, query = parts.path, parse_qs(parts.query)
    expected = list(range(ACTIONS)) if order == "asc" else list(range(ACTIONS - 1, -1, -1))
    assert seen == expected
    assert pages == -(-ACTIONS // limit)


def test_action_index_filters_and_their_links(world: World) -> None:
    def indexes(query: dict[str, list[str]]) -> tuple[list[int], str | None]:
        status, body = world.get(actions_path(world.call), query)
        assert status == 200
        return [a["index"] for a in body["actions"]], body["links"]["next"]

    assert indexes({"index": ["3"]}) == ([3], None)
    assert indexes({"index": ["eq:22"]}) == ([22], None)
    assert indexes({"index": ["gte:20"]}) == ([20, 21, 22], None)
    assert indexes({"index": ["gt:2", "lt:6"], "order": ["desc"]}) == ([5, 4, 3], None)
    assert indexes({"index": ["gte:30"]}) == ([], None)
    assert indexes({"index": ["lt:0"]}) == ([], None)
    found, link = indexes({"index": ["gte:2", "lte:9"], "limit": ["3"]})
    assert found == [2, 3, 4]
    assert link is not None
    assert parse_qs(urlsplit(link).query) == {"limit": ["3"], "order": ["asc"], "index": ["gt:4", "lte:9"]}
    found, link = indexes({"index": ["gte:2", "lte:9"], "limit": ["3"], "order": ["desc"]})
    assert found == [9, 8, 7]
    assert link is not None
    assert parse_qs(urlsplit(link).query) == {"limit": ["3"], "order": ["desc"], "index": ["lt:7", "gte:2"]}


def test_state_changes_are_padded_words(world: World) -> None:
    status, body = world.get(f"/api/v1/contracts/results/{timestamp(world.call)}/state")
    assert status == 200
    assert body["state_changes"] == [
        {
            "address": long_zero_address(0, 0, 2001),
            "contract_id": "0.0.2001",
            "slot": "0x" + "00" * 32,
            "value_read": "0x" + "00" * 31 + "07",
            "value_written": "0x" + "00" * 30 + "0102",
        },
        {
            "address": long_zero_address(0, 0, 2001),
            "contract_id": "0.0.2001",
            "slot": "0x" + "00" * 31 + "01",
            "value_read": "0x" + "ff" * 32,
            "value_written": None,
        },
        {
            "address": "0x" + bytes(range(20)).hex(),
            "contract_id": None,
            "slot": "0x" + "00" * 31 + "05",
            "value_read": "0x" + "00" * 32,
            "value_written": "0x" + "00" * 32,
        },
    ]


def test_a_transaction_without_sidecars_answers_empty_and_unknown_times_404(world: World) -> None:
    assert world.get(actions_path(world.transfer)) == (200, {"actions": [], "links": {"next": None}})
    assert world.get(f"/api/v1/contracts/results/{timestamp(world.transfer)}/state") == (200, {"state_changes": []})
    for ns in (world.call + 1, world.pending):  # never stored; stored in a block that is not complete
        for route in ("actions", "state"):
            status, body = world.get(f"/api/v1/contracts/results/{timestamp(ns)}/{route}")
            assert status == 404
            assert body["_status"]["messages"][0]["message"] == f"no transaction at {timestamp(ns)}"


@pytest.mark.parametrize(
    ("path", "query"),
    [
        ("/api/v1/contracts/results/abc/actions", {}),
        ("/api/v1/contracts/results/1.2.3/actions", {}),
        ("/api/v1/contracts/results/1.1234567890/actions", {}),
        ("/api/v1/contracts/results/99999999999/actions", {}),
        ("/api/v1/contracts/results/-1/actions", {}),
        ("/api/v1/contracts/results/0x12/state", {}),
        ("/api/v1/contracts/results/1.5/actions", {"limit": ["0"]}),
        ("/api/v1/contracts/results/1.5/actions", {"limit": ["101"]}),
        ("/api/v1/contracts/results/1.5/actions", {"limit": ["1", "2"]}),
        ("/api/v1/contracts/results/1.5/actions", {"order": ["sideways"]}),
        ("/api/v1/contracts/results/1.5/actions", {"index": ["ne:1"]}),
        ("/api/v1/contracts/results/1.5/actions", {"index": ["gt:x"]}),
        ("/api/v1/contracts/results/1.5/actions", {"index": ["gt:-1"]}),
        ("/api/v1/contracts/results/1.5/actions", {"index": [str(2**31)]}),
        ("/api/v1/contracts/results/1.5/actions", {"nonce": ["0"]}),
        ("/api/v1/contracts/results/1.5/state", {"limit": ["5"]}),
    ],
)
def test_bad_contract_input_is_a_400(world: World, path: str, query: dict[str, list[str]]) -> None:
    status, body = world.get(path, query)
    assert status == 400
    assert body["_status"]["messages"][0]["message"]


def test_unknown_contract_routes_are_404(world: World) -> None:
    for path in (
        "/api/v1/contracts/results/1.5",
        "/api/v1/contracts/results/1.5/bytecode",
        "/api/v1/contracts/results/1.5/actions/extra",
    ):
        assert world.get(path)[0] == 404


def test_undecodable_sidecar_bytes_are_a_500_not_a_crash() -> None:
    ns = BASE_NS + 900 * NS
    tx = transfer_tx(ns, 1001, 5000)
    garbage = make_sidecar(1, [(ns, SidecarType.CONTRACT_ACTION, b"\xff\xff\xff")])
    gateway = MemoryGateway()
    BlockWriter(gateway, SETTINGS).write_blocks([make_block(9, [tx], sidecars=[garbage])])
    response = handle(lambda: HistoryReader(gateway), "GET", actions_path(ns), {}, b"")
    assert response.status == 500
    assert response.body == {"_status": {"messages": [{"message": "stored history could not be read"}]}}


def test_action_rendering_of_other_callers_recipients_and_results() -> None:
    action = hapi.contract_action.ContractAction(
        call_type=99, call_operation_type=6, targeted_address=b"\xab" * 20, revert_reason=b"no"
    )
    action.calling_account.alias = b"\x01" * 20
    rendered = render_action(action, 4, 1_000_000_001)
    assert (rendered["caller"], rendered["caller_type"], rendered["from"]) == (None, "ACCOUNT", "0x" + "01" * 20)
    assert (rendered["recipient"], rendered["recipient_type"], rendered["to"]) == (None, None, "0x" + "ab" * 20)
    assert (rendered["result_data"], rendered["result_data_type"]) == ("0x6e6f", "REVERT_REASON")
    assert (rendered["call_type"], rendered["call_operation_type"]) == ("UNKNOWN", "CREATE2")
    assert rendered["timestamp"] == "1.000000001"
    bare = render_action(hapi.contract_action.ContractAction(error=b""), 0, 0)
    assert (bare["caller"], bare["from"], bare["to"], bare["input"]) == (None, None, None, "0x")
    assert (bare["result_data"], bare["result_data_type"]) == ("0x", "ERROR")
    nothing = render_action(hapi.contract_action.ContractAction(), 0, 0)
    assert (nothing["result_data"], nothing["result_data_type"]) == (None, "OUTPUT")
    assert long_zero_address(1, 2, 3) == "0x" + "00000001" + "0000000000000002" + "0000000000000003"
    assert long_zero_address(-1, 0, 0) is None
    assert word(b"\x01" * 33) == "0x" + "01" * 33
