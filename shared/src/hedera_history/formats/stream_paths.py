"""Bucket layouts: where each node's stream files live.

Two layouts, each after any prefix (a bucket folder, a local directory):

- ``ACCOUNT``: ``recordstreams/record<shard.realm.num>/<file>``, sidecars under ``sidecar/``;
- ``NODE_ID``: ``<network>/<shard>/<nodeId>/record/<file>``, sidecars under ``sidecar/``.

A path names a node either by account or by node id; the address book in force maps one to the
other (see :class:`NodeDirectory`, which ``books.address_book.AddressBook`` satisfies).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from hedera_history.errors import FileNameError
from hedera_history.formats.names import StreamFileKind, StreamFileName, parse_stream_file_name

_ACCOUNT = re.compile(r"(?P<prefix>(?:.*/)?)recordstreams/record(?P<account>\d+\.\d+\.\d+)/(?P<sidecar>sidecar/)?")
_NODE_ID = re.compile(
    r"(?P<prefix>(?:.*/)?)(?P<network>[^/]+)/(?P<shard>\d+)/(?P<node_id>\d+)/record/(?P<sidecar>sidecar/)?"
)


class BucketLayout(Enum):
    ACCOUNT = "account"
    """``recordstreams/record0.0.3/<file>``"""
    NODE_ID = "node_id"
    """``<network>/<shard>/<nodeId>/record/<file>``"""


@dataclass(frozen=True, slots=True)
class NodeIdentity:
    """How a path names a node: by account (``0.0.3``) or by node id; exactly one is set."""

    account: str | None = None
    node_id: int | None = None

    def __post_init__(self) -> None:
        if (self.account is None) == (self.node_id is None):
            raise FileNameError(f"a node is named by account or by node id, got {self.account!r}, {self.node_id!r}")

    def __str__(self) -> str:
        return self.account if self.account is not None else f"node {self.node_id}"


class NodeDirectory(Protocol):
    """Node id <-> account mapping (an address book)."""

    def account_for_node_id(self, node_id: int) -> str | None: ...

    def node_id_for_account(self, account: str) -> int | None: ...


@dataclass(frozen=True, slots=True)
class ObjectPath:
    """A stream file's path, taken apart."""

    layout: BucketLayout
    prefix: str
    """Everything before the layout's own folders (``""`` or ending in ``/``)."""
    node: NodeIdentity
    file: StreamFileName
    network: str | None = None
    """NODE_ID layout only."""
    shard: int | None = None
    """NODE_ID layout only."""

    @property
    def is_sidecar(self) -> bool:
        return self.file.kind is StreamFileKind.SIDECAR

    @property
    def path(self) -> str:
        return self.sibling(self.file)

    def sibling(self, file: StreamFileName) -> str:
        """The path of another file of the same node in the same layout (its signature, a sidecar)."""
        return object_path(
            self.layout,
            self.node,
            file,
            prefix=self.prefix,
            network=self.network or "",
            shard=self.shard or 0,
        )


def parse_object_path(path: str) -> ObjectPath:
    """Take a path apart; FileNameError when it is not a stream file in a known layout."""
    folder, _, base = path.rpartition("/")
    file = parse_stream_file_name(base)
    folder += "/"
    account_match = _ACCOUNT.fullmatch(folder)
    if account_match is not None:
        _check_sidecar_folder(file, account_match["sidecar"] is not None, path)
        return ObjectPath(
            BucketLayout.ACCOUNT,
            account_match["prefix"],
            NodeIdentity(account=account_match["account"]),
            file,
        )
    node_match = _NODE_ID.fullmatch(folder)
    if node_match is not None:
        _check_sidecar_folder(file, node_match["sidecar"] is not None, path)
        return ObjectPath(
            BucketLayout.NODE_ID,
            node_match["prefix"],
            NodeIdentity(node_id=int(node_match["node_id"])),
            file,
            network=node_match["network"],
            shard=int(node_match["shard"]),
        )
    raise FileNameError(
        "not in a known bucket layout: expected .../recordstreams/record<account>/[sidecar/]<file> "
        "or .../<network>/<shard>/<nodeId>/record/[sidecar/]<file>",
        file=path,
    )


def object_path(
    layout: BucketLayout,
    node: NodeIdentity,
    file: StreamFileName | str,
    *,
    prefix: str = "",
    network: str = "",
    shard: int = 0,
    directory: NodeDirectory | None = None,
) -> str:
    """The path of ``file`` for ``node`` in ``layout``; ``directory`` maps node ids and accounts."""
    name = file if isinstance(file, StreamFileName) else parse_stream_file_name(file)
    if prefix and not prefix.endswith("/"):
        prefix += "/"
    sidecar = "sidecar/" if name.kind is StreamFileKind.SIDECAR else ""
    if layout is BucketLayout.ACCOUNT:
        account = node_account(node, directory)
        return f"{prefix}recordstreams/record{account}/{sidecar}{name}"
    if not network or "/" in network:
        raise FileNameError(f"the node-id layout needs a network name without '/', got {network!r}", file=str(name))
    return f"{prefix}{network}/{shard}/{node_id_of(node, directory)}/record/{sidecar}{name}"


def node_account(node: NodeIdentity, directory: NodeDirectory | None = None) -> str:
    """The node's account, through ``directory`` when the identity is a node id."""
    if node.account is not None:
        return node.account
    assert node.node_id is not None
    account = directory.account_for_node_id(node.node_id) if directory is not None else None
    if account is None:
        raise FileNameError(f"no account known for node id {node.node_id}: the address book does not list it")
    return account


def node_id_of(node: NodeIdentity, directory: NodeDirectory | None = None) -> int:
    """The node's id, through ``directory`` when the identity is an account."""
    if node.node_id is not None:
        return node.node_id
    assert node.account is not None
    node_id = directory.node_id_for_account(node.account) if directory is not None else None
    if node_id is None:
        raise FileNameError(f"no node id known for account {node.account}: the address book does not list it")
    return node_id


def _check_sidecar_folder(file: StreamFileName, in_sidecar_folder: bool, path: str) -> None:
    if (file.kind is StreamFileKind.SIDECAR) != in_sidecar_folder:
        where = "outside" if in_sidecar_folder is False else "inside"
        raise FileNameError(f"{file.kind.value} file {where} a sidecar/ folder", file=path)
