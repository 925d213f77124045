"""Recorded requests in terms of what they ask for: the ids a history's targets name become
placeholders (``{account}``, ``{token}``, ``{account_evm_address:hex}``, ``{account:num}``), so a
recording replays on the same kind of history even when its ids move (a generator that plays more
kinds numbers its entities differently)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

ENTITY = re.compile(r"\d+\.\d+\.(\d+)")
SEPARATORS = re.compile(r"([/?&=:])")


def _forms(found: dict[str, Any], *, in_path: bool) -> Iterator[tuple[str, str]]:
    """(placeholder, text) for every string target; an entity's bare number only in the path, where
    it names an entity (a query's numbers are limits, nonces, ...)."""
    for key, value in found.items():
        if key == "base_url" or not isinstance(value, str) or not value:
            continue
        yield f"{{{key}}}", value
        if value.startswith("0x"):
            yield f"{{{key}:hex}}", value[2:]
        entity = ENTITY.fullmatch(value)
        if entity and in_path:
            yield f"{{{key}:num}}", entity[1]


def generalise(request: str, found: dict[str, Any]) -> str:
    """``request`` (path and query) with each piece that is a target's text as its placeholder."""
    path, mark, query = request.partition("?")
    return _swap(path, found, in_path=True) + mark + _swap(query, found, in_path=False)


def _swap(text: str, found: dict[str, Any], *, in_path: bool) -> str:
    placeholders: dict[str, str] = {}
    for placeholder, form in _forms(found, in_path=in_path):
        placeholders.setdefault(form, placeholder)
    return "".join(placeholders.get(piece, piece) for piece in SEPARATORS.split(text))


def instantiate(request: str, found: dict[str, Any]) -> str:
    """The request for another history's targets; KeyError names a target that history lacks."""
    texts = dict(_forms(found, in_path=True))
    return re.sub(r"\{[a-z0-9_]+(?::[a-z]+)?\}", lambda m: texts[m[0]], request)
