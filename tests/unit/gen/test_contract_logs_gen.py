"""``GeneratorConfig(contract_logs=True)``: contract calls emit logs, written into the record's result
with their blooms in record files and carried by a native block's trace data (rebuilt into the same
log infos), each in the truth's ``logs``; without the setting the stream is the stream as before
(the draws are apart)."""

from __future__ import annotations

from typing import Any

from hedera_history import hapi
from hedera_history.formats.block import parse_block_file
from hedera_history.formats.block_record_file import native_block_files
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.evm import combined_bloom, contract_address, log_bloom
from hedera_history.gen import GeneratorConfig, generate_stream
from hedera_history.gen.config_and_output import PeriodKind

CONFIG = GeneratorConfig(nodes=4, periods=4, transactions=40, seed=4, contract_logs=True, cutover_after=2)


def _logs(record: Any) -> list[dict[str, Any]]:
    return [
        {
            "contract": f"0.0.{log.contractID.contractNum}",
            "topics": [bytes(t).hex() for t in log.topic],
            "data": bytes(log.data).hex(),
        }
        for log in record.contractCallResult.logInfo
    ]


def test_calls_emit_the_logs_the_truth_lists_in_records_and_native_blocks() -> None:
    stream = generate_stream(CONFIG)
    with_logs = {t["consensus_ns"]: t["logs"] for t in stream.truth["transactions"] if t.get("logs")}
    blocks = {t["block_number"] for t in stream.truth["transactions"] if t.get("logs")}
    assert blocks & {0, 1} and blocks & {2, 3}, "logs in a record file and in a native block"
    records: dict[int, Any] = {}
    items = [
        item
        for period in stream.periods
        for item in parse_record_file(period.record_bytes, str(period.record_name).removesuffix(".gz")).items
    ]
    for block in stream.blocks:
        if block.kind is PeriodKind.NATIVE:
            items.extend(native_block_files(parse_block_file(stream.objects[block.path], block.path))[0].items)
    for item in items:
        records[item.consensus_ns] = hapi.TransactionRecord.FromString(item.record_bytes)
    for consensus_ns, logs in with_logs.items():
        record = records[consensus_ns]
        assert _logs(record) == logs
        blooms = [log_bloom(contract_address(log.contractID), log.topic) for log in record.contractCallResult.logInfo]
        assert [bytes(log.bloom) for log in record.contractCallResult.logInfo] == blooms
        assert bytes(record.contractCallResult.bloom) == combined_bloom(blooms)


def test_no_logs_without_the_setting_and_the_stream_as_before() -> None:
    config = GeneratorConfig(nodes=4, periods=2, transactions=40, seed=4)
    stream = generate_stream(config)
    assert not any("logs" in t for t in stream.truth["transactions"])
    with_logs = generate_stream(GeneratorConfig(**{**config.__dict__, "contract_logs": True}))
    assert any("logs" in t for t in with_logs.truth["transactions"])
    # Only the calls' records change: the transactions are the same bytes.
    assert [t["hash"] for t in stream.truth["transactions"]] == [t["hash"] for t in with_logs.truth["transactions"]]
