"""The committed snapshot of the google provider's schema (see schema_snapshot.py for its source)."""

from __future__ import annotations

import functools
import gzip
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hedera_history.deploy.schema_snapshot import SNAPSHOT_DIR, SNAPSHOT_NAME
from hedera_history.errors import ProviderSchemaError


@dataclass(frozen=True, slots=True)
class AttributeSchema:
    type: str
    """``string``, ``number``, ``bool``, ``list(string)``, ``set(number)``, ``map(string)``, ``object``,
    ``list(object)``, ... or ``any`` where the snapshot does not tell."""
    required: bool


@dataclass(frozen=True, slots=True)
class BlockType:
    nesting: str
    """``list``, ``set`` or ``single``."""
    max_one: bool
    required: bool
    block: BlockSchema


@dataclass(frozen=True, slots=True)
class BlockSchema:
    attributes: Mapping[str, AttributeSchema]
    blocks: Mapping[str, BlockType]
    computed_only: frozenset[str]
    """Attributes the provider sets and the configuration cannot."""

    def block_paths(self, name: str, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
        """Where in this block (at any depth) a nested block called ``name`` may be written."""
        found: list[tuple[str, ...]] = []
        for child, nested in self.blocks.items():
            if child == name:
                found.append(prefix)
            found.extend(nested.block.block_paths(name, (*prefix, child)))
        return found


@dataclass(frozen=True, slots=True)
class ProviderSchema:
    source: Mapping[str, str]
    """Package, version, integrity, and the provider version it was generated from."""
    provider: BlockSchema
    resources: Mapping[str, BlockSchema]
    data_sources: Mapping[str, BlockSchema]

    @property
    def provider_version(self) -> str:
        return self.source["provider_version"]


DEFAULT_SNAPSHOT = SNAPSHOT_DIR / SNAPSHOT_NAME


@functools.cache
def load(path: Path = DEFAULT_SNAPSHOT) -> ProviderSchema:
    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, ValueError) as e:
        raise ProviderSchemaError(f"cannot read the provider schema snapshot: {e}", file=str(path)) from e
    try:
        return ProviderSchema(
            source=dict(data["source"]),
            provider=_block(data["provider"]),
            resources={name: _block(block) for name, block in data["resources"].items()},
            data_sources={name: _block(block) for name, block in data["data_sources"].items()},
        )
    except (KeyError, TypeError, AttributeError) as e:
        raise ProviderSchemaError(f"the provider schema snapshot is malformed: {e!r}", file=str(path)) from e


def _block(data: Mapping[str, Any]) -> BlockSchema:
    return BlockSchema(
        attributes={
            name: AttributeSchema(attribute["type"], bool(attribute.get("required")))
            for name, attribute in data["attributes"].items()
        },
        blocks={
            name: BlockType(
                nesting["nesting"],
                bool(nesting.get("max_one")),
                bool(nesting.get("required")),
                _block(nesting["block"]),
            )
            for name, nesting in data["blocks"].items()
        },
        computed_only=frozenset(data.get("computed_only", ())),
    )
