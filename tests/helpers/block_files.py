"""A generated stream's block files as ``verify.blocks.BlockSource``s, read from memory."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hedera_history.gen.config_and_output import GeneratedStream


@dataclass(frozen=True)
class BlockInMemory:
    name: str
    number: int
    data: bytes

    def read(self) -> bytes:
        return self.data


def block_sources(stream: GeneratedStream, objects: Mapping[str, bytes] | None = None) -> list[BlockInMemory]:
    """Every block file of ``stream`` in order (from ``objects`` when given: a damaged copy)."""
    files = stream.objects if objects is None else objects
    return [BlockInMemory(block.path, block.block_number, files[block.path]) for block in stream.blocks]
