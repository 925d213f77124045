"""Topics: ConsensusCreateTopic, and ConsensusSubmitMessage whole or in chunks, with the sequence
numbers and version-3 running hashes the network gives them (``verify.topic_running_hash``).

A topic is created with its payer's key as admin and submit key, a memo and an auto-renew account
(the payer). A message goes to a topic drawn from those created so far; a message group drawn
before any topic exists creates one with its first item (a one-item group: only that). A chunked
message is one message cut in as many chunks as its group has items, each a transaction of its
own carrying ``chunkInfo`` (the first chunk's transaction id, its number, the total), numbered and
hashed like any message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hedera_history import hapi
from hedera_history.gen.facts import GeneratedItem, TopicMessageFacts
from hedera_history.gen.items import Draft, RecordDetails
from hedera_history.gen.player import Player
from hedera_history.verify.topic_running_hash import INITIAL_RUNNING_HASH, RUNNING_HASH_VERSION, next_running_hash

_AUTO_RENEW_SECONDS = 7_776_000
MAX_FEE = 2_000_000
"""The most a topic transaction's fee is (``transactions._FEES["topic"]``)."""
_TOPIC_MEMOS = ("", "oracle feed", "supply chain", "audit log", "votes")
_WORDS = ("price", "ok", "shipment", "signed", "hash", "vote", "ping", "report", "é", "0x1f")


@dataclass
class _Topic:
    sequence_number: int = 0
    running_hash: bytes = INITIAL_RUNNING_HASH


class TopicPlayer(Player):
    """The topics of one stream and what their transactions do to them."""

    def __init__(self, *tools: Any) -> None:
        super().__init__(*tools)
        self._topics: dict[int, _Topic] = {}

    def create(self, slots: Sequence[int]) -> list[GeneratedItem]:
        return [self._create(slots[0])]

    def messages(self, slots: Sequence[int]) -> list[GeneratedItem]:
        """One message, chunked over the group's items when it has more than one."""
        items: list[GeneratedItem] = []
        if not self._topics:
            items.append(self._create(slots[0]))
            slots = slots[1:]
            if not slots:
                return items
        topic = self.rng.choice(sorted(self._topics))
        payload = " ".join(self.rng.choice(_WORDS) for _ in range(self.rng.randint(1, 12 * len(slots)))).encode()
        cut = _cut(payload, len(slots))
        payer = self._pick_payer(MAX_FEE * len(slots))
        initial: hapi.TransactionID | None = None
        for number, (consensus_ns, chunk) in enumerate(zip(slots, cut, strict=True), start=1):
            draft = self._new_draft(consensus_ns, payer)
            submit = draft.body.consensusSubmitMessage
            submit.topicID.topicNum = topic
            submit.message = chunk
            if len(slots) > 1:
                if initial is None:
                    initial = draft.body.transactionID
                submit.chunkInfo.initialTransactionID.CopyFrom(initial)
                submit.chunkInfo.number = number
                submit.chunkInfo.total = len(slots)
            items.append(self._submit(draft, topic, chunk, (number, len(slots)) if len(slots) > 1 else None))
        return items

    def _create(self, consensus_ns: int) -> GeneratedItem:
        fee = self._fee()
        payer = self._pick_payer(fee)
        topic = self.ledger.new_entity()
        draft = self._new_draft(consensus_ns, payer)
        create = draft.body.consensusCreateTopic
        create.memo = self.rng.choice(_TOPIC_MEMOS)
        public = self.writer.signer(payer).public
        create.adminKey.ed25519 = public
        create.submitKey.ed25519 = public
        create.autoRenewPeriod.seconds = _AUTO_RENEW_SECONDS
        create.autoRenewAccount.accountNum = payer
        self._topics[topic] = _Topic()

        def receipt(record: hapi.TransactionRecord) -> None:
            record.receipt.topicID.topicNum = topic

        return self.writer.finish(draft, fee, {}, RecordDetails(fill=receipt, topic_created=topic))

    def _submit(self, draft: Draft, topic: int, message: bytes, chunk: tuple[int, int] | None) -> GeneratedItem:
        state = self._topics[topic]
        state.sequence_number += 1
        state.running_hash = next_running_hash(
            state.running_hash, (0, 0, draft.payer), (0, 0, topic), draft.consensus_ns, state.sequence_number, message
        )
        sequence_number, running_hash = state.sequence_number, state.running_hash

        def receipt(record: hapi.TransactionRecord) -> None:
            record.receipt.topicSequenceNumber = sequence_number
            record.receipt.topicRunningHash = running_hash
            record.receipt.topicRunningHashVersion = RUNNING_HASH_VERSION

        facts = TopicMessageFacts(topic, sequence_number, running_hash, message, chunk)
        return self.writer.finish(draft, self._fee(), {}, RecordDetails(fill=receipt, topic_message=facts))


def _cut(payload: bytes, parts: int) -> list[bytes]:
    """``payload`` in ``parts`` non-empty pieces (padded when shorter than ``parts`` bytes)."""
    payload = payload.ljust(parts, b".")
    size = -(-len(payload) // parts)
    pieces = [payload[i * size : (i + 1) * size] for i in range(parts)]
    return [piece or b"." for piece in pieces]
