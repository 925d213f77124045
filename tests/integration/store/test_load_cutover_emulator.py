"""A generated stream that crosses the cutover (record files 0-2, wrapped record blocks 3-4, native
TSS-signed blocks 5-7) loaded through ``load``: every block and every transaction answers as the
ground truth says, in one numbering, and every answer validates against the reference OpenAPI."""

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

PREFIX = "cutover_"


def test_a_loaded_cutover_stream_answers_its_ground_truth(
    bigtable_instance: Any, generated_cutover_stream: GeneratedStream, generated_cutover_stream_dir: Path
) -> None:
    folder = generated_cutover_stream_dir
    load_cutover_stream(bigtable_instance, folder, PREFIX)
    truth = generated_cutover_stream.truth
    contract = ReferenceContract(load_reference_document())
    gateway = gateway_for_instance(bigtable_instance, Settings(table_prefix=PREFIX))
    try:
        client = query_app(HistoryReader(gateway)).test_client()
        kinds = set()
        for block in truth["blocks"]:
            kinds.add(block["kind"])
            body = checked_get(client, contract, f"/api/v1/blocks/{block['number']}")
            assert body["number"] == block["number"]
            assert body["count"] == block["item_count"]
            assert body["timestamp"]["from"] == timestamp(block["consensus_start_ns"])
        assert len(kinds) == 3, kinds  # record files, wrapped blocks, native blocks
        listed = checked_get(client, contract, "/api/v1/blocks?order=asc&limit=25")["blocks"]
        assert [b["number"] for b in listed] == [b["number"] for b in truth["blocks"]]
        for transaction in truth["transactions"]:
            url = f"/api/v1/transactions/{transaction['transaction_id_string']}"
            answers = checked_get(client, contract, url)["transactions"]
            answer = next(a for a in answers if a["consensus_timestamp"] == timestamp(transaction["consensus_ns"]))
            assert answer["result"] == transaction["status"], url
            assert answer["charged_tx_fee"] == transaction["fee"], url
            assert answer["transaction_hash"], url
            shown = {(t["account"], t["amount"]) for t in answer["transfers"]}
            assert shown == {(t["account"], t["amount"]) for t in transaction["hbar_transfers"]}, url
        native = [t for t in truth["transactions"] if truth["blocks"][t["block_number"]]["kind"] == "native"]
        assert native, "the stream has transactions in native blocks"
        touched: dict[str, set[str]] = {}
        for transaction in truth["transactions"]:
            for account in transaction["accounts_touched"]:
                touched.setdefault(account, set()).add(timestamp(transaction["consensus_ns"]))
        for account in sorted(touched)[:6]:
            url = f"/api/v1/transactions?account.id={account}&limit=100"
            page = checked_get(client, contract, url)["transactions"]
            assert {a["consensus_timestamp"] for a in page} == touched[account], account
    finally:
        gateway.close()
