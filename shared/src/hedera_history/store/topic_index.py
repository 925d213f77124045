"""The topic index: every message submitted to a topic, by sequence number, and the transactions
that created, updated or deleted the topic. Pure: keys and what one transaction contributes.

Its rows live in ``account_history`` beside the entity index (``store.entity_index``), under keys
no account key can take, each with the one cell an account's history entry has (``a:block``: where
the transaction is), so errata correct them and readers check their block's completion alike:

- ``topic/<shard.realm.num>/<sequence number, hex16>/<consensus ns, hex16>``: a successful
  ConsensusSubmitMessage. The record's receipt gives the sequence number (and the running hash the
  answer carries), so a page of a topic's messages, in order, is one range read from a sequence
  number; the consensus time in the key finds the transaction's own row when an errata set it apart.
- ``entity/<shard.realm.num>/<one's complement of the consensus ns, hex16>``: a successful
  ConsensusCreateTopic, ConsensusUpdateTopic or ConsensusDeleteTopic, as an account's changes are
  indexed (topic and account numbers never collide: one entity number space).
"""

from __future__ import annotations

from typing import Any

from hedera_history.errors import RowLayoutError
from hedera_history.store.entity_index import SUCCESS, TOPIC_PREFIX, entity_change_key
from hedera_history.store.keys import ACCOUNT_SEPARATOR, check_entity_id, decode_hex16, entity_id, hex16, prefix_end

_TOPIC_CHANGES = {"consensusUpdateTopic", "consensusDeleteTopic"}
TOPIC_CASES = frozenset({"consensusCreateTopic", "consensusSubmitMessage", *_TOPIC_CHANGES})
"""Body cases this index reads; any other transaction contributes nothing."""


def topic_index_keys(case: str | None, body: Any, record: Any, consensus_ns: int) -> list[bytes]:
    """The index rows of one transaction whose body's ``data`` case is ``case``."""
    if case not in TOPIC_CASES or record.receipt.status != SUCCESS:
        return []
    if case == "consensusCreateTopic":
        topic = topic_text(record.receipt.topicID)
        return [] if topic is None else [entity_change_key(topic, consensus_ns)]
    topic = topic_text(getattr(body, case).topicID)
    if topic is None:
        return []
    if case == "consensusSubmitMessage":
        sequence = record.receipt.topicSequenceNumber
        return [topic_message_key(topic, sequence, consensus_ns)] if sequence > 0 else []
    return [entity_change_key(topic, consensus_ns)]


def topic_text(topic_id: Any) -> str | None:
    """``shard.realm.num`` of a TopicID, None when it names no topic."""
    return entity_id(topic_id.shardNum, topic_id.realmNum, topic_id.topicNum) if topic_id.topicNum > 0 else None


def topic_message_prefix(topic: str) -> bytes:
    return TOPIC_PREFIX + check_entity_id(topic).encode() + ACCOUNT_SEPARATOR


def topic_message_key(topic: str, sequence_number: int, consensus_ns: int) -> bytes:
    return topic_message_prefix(topic) + hex16(sequence_number) + ACCOUNT_SEPARATOR + hex16(consensus_ns)


def topic_message_range(topic: str, low: int, high: int | None) -> tuple[bytes, bytes]:
    """``[start, end)`` of the topic's messages with sequence numbers in ``[low, high]`` (None: no end)."""
    prefix = topic_message_prefix(topic)
    end = prefix_end(prefix) if high is None else prefix + hex16(high + 1)
    return prefix + hex16(low), end


def decode_topic_message_key(key: bytes) -> tuple[str, int, int]:
    """``(topic, sequence number, consensus ns)`` of a topic message row key."""
    parts = key.split(ACCOUNT_SEPARATOR)
    if not key.startswith(TOPIC_PREFIX) or len(parts) != 4:
        raise RowLayoutError(f"not a topic message key: {key!r}")
    topic = check_entity_id(parts[1].decode("ascii", "replace"))
    return topic, decode_hex16(parts[2]), decode_hex16(parts[3])
