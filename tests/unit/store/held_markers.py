"""A block built in item ranges holds the whole block's cells and, for a pair whose balance changes
in several ranges, the token index's ``held`` marker of each range (``store.token_index``: one
marker per (account, token) per row set built): what the range tests compare, the rest cell for cell."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

from hedera_history.store.token_index import HELD, RELATION_PREFIX

K = TypeVar("K")
_SUFFIX = b"/" + HELD.encode()


def is_held_marker(key: bytes) -> bool:
    return key.startswith(RELATION_PREFIX) and key.endswith(_SUFFIX)


def held_pair(key: bytes) -> bytes:
    """``<account>/<token>`` of a ``held`` marker."""
    _, account, token, _ = key.split(b"/", 3)
    return account + b"/" + token


def assert_whole_and_range_markers(
    parts: Mapping[K, object], whole: Mapping[K, object], row_key: Callable[[K], bytes | None]
) -> None:
    """``parts`` hold every entry of ``whole``, and beyond it only ``held`` markers (``row_key``:
    an entry's ``account_history`` row key, None for another table's) of pairs the whole marks."""
    assert all(parts.get(name) == value for name, value in whole.items())
    extra = [row_key(name) for name in parts.keys() - whole.keys()]
    assert all(key is not None and is_held_marker(key) for key in extra), extra
    marked = {held_pair(key) for key in map(row_key, whole) if key is not None and is_held_marker(key)}
    assert {held_pair(key) for key in extra if key is not None} <= marked
