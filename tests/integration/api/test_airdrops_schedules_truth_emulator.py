"""Pending airdrops and schedules against the generator's ground truth, across the cutover: a
stream with token kinds (airdrops with claims and cancels, schedules signed later) in record files,
a wrapped block and native blocks, loaded through ``load``; every account's pending airdrops, sent
and received, are the truth's final ones, and every schedule answers its creator, payer, creation
and execution; each answer valid against the reference OpenAPI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader

from tests.integration.api.reference_contract import ReferenceContract, checked_get, load_reference_document
from tests.integration.cutover_load import load_cutover_stream
from tests.unit.api.reference_fetch import follow_links
from tests.unit.api.wsgi_app import query_app

pytestmark = pytest.mark.emulator

CONFIG = GeneratorConfig(
    nodes=4, periods=8, transactions=60, seed=3, tokens=True, cutover_after=3, wrapped_periods=1, rotate_key=False
)
"""Record files 0-2, wrapped block 3, native blocks 4-7 (as the generator's token-kind tests)."""
PREFIX = "truth_"


def _follow(client: Any, contract: ReferenceContract, url: str, key: str) -> list[dict[str, Any]]:
    return follow_links(lambda link: checked_get(client, contract, link), url, key)


def _as_truth(answer: dict[str, Any]) -> dict[str, Any]:
    amount = answer["amount"] if answer["serial_number"] is None else 1
    return {
        "sender": answer["sender_id"],
        "receiver": answer["receiver_id"],
        "token": answer["token_id"],
        "serial": answer["serial_number"],
        "amount": amount,
    }


def test_pending_airdrops_and_schedules_answer_the_truth(bigtable_instance: Any, tmp_path: Path) -> None:
    stream = generate_stream(CONFIG)
    write_stream(stream, tmp_path)
    load_cutover_stream(bigtable_instance, tmp_path, PREFIX)
    token_state = stream.truth["token_state"]
    pending: list[dict[str, Any]] = token_state["pending_airdrops"]
    airdrops = [t for t in stream.truth["transactions"] if t["type"] == "tokenAirdrop"]
    assert pending and airdrops and token_state["schedules"]
    parties = {p for t in airdrops for p in t["accounts_touched"]}
    contract = ReferenceContract(load_reference_document())
    gateway = gateway_for_instance(bigtable_instance, Settings(table_prefix=PREFIX))
    try:
        client = query_app(HistoryReader(gateway)).test_client()
        for account in sorted(parties):
            for route, side in (("pending", "receiver"), ("outstanding", "sender")):
                answers = _follow(client, contract, f"/api/v1/accounts/{account}/airdrops/{route}?limit=3", "airdrops")
                expected = [p for p in pending if p[side] == account]
                assert sorted(map(_as_truth, answers), key=str) == sorted(
                    ({**p, "amount": p["amount"] if p["serial"] is None else 1} for p in expected), key=str
                ), (account, route)
        for schedule, truth in token_state["schedules"].items():
            answer = checked_get(client, contract, f"/api/v1/schedules/{schedule}")
            assert answer["creator_account_id"] == truth["creator"], schedule
            assert answer["payer_account_id"] == truth["payer"], schedule
            assert answer["consensus_timestamp"] == timestamp(truth["created_ns"]), schedule
            executed = truth["executed_ns"]
            assert answer["executed_timestamp"] == (None if executed is None else timestamp(executed)), schedule
            assert len(answer["signatures"]) == len(truth["signatures"]), schedule  # one key an account
        listed = _follow(client, contract, "/api/v1/schedules?limit=4", "schedules")
        assert {s["schedule_id"] for s in listed} >= set(token_state["schedules"])
    finally:
        gateway.close()
