"""``POST /api/v1/contracts/call``: a parseable error in the reference's shape, never a 405, and
valid against what the reference's OpenAPI declares for that operation."""

from __future__ import annotations

import json

import pytest
from hedera_history.api import handle
from hedera_history.api.contract_call import NOT_EXECUTED
from hedera_history.store.reader import HistoryReader

from tests.integration.api.reference_contract import ReferenceContract, load_reference_document

CALL = {"data": "0x47f1aae7", "to": "0x00000000000000000000000000000000000003f7", "estimate": False}


def no_reader() -> HistoryReader:
    raise AssertionError("a contract call needs no store")


@pytest.fixture(scope="module")
def contract() -> ReferenceContract:
    return ReferenceContract(load_reference_document())


@pytest.mark.parametrize("path", ["/api/v1/contracts/call", "/api/v1/contracts/call/"])
def test_a_call_is_answered_501_with_the_reason_in_detail(contract: ReferenceContract, path: str) -> None:
    response = handle(no_reader, "POST", path, {}, json.dumps(CALL).encode())
    assert response.status == 501
    assert response.body == {"_status": {"messages": [{"message": "Not Implemented", "detail": NOT_EXECUTED}]}}
    contract.validate("/api/v1/contracts/call", 501, response.body, method="post")


@pytest.mark.parametrize("body", [b"", b"{not json", b"\xff\xfe", b"[1, 2]", b'"call"'])
def test_a_body_that_is_not_a_json_object_is_a_400(contract: ReferenceContract, body: bytes) -> None:
    response = handle(no_reader, "POST", "/api/v1/contracts/call", {}, body)
    assert response.status == 400
    (message,) = response.body["_status"]["messages"]
    assert message["message"] == "Bad Request" and message["detail"]
    contract.validate("/api/v1/contracts/call", 400, response.body, method="post")


def test_other_methods_and_paths_keep_their_answers() -> None:
    assert handle(no_reader, "GET", "/api/v1/contracts/call", {}, b"").status == 501
    assert handle(no_reader, "PUT", "/api/v1/contracts/call", {}, b"{}").status == 405
    assert handle(no_reader, "POST", "/api/v1/contracts/calls", {}, b"{}").status == 405
