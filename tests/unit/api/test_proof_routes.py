"""Which form a proof route answers in, how caches are told, and what a request without a
configured book or with bad input gets (no store needed)."""

from __future__ import annotations

import pytest
from hedera_history.api import handle
from hedera_history.api.caching import IMMUTABLE, SHORT, cache_control, varies_on_accept
from hedera_history.api.errors import InvalidParamsError
from hedera_history.api.proof_routes import wants_protobuf
from hedera_history.store.reader import HistoryReader


@pytest.mark.parametrize(
    ("accept", "protobuf"),
    [
        (None, False),
        ("", False),
        ("*/*", False),
        ("application/json", False),
        ("application/x-protobuf", True),
        ("application/protobuf", True),
        ("application/x-protobuf, */*", True),
        ("application/json, application/x-protobuf", False),
        ("application/json;q=0.5, application/x-protobuf", True),
        ("application/x-protobuf;q=0.4, application/json;q=0.9", False),
        ("application/x-protobuf;q=0", False),
        ("application/x-protobuf;q=nonsense", False),
        ("APPLICATION/X-PROTOBUF", True),
    ],
)
def test_accept_chooses_the_form(accept: str | None, protobuf: bool) -> None:
    assert wants_protobuf(None, accept) is protobuf


def test_format_overrides_accept() -> None:
    assert wants_protobuf("protobuf", "application/json") is True
    assert wants_protobuf("json", "application/x-protobuf") is False
    with pytest.raises(InvalidParamsError):
        wants_protobuf("xml", None)


def test_a_block_proof_is_cached_for_good_a_transaction_proof_briefly() -> None:
    assert cache_control("GET", "/api/v1/blocks/7/proof", 200) == IMMUTABLE
    assert cache_control("GET", "/api/v1/transactions/0.0.2-1-2/stateproof", 200) == SHORT
    assert varies_on_accept("/api/v1/blocks/7/proof")
    assert varies_on_accept("/api/v1/transactions/0.0.2-1-2/stateproof")
    assert not varies_on_accept("/api/v1/blocks/7")


def _no_reader() -> HistoryReader:
    raise AssertionError("refused before the store is read")


@pytest.mark.parametrize(
    ("path", "query", "status"),
    [
        # no bootstrap book configured (a transaction's proof reads the store first: one in a native
        # block needs no book; tests/integration/api/test_serve_cmd_emulator.py has its 501)
        ("/api/v1/blocks/7/proof", {}, 501),
        ("/api/v1/blocks/7/proof", {"limit": ["1"]}, 400),
        ("/api/v1/blocks/x/proof", {}, 400),
        ("/api/v1/transactions/0.0.2-1657701910-000000144/stateproof", {"sidecars": ["yes"]}, 400),
        ("/api/v1/transactions/0.0.2-1657701910-000000144/stateproof", {"format": ["json", "json"]}, 400),
    ],
)
def test_refusals_in_the_mirror_node_error_shape(path: str, query: dict[str, list[str]], status: int) -> None:
    response = handle(_no_reader, "GET", path, query, b"")
    assert response.status == status
    assert response.body["_status"]["messages"][0]["message"]


def test_json_rpc_without_a_configured_book() -> None:
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "getBlockProof", "params": [7]}'
    answer = handle(_no_reader, "POST", "/", {}, body).body
    assert answer["error"]["code"] == -32601 and "address book" in answer["error"]["message"]
