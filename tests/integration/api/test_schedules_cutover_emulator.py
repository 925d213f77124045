"""Schedules across the cutover: the generated stream that crosses it (record files, wrapped
record blocks, native blocks) loaded through ``load``, then every ScheduleCreate of its ground
truth answered by ``/schedules/{id}`` and listed by ``/schedules``, native blocks as record files:
created by its payer, signed, executed one nanosecond later; each answer valid against the
reference OpenAPI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hedera_history.api.render import timestamp
from hedera_history.config import Settings
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.store.bigtable_client import gateway_for_instance
from hedera_history.store.reader import HistoryReader

from tests.integration.api.reference_contract import ReferenceContract, checked_get, load_reference_document
from tests.integration.cutover_load import load_cutover_stream
from tests.unit.api.wsgi_app import query_app

PREFIX = "schedules_"


def test_schedules_of_a_loaded_cutover_stream(
    bigtable_instance: Any, generated_cutover_stream: GeneratedStream, generated_cutover_stream_dir: Path
) -> None:
    folder = generated_cutover_stream_dir
    load_cutover_stream(bigtable_instance, folder, PREFIX)
    truth = generated_cutover_stream.truth
    kinds = {block["number"]: block["kind"] for block in truth["blocks"]}
    creates = [t for t in truth["transactions"] if t["type"] == "scheduleCreate" and t["status"] == "SUCCESS"]
    assert {kinds[t["block_number"]] for t in creates} == {"record", "wrapped", "native"}
    contract = ReferenceContract(load_reference_document())
    gateway = gateway_for_instance(bigtable_instance, Settings(table_prefix=PREFIX))
    try:
        client = query_app(HistoryReader(gateway)).test_client()
        listed = checked_get(client, contract, "/api/v1/schedules?limit=100")["schedules"]
        assert [s["consensus_timestamp"] for s in listed] == [timestamp(t["consensus_ns"]) for t in creates]
        for schedule, create in zip(listed, creates, strict=True):
            assert checked_get(client, contract, f"/api/v1/schedules/{schedule['schedule_id']}") == schedule
            assert schedule["creator_account_id"] == schedule["payer_account_id"] == create["payer"]
            assert schedule["executed_timestamp"] == timestamp(create["consensus_ns"] + 1)
            assert schedule["signatures"] and not schedule["deleted"], kinds[create["block_number"]]
    finally:
        gateway.close()
