"""Topic running hashes (version 3) recomputed from mainnet record files: every message whose
predecessor on its topic is in the same file gets exactly the running hash its receipt holds."""

from __future__ import annotations

from pathlib import Path

from hedera_history import hapi
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.transactions import transaction_body
from hedera_history.verify.topic_running_hash import RUNNING_HASH_VERSION, next_running_hash

RECORD_FILES = (
    "blocks/wrapped-mainnet/record-files/example-v5/2022-01-01T00_00_00.252365821Z/2022-01-01T00_00_00.252365821Z.rcd",
    "blocks/wrapped-mainnet/record-files/example-v6/2025-07-23T20_37_42.076472454Z/2025-07-23T20_37_42.076472454Z.rcd",
)


def test_mainnet_messages_chain_their_running_hashes(hedera_data: Path) -> None:
    checked = 0
    for name in RECORD_FILES:
        path = hedera_data / name
        last: dict[tuple[int, int, int], tuple[int, bytes]] = {}
        for item in parse_record_file(path.read_bytes(), path.name).items:
            record = hapi.TransactionRecord.FromString(item.record_bytes)
            receipt = record.receipt
            if not receipt.topicSequenceNumber:
                continue
            submit = transaction_body(item.transaction_bytes).consensusSubmitMessage
            topic = (submit.topicID.shardNum, submit.topicID.realmNum, submit.topicID.topicNum)
            payer = record.transactionID.accountID
            before = last.get(topic)
            if before is not None and before[0] + 1 == receipt.topicSequenceNumber:
                assert receipt.topicRunningHashVersion == RUNNING_HASH_VERSION
                expected = next_running_hash(
                    before[1],
                    (payer.shardNum, payer.realmNum, payer.accountNum),
                    topic,
                    item.consensus_ns,
                    receipt.topicSequenceNumber,
                    bytes(submit.message),
                )
                assert expected == bytes(receipt.topicRunningHash), (name, topic, receipt.topicSequenceNumber)
                checked += 1
            last[topic] = (receipt.topicSequenceNumber, bytes(receipt.topicRunningHash))
    assert checked == 12
