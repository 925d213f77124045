"""The Terraform of ``infra/`` as data, parsed with python-hcl2 (strings without their quotes,
expressions as ``${...}`` text)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hcl2

REPO = Path(__file__).resolve().parents[3]
INFRA = REPO / "infra"
CONTRACT_MODULE = INFRA / "modules" / "contract"

_OPTIONS = hcl2.SerializationOptions(strip_string_quotes=True, explicit_blocks=False, with_comments=False)


@dataclass
class Module:
    files: dict[str, dict[str, Any]] = field(default_factory=dict)

    def _blocks(self, kind: str) -> list[dict[str, Any]]:
        return [block for parsed in self.files.values() for block in parsed.get(kind, [])]

    def resources(self, type_: str) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for block in self._blocks("resource"):
            found.update(block.get(type_, {}))
        return found

    def resource(self, type_: str, name: str) -> dict[str, Any]:
        return self.resources(type_)[name]

    def all_resources(self) -> list[tuple[str, str, dict[str, Any]]]:
        return [
            (type_, name, body)
            for block in self._blocks("resource")
            for type_, named in block.items()
            for name, body in named.items()
        ]

    @property
    def locals(self) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for block in self._blocks("locals"):
            merged.update(block)
        return merged

    @property
    def variables(self) -> dict[str, dict[str, Any]]:
        merged: dict[str, dict[str, Any]] = {}
        for block in self._blocks("variable"):
            merged.update(block)
        return merged

    @property
    def modules(self) -> dict[str, dict[str, Any]]:
        merged: dict[str, dict[str, Any]] = {}
        for block in self._blocks("module"):
            merged.update(block)
        return merged


@functools.cache
def load_module(directory: Path = INFRA) -> Module:
    """Parsed once per process (parsing is slow); callers must not change what it returns."""
    module = Module()
    for path in sorted(directory.glob("*.tf")):
        with path.open() as handle:
            module.files[path.name] = hcl2.load(handle, serialization_options=_OPTIONS)
    return module


def load_tfvars(path: Path) -> dict[str, Any]:
    with path.open() as handle:
        values: dict[str, Any] = hcl2.load(handle, serialization_options=_OPTIONS)
    return values


def expr(value: Any) -> str:
    """An attribute's expression without the ``${ }`` around it when it is one interpolation."""
    text = str(value)
    if text.startswith("${") and _closing_brace(text, 1) == len(text) - 1:
        return text[2:-1]
    return text


def _closing_brace(text: str, opening: int) -> int:
    depth = 0
    for index in range(opening, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    return -1


def block(body: dict[str, Any], name: str) -> dict[str, Any]:
    """The one nested block ``name`` of a resource body."""
    blocks = body[name]
    assert len(blocks) == 1, f"{name}: {len(blocks)} blocks"
    return blocks[0]  # type: ignore[no-any-return]


def dynamic(body: dict[str, Any], name: str) -> dict[str, Any]:
    """The ``dynamic "name"`` block of a resource body."""
    for entry in body.get("dynamic", []):
        if name in entry:
            return entry[name]  # type: ignore[no-any-return]
    raise KeyError(f"no dynamic {name} block")
