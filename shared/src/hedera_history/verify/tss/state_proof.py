"""Block state proofs: a block proven through a later block's TSS signature.

A ``StateProof`` carries Merkle paths. A path with content is a *leaf*: a hash (a block root, taken
as is) or a timestamp, block item or state item (hashed as a leaf, ``SHA-384(0x00 ‖ bytes)``); a
path without content is a *join point*. Walking a leaf folds in its siblings (``is_left`` puts the
sibling first, ``SHA-384(0x02 ‖ left ‖ right)``; a sibling without a hash is a single-child node,
``SHA-384(0x01 ‖ child)``), then follows ``next_path_index`` from join point to join point; the
first walk to reach a join point waits there, the second merges with it (the one that started from
the lower path index goes left) and goes on with the join point's own siblings. The walk that
reaches index −1 (``0xFFFFFFFF`` in the unsigned field) has the *signed root*: the root of the later
block, which the proof's TSS signature signs. The rules (and the rejections: fewer than three paths,
an index out of range, a leaf where a join point must be, a path never visited, a join point left
waiting, no hash leaf equal to the proven block's root) follow the block node's
``StateProofVerifier``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import TssStateProofError

MIN_PATHS = 3
_CONTENT_KINDS = ("hash", "timestamp_leaf", "block_item_leaf", "state_item_leaf")
_NS_PER_SECOND = 1_000_000_000


@dataclass(frozen=True)
class Sibling:
    hash: bytes
    is_left: bool


@dataclass(frozen=True)
class MerklePath:
    content_kind: str | None
    """``hash``, ``timestamp_leaf``, ``block_item_leaf``, ``state_item_leaf``, or ``None`` for a join point."""
    content: bytes
    siblings: tuple[Sibling, ...]
    next_path_index: int
    """Signed: −1 marks the final join."""

    @property
    def is_leaf(self) -> bool:
        return self.content_kind is not None


@dataclass(frozen=True)
class SignedRoot:
    root: bytes
    """The root the proof's signature signs (the later block's root)."""
    timestamp_ns: int | None
    """The time of the signed block, from the proof's one timestamp leaf (``None`` without one)."""


def merkle_paths(messages: Iterable[Any]) -> tuple[MerklePath, ...]:
    """The paths of a parsed ``StateProof`` (``hiero_sdk_python.hapi.block.stream`` messages)."""
    paths = []
    for message in messages:
        kind = message.WhichOneof("content")
        content = bytes(getattr(message, kind)) if kind in _CONTENT_KINDS else b""
        paths.append(
            MerklePath(
                content_kind=kind if content else None,
                content=content,
                siblings=tuple(Sibling(bytes(s.hash), bool(s.is_left)) for s in message.siblings),
                next_path_index=_signed_int32(int(message.next_path_index)),
            )
        )
    return tuple(paths)


def walk_state_proof(paths: Sequence[MerklePath], block_root: bytes) -> SignedRoot:
    """The signed root the paths lead to from ``block_root``, or the reason they do not."""
    if len(paths) < MIN_PATHS:
        raise TssStateProofError(f"expected at least {MIN_PATHS} Merkle paths but got {len(paths)}")
    walk = _Walk(paths)
    for start, path in enumerate(paths):
        if walk.signed_root is not None:
            break
        if path.is_leaf:
            walk.visited[start] = True
            walk.follow(start, _fold_siblings(path, walk.leaf_value(path)))
    if walk.waiting:
        raise TssStateProofError(f"join points {sorted(walk.waiting)} wait for a second path that never comes")
    unvisited = [index for index, seen in enumerate(walk.visited) if not seen]
    if unvisited:
        raise TssStateProofError(f"paths {unvisited} are never reached")
    if walk.signed_root is None:
        raise TssStateProofError("no path reaches the final join (next path index −1)")
    if block_root not in walk.hash_leaves:
        raise TssStateProofError("no hash leaf of the proof is the block's root")
    return SignedRoot(walk.signed_root, _timestamp_ns(paths))


class _Walk:
    def __init__(self, paths: Sequence[MerklePath]) -> None:
        self.paths = paths
        self.visited = [False] * len(paths)
        self.waiting: dict[int, tuple[int, bytes]] = {}
        """Join point index -> (lowest path index the waiting value started from, the value)."""
        self.hash_leaves: list[bytes] = []
        self.signed_root: bytes | None = None

    def leaf_value(self, path: MerklePath) -> bytes:
        if path.content_kind == "hash":
            self.hash_leaves.append(path.content)
            return path.content
        return _leaf(path.content)

    def follow(self, start: int, value: bytes) -> None:
        lowest = start
        index = self.paths[start].next_path_index
        while index >= 0:
            if index >= len(self.paths):
                raise TssStateProofError(f"a next path index {index} is past the last path ({len(self.paths) - 1})")
            join = self.paths[index]
            self.visited[index] = True
            if join.is_leaf:
                raise TssStateProofError(f"path {index} is a leaf where a join point must be")
            if index not in self.waiting:
                self.waiting[index] = (lowest, value)
                return
            other_start, other_value = self.waiting.pop(index)
            if other_start in (start, lowest):
                raise TssStateProofError(f"join point {index} is reached twice from path {other_start}")
            if other_start < lowest:
                value, lowest = _node(other_value, value), other_start
            else:
                value = _node(value, other_value)
            value = _fold_siblings(join, value)
            index = join.next_path_index
        self.signed_root = value


def _fold_siblings(path: MerklePath, value: bytes) -> bytes:
    for sibling in path.siblings:
        if not sibling.hash:
            value = _single_child(value)
        elif sibling.is_left:
            value = _node(sibling.hash, value)
        else:
            value = _node(value, sibling.hash)
    return value


def _timestamp_ns(paths: Sequence[MerklePath]) -> int | None:
    leaves = [path.content for path in paths if path.content_kind == "timestamp_leaf"]
    if len(leaves) != 1:
        return None
    try:
        timestamp = hapi.Timestamp.FromString(leaves[0])
    except DecodeError as e:
        raise TssStateProofError(f"the timestamp leaf does not parse: {e}") from e
    return int(timestamp.seconds) * _NS_PER_SECOND + int(timestamp.nanos)


def _signed_int32(value: int) -> int:
    return value - (1 << 32) if value >= 1 << 31 else value


def _leaf(data: bytes) -> bytes:
    return hashlib.sha384(b"\x00" + data).digest()


def _single_child(child: bytes) -> bytes:
    return hashlib.sha384(b"\x01" + child).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha384(b"\x02" + left + right).digest()
