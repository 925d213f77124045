"""The ground truth agrees with the files, entry by entry, and covers what later tests need."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

from hedera_history import hapi
from hedera_history.gen import GeneratedStream
from hedera_history.store.accounts import accounts_touched, decode_transaction_body

from tests.unit.gen.helpers import account, consensus_ns, items, record_file, timestamp_ns


def test_counts_equal_the_files(generated_stream: GeneratedStream) -> None:
    truth = generated_stream.truth
    assert truth["counts"]["blocks"] == len(truth["blocks"]) == len(generated_stream.periods) == 6
    total = 0
    for index, block in enumerate(truth["blocks"]):
        parsed = record_file(generated_stream, index)
        assert block["item_count"] == len(parsed.record_stream_items) == 24
        assert block["number"] == parsed.block_number
        assert block["name"] == str(generated_stream.periods[index].record_name)
        assert block["start_running_hash"] == parsed.start_object_running_hash.hash.hex()
        assert block["end_running_hash"] == parsed.end_object_running_hash.hash.hex()
        times = [consensus_ns(i.record) for i in items(generated_stream, index)]
        assert (block["consensus_start_ns"], block["consensus_end_ns"]) == (times[0], times[-1])
        assert block["hapi_version"] == "0.56.0"
        assert [(s["id"], s["hash"], s["types"]) for s in block["sidecars"]] == [
            (s.id, s.hash.hash.hex(), list(s.types)) for s in parsed.sidecars
        ]
        total += block["item_count"]
    assert truth["counts"]["transactions"] == len(truth["transactions"]) == total
    assert truth["counts"]["sidecar_files"] == sum(len(b["sidecars"]) for b in truth["blocks"])
    nodes = len(generated_stream.nodes)
    assert len(generated_stream.objects) == nodes * (2 * 6 + truth["counts"]["sidecar_files"])


def test_transactions_match_their_records(generated_stream: GeneratedStream) -> None:
    entries = iter(generated_stream.truth["transactions"])
    for index, block in enumerate(generated_stream.truth["blocks"]):
        for position, item in enumerate(items(generated_stream, index)):
            entry = next(entries)
            record = item.record
            transaction_id = record.transactionID
            assert entry["block_number"] == block["number"] and entry["index"] == position
            assert entry["consensus_ns"] == consensus_ns(record)
            assert entry["hash"] == record.transactionHash.hex()
            assert entry["transaction_id"] == {
                "payer": account(transaction_id.accountID.accountNum),
                "valid_start_ns": timestamp_ns(transaction_id.transactionValidStart),
                "nonce": transaction_id.nonce,
                "scheduled": transaction_id.scheduled,
            }
            assert entry["status"] == hapi.ResponseCodeEnum.Name(record.receipt.status)
            assert entry["fee"] == record.transactionFee
            assert entry["memo"] == record.memo
            assert entry["hbar_transfers"] == [
                {"account": account(a.accountID.accountNum), "amount": a.amount}
                for a in record.transferList.accountAmounts
            ]
            transaction = hapi.Transaction.FromString(item.transaction_bytes)
            body = hapi.TransactionBody.FromString(
                hapi.SignedTransaction.FromString(transaction.signedTransactionBytes).bodyBytes
            )
            assert entry["type"] == body.WhichOneof("data")
            if record.HasField("parent_consensus_timestamp"):
                assert entry["parent_consensus_ns"] == timestamp_ns(record.parent_consensus_timestamp)
    assert next(entries, None) is None


def test_transaction_id_string_is_the_mirror_node_form(generated_stream: GeneratedStream) -> None:
    for entry in generated_stream.truth["transactions"]:
        payer, seconds, nanos = entry["transaction_id_string"].split("-")
        assert payer == entry["transaction_id"]["payer"] == entry["payer"]
        assert re.fullmatch(r"\d{9}", nanos)
        assert int(seconds) * 10**9 + int(nanos) == entry["transaction_id"]["valid_start_ns"]


def test_shared_transaction_ids(generated_stream: GeneratedStream) -> None:
    by_id = defaultdict(list)
    for entry in generated_stream.truth["transactions"]:
        by_id[entry["transaction_id_string"]].append(entry)
    shared = [group for group in by_id.values() if len(group) > 1]
    kinds = set()
    for group in shared:
        first = group[0]
        for other in group[1:]:
            if other["status"] == "DUPLICATE_TRANSACTION":
                kinds.add("duplicate")
                assert other["transaction_id"] == first["transaction_id"]
                assert other["hash"] != first["hash"]
            elif other["transaction_id"]["nonce"]:
                kinds.add("child")
                assert other["parent_consensus_ns"] == first["consensus_ns"] == other["consensus_ns"] - 1
                assert other["fee"] == 0 and other["created"]
            elif other["transaction_id"]["scheduled"]:
                kinds.add("scheduled")
                assert first["type"] == "scheduleCreate" and other["type"] == "cryptoTransfer"
                assert other["consensus_ns"] == first["consensus_ns"] + 1
    assert kinds == {"duplicate", "child", "scheduled"}


def test_every_kind_appears(generated_stream: GeneratedStream) -> None:
    entries = generated_stream.truth["transactions"]
    types = {e["type"] for e in entries}
    assert types >= {
        "cryptoTransfer",
        "cryptoCreateAccount",
        "contractCreateInstance",
        "contractCall",
        "scheduleCreate",
        "fileUpdate",
        "fileAppend",
    }
    assert any(e["token_transfers"] for e in entries)
    assert any(e["nft_transfers"] for e in entries)
    assert any(e["type"] == "cryptoCreateAccount" and e["created"] for e in entries)
    assert {t for e in entries for t in e["sidecar_types"]} == {1, 2, 3}


def test_accounts_touched_follows_the_documented_rule(generated_stream: GeneratedStream) -> None:
    def number(text: str) -> int:
        return int(text.rsplit(".", 1)[1])

    for entry in generated_stream.truth["transactions"]:
        expected = {entry["payer"]}
        expected |= {t["account"] for t in entry["hbar_transfers"]}
        expected |= {t["account"] for t in entry["token_transfers"]}
        expected |= {n[k] for n in entry["nft_transfers"] for k in ("sender", "receiver")}
        expected |= set(entry["created"])
        if entry["contract"]:
            expected.add(entry["contract"])
        assert entry["accounts_touched"] == sorted(expected, key=number)


def test_account_history_is_newest_first_and_complete(generated_stream: GeneratedStream) -> None:
    truth = generated_stream.truth
    expected = defaultdict(list)
    for entry in truth["transactions"]:
        for touched in entry["accounts_touched"]:
            expected[touched].append(entry["consensus_ns"])
    assert truth["accounts"] == {a: sorted(times, reverse=True) for a, times in expected.items()}


def test_ground_truth_file_is_the_document(generated_stream: GeneratedStream, generated_stream_dir: Path) -> None:
    written = json.loads((generated_stream_dir / "ground-truth.json").read_text())
    assert written == generated_stream.truth
    assert written["config"]["seed"] == 0 and written["config"]["layout"] == "recordstreams"
    assert [n["account"] for n in written["nodes"]] == ["0.0.3", "0.0.4", "0.0.5", "0.0.6"]
    for name in ("node-0.0.3.pem", "node-0.0.3-gen1.pem", "node-0.0.6.pub.pem", "council-0.pem"):
        assert (generated_stream_dir / "keys" / name).is_file()


def test_the_store_rule_gives_the_same_accounts(generated_stream: GeneratedStream) -> None:
    entries = iter(generated_stream.truth["transactions"])
    for index in range(len(generated_stream.periods)):
        for item in items(generated_stream, index):
            body = decode_transaction_body(item.transaction_bytes)
            assert sorted(accounts_touched(body, item.record), key=_number) == next(entries)["accounts_touched"]


def _number(text: str) -> int:
    return int(text.rsplit(".", 1)[1])
