"""A generated stream with many topics (creations, messages whole and chunked) verified into blocks,
and its ground truth by topic: what the topic routes are tested on, in memory and on the emulator."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hedera_history.block import VerifiedBlock
from hedera_history.books.parse import parse_address_book
from hedera_history.gen import GeneratedStream, GeneratorConfig, generate_stream, write_stream
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.stream import verify_stream

TOPIC_CONFIG = GeneratorConfig(nodes=4, periods=8, transactions=40, seed=11, topics=12, rotate_key=False)
"""12 topics, about a hundred messages among them, a few chunked."""


@dataclass(frozen=True)
class TopicWorld:
    stream: GeneratedStream
    blocks: tuple[VerifiedBlock, ...]
    created: dict[str, dict[str, Any]]
    """Topic -> the truth of its creating transaction."""
    messages: dict[str, list[dict[str, Any]]]
    """Topic -> the truth of its messages' transactions, by sequence number."""


def verified_blocks(stream: GeneratedStream, folder: Path) -> tuple[VerifiedBlock, ...]:
    """``stream`` written to ``folder`` and verified as the pipeline verifies it: every block."""
    write_stream(stream, folder)
    results = verify_stream(find_local_periods(folder / "recordstreams"), parse_address_book(stream.address_book))
    blocks = tuple(r.report.block for r in results if r.ok and r.report.block is not None)
    assert len(blocks) == len(stream.periods)
    return blocks


def topic_world(folder: Path) -> TopicWorld:
    stream = generate_stream(TOPIC_CONFIG)
    blocks = verified_blocks(stream, folder)
    transactions: Sequence[dict[str, Any]] = stream.truth["transactions"]
    created = {t["topic_created"]: t for t in transactions if "topic_created" in t}
    messages: dict[str, list[dict[str, Any]]] = {}
    for t in transactions:
        if "topic_message" in t:
            messages.setdefault(t["topic_message"]["topic"], []).append(t)
    for listed in messages.values():
        listed.sort(key=lambda t: t["topic_message"]["sequence_number"])
    return TopicWorld(stream, blocks, created, messages)
