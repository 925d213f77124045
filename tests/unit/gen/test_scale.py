"""The sizes the demo and the benchmarks ask for: many periods, and thousands of items a period."""

from __future__ import annotations

from collections import Counter

from hedera_history.gen import GeneratorConfig, generate_stream
from hedera_history.gen.ledger import TOTAL_TINYBAR


def test_fifty_periods_of_twenty() -> None:
    stream = generate_stream(GeneratorConfig(nodes=4, periods=50, transactions=20))
    truth = stream.truth
    assert truth["counts"] == {
        "blocks": 50,
        "transactions": 1000,
        "sidecar_files": truth["counts"]["sidecar_files"],
    }
    assert [(b["first_block"], b["last_block"]) for b in truth["address_books"]] == [(0, 25), (26, 49)]
    assert len(stream.objects) == 4 * (100 + truth["counts"]["sidecar_files"])
    assert sum(truth["balances"]["final"].values()) == TOTAL_TINYBAR
    statuses = Counter(t["status"] for t in truth["transactions"])
    assert statuses["SUCCESS"] > 800 and statuses["DUPLICATE_TRANSACTION"] and statuses["INSUFFICIENT_ACCOUNT_BALANCE"]


def test_thousands_of_items_in_one_period() -> None:
    stream = generate_stream(GeneratorConfig(nodes=1, periods=1, transactions=3000, rotate_key=False))
    entries = stream.truth["transactions"]
    times = [t["consensus_ns"] for t in entries]
    assert len(times) == 3000 and times == sorted(set(times))
    assert times[-1] < stream.config.start_time_ns + stream.config.period_ns
    # Only duplicates, child records and scheduled executions share an id with another item.
    originals = [
        t["transaction_id_string"]
        for t in entries
        if not (t["transaction_id"]["nonce"] or t["transaction_id"]["scheduled"])
        and t["status"] != "DUPLICATE_TRANSACTION"
    ]
    assert len(set(originals)) == len(originals)
