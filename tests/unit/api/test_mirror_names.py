"""Names and fields as the reference mirror node gives them: transaction type names (its OpenAPI
``TransactionTypes``), ``entity_id`` for every entity kind, blocks newest first with time filters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hedera_history import hapi
from hedera_history.api import handle
from hedera_history.api.entities import transaction_entity_id, transaction_type_name
from hedera_history.api.reference_routes import NOT_SERVED, SERVED
from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter

from tests.data_dir import mirror_openapi_path
from tests.unit.store.builders import BASE_NS, NS, make_block, transfer_tx


@pytest.fixture(scope="module")
def reference_types() -> set[str]:
    path = mirror_openapi_path()
    if not path.is_file():
        pytest.fail(f"the reference OpenAPI is missing at {path}; set HEDERA_HISTORY_MIRROR_OPENAPI")
    document = yaml.safe_load(path.read_text())
    return set(document["components"]["schemas"]["TransactionTypes"]["enum"])


def test_every_body_case_is_named_as_the_reference(reference_types: set[str]) -> None:
    cases = [f.name for f in hapi.TransactionBody.DESCRIPTOR.oneofs_by_name["data"].fields]
    names = {transaction_type_name(case) for case in cases}
    # hook_dispatch is in the reference's own table of names but not (yet) in its OpenAPI enum.
    assert names - reference_types == {"HOOKDISPATCH"}
    assert reference_types - names == set()
    assert transaction_type_name("util_prng") == "UTILPRNG"
    assert transaction_type_name("token_fee_schedule_update") == "TOKENFEESCHEDULEUPDATE"
    assert transaction_type_name(None) == "UNKNOWN"


def _body(**fields: Any) -> tuple[Any, str]:
    body = hapi.TransactionBody(**fields)
    case = body.WhichOneof("data")
    assert case is not None
    return body, case


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"tokenMint": {"token": {"tokenNum": 77}}}, "0.0.77"),
        ({"token_pause": {"token": {"tokenNum": 78}}}, "0.0.78"),
        ({"token_fee_schedule_update": {"token_id": {"tokenNum": 79}}}, "0.0.79"),
        ({"tokenFreeze": {"token": {"tokenNum": 80}, "account": {"accountNum": 1001}}}, "0.0.1001"),
        ({"consensusSubmitMessage": {"topicID": {"topicNum": 5}}}, "0.0.5"),
        ({"fileAppend": {"fileID": {"fileNum": 150}}}, "0.0.150"),
        ({"scheduleSign": {"scheduleID": {"scheduleNum": 9}}}, "0.0.9"),
        ({"contractCall": {"contractID": {"contractNum": 1002}}}, "0.0.1002"),
        ({"cryptoUpdateAccount": {"accountIDToUpdate": {"accountNum": 1003}}}, "0.0.1003"),
        ({"systemDelete": {"fileID": {"fileNum": 111}}}, "0.0.111"),
        ({"cryptoTransfer": {}}, None),
    ],
)
def test_entity_id_from_the_body(fields: dict[str, Any], expected: str | None) -> None:
    body, case = _body(**fields)
    assert transaction_entity_id(body, case, hapi.TransactionReceipt()) == expected


@pytest.mark.parametrize(
    ("receipt", "case"),
    [
        ({"tokenID": {"tokenNum": 44}}, "tokenCreation"),
        ({"topicID": {"topicNum": 44}}, "consensusCreateTopic"),
        ({"fileID": {"fileNum": 44}}, "fileCreate"),
        ({"scheduleID": {"scheduleNum": 44}}, "scheduleCreate"),
        ({"accountID": {"accountNum": 44}}, "cryptoCreateAccount"),
        ({"contractID": {"contractNum": 44}}, "contractCreateInstance"),
    ],
)
def test_entity_id_of_a_creation_is_the_receipts(receipt: dict[str, Any], case: str) -> None:
    body, _ = _body(**{case: {}})
    assert transaction_entity_id(body, case, hapi.TransactionReceipt(**receipt)) == "0.0.44"


@pytest.fixture(scope="module")
def reader() -> HistoryReader:
    from tests.unit.store.fakes import MemoryGateway  # noqa: PLC0415

    gateway = MemoryGateway()
    blocks = [make_block(n, [transfer_tx(BASE_NS + n * 100 * NS + i, 1001, 5000) for i in range(3)]) for n in range(6)]
    BlockWriter(gateway, Settings()).write_blocks(blocks)
    return HistoryReader(gateway)


def blocks(reader: HistoryReader, **query: str) -> list[int]:
    response = handle(lambda: reader, "GET", "/api/v1/blocks", {k: [v] for k, v in query.items()}, b"")
    assert response.status == 200, response.body
    return [b["number"] for b in response.body["blocks"]]


def test_blocks_newest_first_and_filtered_by_their_end_time(reader: HistoryReader) -> None:
    assert blocks(reader) == [5, 4, 3, 2, 1, 0]
    ends = {n: reader.get_block(n).consensus_end for n in range(6)}  # type: ignore[union-attr]
    assert blocks(reader, timestamp=f"gte:{timestamp(ends[2])}", order="asc") == [2, 3, 4, 5]
    assert blocks(reader, timestamp=f"gt:{timestamp(ends[2])}") == [5, 4, 3]
    assert blocks(reader, timestamp=f"lt:{timestamp(ends[2])}") == [1, 0]
    assert blocks(reader, timestamp=f"lte:{timestamp(ends[2])}") == [2, 1, 0]
    assert blocks(reader, timestamp=timestamp(ends[3])) == [3]
    assert blocks(reader, timestamp=timestamp(ends[3] - 1)) == []
    assert blocks(reader, timestamp="gt:9000000000") == []
    both = {"timestamp": [f"gte:{timestamp(ends[1])}"], "block.number": ["lt:4"]}
    response = handle(lambda: reader, "GET", "/api/v1/blocks", both, b"")
    assert [b["number"] for b in response.body["blocks"]] == [3, 2, 1]


def test_errors_have_the_reference_shape(reader: HistoryReader) -> None:
    for path, status in (("/api/v1/blocks/99", 404), ("/api/v1/blocks/x", 400), ("/api/v1/nowhere", 404)):
        response = handle(lambda: reader, "GET", path, {}, b"")
        assert response.status == status
        messages = response.body["_status"]["messages"]
        assert messages and all(isinstance(m["message"], str) for m in messages)


def test_every_reference_route_is_served_or_says_why_not() -> None:
    document = yaml.safe_load(mirror_openapi_path().read_text())
    assert set(SERVED) | set(NOT_SERVED) == set(document["paths"])
    assert not set(SERVED) & set(NOT_SERVED)
    docs = (Path(__file__).resolve().parents[3] / "docs" / "api.md").read_text()
    for template in document["paths"]:
        assert f"| `{template.removeprefix('/api/v1')}` |" in docs, template
