"""``GeneratorConfig(staking_rewards=True)``: hbar transfers pay rewards from 0.0.800, in the record's
``paid_staking_rewards`` and its transfer list, in record files and native blocks alike, and the
balances still add up; without it the stream pays none (the stream as before: the draws are apart)."""

from __future__ import annotations

from hedera_history import hapi
from hedera_history.formats.block import parse_block_file
from hedera_history.formats.block_record_file import native_block_files
from hedera_history.gen import GeneratorConfig, generate_stream
from hedera_history.gen.config_and_output import PeriodKind

CONFIG = GeneratorConfig(nodes=4, periods=4, transactions=20, seed=2, staking_rewards=True, cutover_after=2)


def test_rewards_are_paid_from_0_0_800_in_records_and_native_blocks() -> None:
    stream = generate_stream(CONFIG)
    paid = [(t, r) for t in stream.truth["transactions"] for r in t.get("staking_rewards", [])]
    assert paid and {t["block_number"] for t, _ in paid} >= {1, 3}  # a record file and a native block
    for item, reward in paid:
        transfers = {m["account"]: m["amount"] for m in item["hbar_transfers"]}
        assert transfers["0.0.800"] == -reward["amount"] and transfers[reward["account"]] > 0
    balances = stream.truth["balances"]
    spent = sum(r["amount"] for _, r in paid)
    assert balances["genesis"]["0.0.800"] - balances["final"]["0.0.800"] == spent
    assert sum(balances["final"].values()) == sum(balances["genesis"].values())
    native = [b for b in stream.blocks if b.kind is PeriodKind.NATIVE]
    records = [
        hapi.TransactionRecord.FromString(item.record_bytes)
        for block in native
        for item in native_block_files(parse_block_file(stream.objects[block.path], block.path))[0].items
    ]
    in_blocks = [(r.accountID.accountNum, r.amount) for record in records for r in record.paid_staking_rewards]
    expected = [(int(r["account"].rsplit(".", 1)[1]), r["amount"]) for t, r in paid if t["block_number"] >= 2]
    assert in_blocks == expected


def test_no_rewards_without_the_setting() -> None:
    stream = generate_stream(GeneratorConfig(nodes=4, periods=2, transactions=20, seed=2))
    assert not any("staking_rewards" in t for t in stream.truth["transactions"])
    assert "0.0.800" not in stream.truth["balances"]["genesis"]
