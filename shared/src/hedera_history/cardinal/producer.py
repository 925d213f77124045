"""Turning a block into Cardinal Streams messages, grouped by topic.

Per block: one Batch on the default topic; per prefix group, either one sub-batch (a header and
a few SubBatchMsg chunks, each under ``chunk_bytes``) or, for a PER_KEY route, one message per
key; keys matching no route travel inline in the Batch. So a block of tens of thousands of rows
takes 1 + (groups) + (total bytes / chunk budget, at most doubled) messages.

Everything is derived from the block alone (sub-batch ids are digests of their content), so
redundant producers configured alike emit byte-identical messages, which consumers discard as
duplicates, and producers that disagree announce different sub-batch ids.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from hedera_history.cardinal.chain_blocks import Block, BlockHeader
from hedera_history.cardinal.chunking import pack_chunks
from hedera_history.cardinal.identity import sub_batch_id
from hedera_history.cardinal.messages import (
    Batch,
    BatchDeleteMsg,
    BatchEntry,
    BatchMsg,
    InlineDelete,
    InlineValue,
    PrefixCount,
    Reorg,
    ReorgComplete,
    SubBatchHeader,
    SubBatchRef,
    WireMessage,
    encode_sub_batch_value,
    sub_batch_msg_key,
)
from hedera_history.cardinal.routing import Delivery, PrefixRoute, Routing, require_prefix_free
from hedera_history.errors import ConfigError, MessageFormatError

DEFAULT_CHUNK_BYTES: Final = 4 * 1024 * 1024
DEFAULT_MAX_MESSAGE_BYTES: Final = 9_000_000
"""Leaves room under Pub/Sub's 10 MB for attributes and the transport's own framing."""
_MIN_CHUNK_BYTES: Final = 64

TopicMessages = Mapping[str, tuple[WireMessage, ...]]


@dataclass(slots=True)
class _Group:
    route: PrefixRoute
    updates: dict[str, bytes] = field(default_factory=dict)
    deletes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class BatchProducer:
    routing: Routing
    chunk_bytes: int = DEFAULT_CHUNK_BYTES
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES

    def __post_init__(self) -> None:
        if not _MIN_CHUNK_BYTES <= self.chunk_bytes <= self.max_message_bytes:
            raise ConfigError(
                f"chunk budget {self.chunk_bytes} must lie in {_MIN_CHUNK_BYTES}..{self.max_message_bytes} bytes"
            )

    def produce(self, block: Block) -> TopicMessages:
        """Every message of ``block``, per topic; the default topic first, starting with the Batch."""
        inline, groups = self._split(block)
        entries: dict[str, BatchEntry] = dict(inline)
        by_topic: defaultdict[str, list[WireMessage]] = defaultdict(list)
        default = by_topic[self.routing.default_topic]  # first, so that iteration starts with the Batch
        for prefix in sorted(groups):
            group = groups[prefix]
            if prefix in entries:
                raise ConfigError(f"key {prefix!r} travels inline and is also a prefix")
            topic = by_topic[group.route.topic]
            if group.route.delivery is Delivery.PER_KEY:
                entries[prefix] = PrefixCount(len(group.updates) + len(group.deletes))
                topic.extend(BatchDeleteMsg(block.hash, key).encode() for key in sorted(group.deletes))
                topic.extend(BatchMsg(block.hash, key, group.updates[key]).encode() for key in sorted(group.updates))
            else:
                chunks = pack_chunks(group.deletes, group.updates, self.chunk_bytes)
                values = [encode_sub_batch_value(chunk.deletes, chunk.updates) for chunk in chunks]
                batch_id = sub_batch_id(block.hash, prefix, [hashlib.sha256(v).digest() for v in values])
                entries[prefix] = SubBatchRef(batch_id)
                topic.append(SubBatchHeader(block.hash, batch_id, len(chunks)).encode())
                topic.extend(
                    WireMessage(sub_batch_msg_key(block.hash, batch_id, index), value)
                    for index, value in enumerate(values)
                )
        default.insert(0, Batch(block.hash, block.number, block.weight, block.parent, entries).encode())
        for messages in by_topic.values():
            for message in messages:
                self._check_size(message)
        return {topic: tuple(messages) for topic, messages in by_topic.items()}

    def produce_reorg(self, ancestor: BlockHeader, blocks: Sequence[Block]) -> tuple[WireMessage, ...]:
        """The ordered reorg channel: Reorg, every message of ``blocks`` in order, ReorgComplete.

        ``blocks`` run from the ancestor's child up to the first block heavier than the heaviest
        block of the chain they replace (the spec's rule).
        """
        channel = [Reorg(ancestor.hash, ancestor.number).encode()]
        for block in blocks:
            for messages in self.produce(block).values():
                channel.extend(messages)
        channel.append(ReorgComplete(ancestor.hash, ancestor.number).encode())
        return tuple(channel)

    def _split(self, block: Block) -> tuple[dict[str, BatchEntry], dict[str, _Group]]:
        inline: dict[str, BatchEntry] = {}
        groups: dict[str, _Group] = {}

        def group_of(key: str) -> _Group | None:
            found = self.routing.match(key)
            if found is None:
                return None
            group = groups.setdefault(found.prefix, _Group(found.route))
            if group.route != found.route:
                raise ConfigError(f"prefix {found.prefix!r} is matched by two routes with different settings")
            return group

        for key in block.deletes:
            group = group_of(key)
            if group is None:
                inline[key] = InlineDelete()
            else:
                group.deletes.append(key)
        for key, value in block.updates.items():
            group = group_of(key)
            if group is None:
                inline[key] = InlineValue(value)
            else:
                group.updates[key] = value
        require_prefix_free(groups)
        return inline, groups

    def _check_size(self, message: WireMessage) -> None:
        if message.size > self.max_message_bytes:
            raise MessageFormatError(
                f"message {message.key[:48].hex()}... takes {message.size} bytes, over the "
                f"{self.max_message_bytes}-byte limit (one value too large, or too much inline in the Batch)"
            )
