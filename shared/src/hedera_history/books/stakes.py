"""Node stakes from the stream, and the consensus weight of each node in the book in force.

The one home of "what weights consensus", following the mirror node (``addressbook/
ConsensusNodeWrapper.java``, ``AddressBookServiceImpl.getNodes``, ``NodeStakeUpdateTransactionHandler``):

- A successful ``NodeStakeUpdate`` transaction carries every node's ``NodeStake``; its ``stake``
  field (not ``stake_rewarded`` or ``stake_not_rewarded``) is the node's weight. The latest such
  transaction is in force (the mirror node reads the rows of the greatest consensus timestamp), and
  it replaces the whole table: a node it does not list has no stake. A failed update, or one with
  an empty ``node_stake`` list, changes nothing. A node listed twice keeps its last entry.
- Stakes take effect for the periods after the block that carried them, as address books do.
- Weights (:func:`weigh`): the book decides which nodes count and with which keys, the stakes how
  much. A book node without a stake entry weighs 0; the total is the sum over the book's nodes only
  (stakes of nodes outside the book are ignored); when that total is 0 every book node weighs 1.
- Before the stream has shown any ``NodeStakeUpdate`` the book's own ``stake`` field is used (one
  each when all are zero), where the mirror node counts one each whatever the book says. The two
  agree on every book from before staking (2019-2022: all zero); recent public books carry small
  per-node weights there, which weigh the periods between a mid-history start and the next daily
  update (the mirror node, run from genesis, would use the last NodeStake instead).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from hedera_history import hapi
from hedera_history.books.address_book import AddressBook
from hedera_history.errors import AddressBookError, CorruptFileError

_ENTRY = struct.Struct(">qq")


@dataclass(frozen=True, slots=True)
class NodeStakes:
    """The node stake table in force: node id -> stake (tinybars), by node id."""

    entries: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        if not self.entries:
            raise AddressBookError("a node stake table lists no node")

    @classmethod
    def of(cls, stakes: Mapping[int, int] | Iterable[tuple[int, int]]) -> NodeStakes:
        pairs = stakes.items() if isinstance(stakes, Mapping) else stakes
        table: dict[int, int] = {}
        for node_id, stake in pairs:
            table[int(node_id)] = int(stake)  # a node listed twice keeps its last entry
        return cls(tuple(sorted(table.items())))

    def stake_of(self, node_id: int) -> int:
        """The node's stake; 0 when the table does not list it."""
        return dict(self.entries).get(node_id, 0)

    def encode(self) -> bytes:
        """``i64 node id, i64 stake`` per entry, by node id: equal tables give equal bytes."""
        return b"".join(_ENTRY.pack(node_id, stake) for node_id, stake in self.entries)

    @classmethod
    def decode(cls, data: bytes) -> NodeStakes:
        if len(data) % _ENTRY.size:
            raise CorruptFileError(f"node stakes: {len(data)} bytes is not a whole number of entries")
        return cls(tuple((int(a), int(b)) for a, b in _ENTRY.iter_unpack(data)))


def weigh(book: AddressBook, stakes: NodeStakes | None) -> AddressBook:
    """The book with each node's consensus weight as its ``stake`` (see the module docstring)."""
    if stakes is None:
        return book
    weights = [max(stakes.stake_of(node.node_id), 0) for node in book.nodes]
    if sum(weights) == 0:
        weights = [1] * len(book.nodes)
    return AddressBook(tuple(replace(node, stake=w) for node, w in zip(book.nodes, weights, strict=True)))


def stake_update(body: hapi.TransactionBody) -> NodeStakes | None:
    """The stake table a ``NodeStakeUpdate`` body carries (None: another kind, or an empty list).
    Whether the transaction succeeded is the caller's to check."""
    if body.WhichOneof("data") != "node_stake_update":
        return None
    listed = body.node_stake_update.node_stake
    if not listed:
        return None
    return NodeStakes.of((entry.node_id, entry.stake) for entry in listed)


def node_stake_update_body(stakes: Mapping[int, int], *, seconds: int = 0) -> hapi.TransactionBody:
    """A ``NodeStakeUpdate`` body listing ``stakes`` (node id -> stake), for tests that build a
    stream by hand. ``seconds``: the end of the staking period."""
    body = hapi.TransactionBody()
    update = body.node_stake_update
    update.end_of_staking_period.seconds = seconds
    for node_id, stake in stakes.items():
        entry = update.node_stake.add()
        entry.node_id = node_id
        entry.stake = stake
        entry.stake_rewarded = stake
    return body


def decode_stakes_or_none(data: bytes | None) -> NodeStakes | None:
    """:meth:`NodeStakes.decode`, with empty bytes or None meaning no table."""
    return NodeStakes.decode(data) if data else None
