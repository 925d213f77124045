"""Cardinal Streams message layer: messages, producer, in-memory and stateless consumers.

Broker independent and application agnostic: a block is a hash, a number, a parent, a weight
and the keys it sets and deletes. See ``docs/cardinal.md``.
"""

from hedera_history.cardinal.conflicts import ConflictPolicy
from hedera_history.cardinal.consumer import InMemoryConsumer
from hedera_history.cardinal.messages import CardinalMessage, WireMessage, decode_message
from hedera_history.cardinal.model import Block, BlockHeader, BlockRef, ChainUpdate
from hedera_history.cardinal.producer import BatchProducer
from hedera_history.cardinal.routing import Delivery, PrefixRoute, Routing
from hedera_history.cardinal.subscription import Subscription
from hedera_history.cardinal.tracking import (
    BlockSink,
    Disposition,
    InMemoryTrackingStore,
    StatelessTracker,
    TrackingOutcome,
    TrackingStore,
)

__all__ = [
    "BatchProducer",
    "Block",
    "BlockHeader",
    "BlockRef",
    "BlockSink",
    "CardinalMessage",
    "ChainUpdate",
    "ConflictPolicy",
    "Delivery",
    "Disposition",
    "InMemoryConsumer",
    "InMemoryTrackingStore",
    "PrefixRoute",
    "Routing",
    "StatelessTracker",
    "Subscription",
    "TrackingOutcome",
    "TrackingStore",
    "WireMessage",
    "decode_message",
]
