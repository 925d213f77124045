"""Address books: which nodes may sign, with which RSA key and how much stake.

A book is a ``NodeAddressBook`` (the contents of file 0.0.102, or of 0.0.101). Per entry:
the account from ``nodeAccountId``, else from ``memo``; the node id from ``nodeId``, else
account number - 3 (``nodeId`` has no presence in proto3, so 0 counts as unset: for the account
0.0.3 both rules give 0); the key from ``RSA_PubKey``, a hex string of an X.509 DER key; the
stake from ``stake``, or one each when every stake is zero. Old books list a node once per
endpoint: entries of one account are merged and must carry the same key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import AddressBookError
from hedera_history.formats.layout import NodeIdentity

_ACCOUNT = re.compile(r"(\d+)\.(\d+)\.(\d+)")


@dataclass(frozen=True, slots=True)
class NodeEntry:
    node_id: int
    account: str
    """``shard.realm.num``, e.g. ``0.0.3``."""
    public_key: RSAPublicKey = field(compare=False, repr=False)
    stake: int
    public_key_der: bytes = field(repr=False)
    """The key as X.509 SubjectPublicKeyInfo DER (what equality compares)."""


@dataclass(frozen=True, slots=True)
class AddressBook:
    nodes: tuple[NodeEntry, ...]

    def __post_init__(self) -> None:
        if not self.nodes:
            raise AddressBookError("address book lists no nodes")
        for attribute in ("account", "node_id"):
            values = [getattr(node, attribute) for node in self.nodes]
            duplicates = sorted({str(v) for v in values if values.count(v) > 1})
            if duplicates:
                raise AddressBookError(f"address book lists {attribute} {', '.join(duplicates)} more than once")
        if any(node.stake < 0 for node in self.nodes):
            raise AddressBookError("address book holds a negative stake")
        if self.total_stake == 0:
            raise AddressBookError("address book holds no stake")

    @property
    def total_stake(self) -> int:
        return sum(node.stake for node in self.nodes)

    def by_account(self, account: str) -> NodeEntry | None:
        return next((node for node in self.nodes if node.account == account), None)

    def by_node_id(self, node_id: int) -> NodeEntry | None:
        return next((node for node in self.nodes if node.node_id == node_id), None)

    def find(self, identity: NodeIdentity) -> NodeEntry | None:
        """The entry a path's node identity names, or None when the book does not list it."""
        if identity.account is not None:
            return self.by_account(identity.account)
        assert identity.node_id is not None
        return self.by_node_id(identity.node_id)

    def account_for_node_id(self, node_id: int) -> str | None:
        node = self.by_node_id(node_id)
        return node.account if node else None

    def node_id_for_account(self, account: str) -> int | None:
        node = self.by_account(account)
        return node.node_id if node else None


def parse_address_book(data: bytes, name: str = "address book") -> AddressBook:
    """``NodeAddressBook`` bytes -> AddressBook; AddressBookError when unusable."""
    book = hapi.NodeAddressBook()
    try:
        book.ParseFromString(data)
    except DecodeError as e:
        raise AddressBookError(f"not a NodeAddressBook protobuf: {e}", file=name) from e
    merged: dict[str, tuple[int, bytes, RSAPublicKey, int]] = {}
    for index, address in enumerate(book.nodeAddress):
        account = _entry_account(address, index, name)
        node_id = address.nodeId if address.nodeId != 0 else _account_num(account) - 3
        if node_id < 0:
            raise AddressBookError(f"entry {index}: account {account} gives no node id", file=name)
        if account in merged:
            if merged[account][1] != _hex_to_der(address.RSA_PubKey, account, name):
                raise AddressBookError(f"entries for {account} carry different keys", file=name, node=account)
            continue
        der = _hex_to_der(address.RSA_PubKey, account, name)
        merged[account] = (node_id, der, _load_rsa_key(der, account, name), address.stake)
    if not merged:
        raise AddressBookError("address book lists no nodes", file=name)
    no_stakes = all(entry[3] == 0 for entry in merged.values())
    return AddressBook(
        tuple(
            NodeEntry(node_id, account, key, 1 if no_stakes else stake, der)
            for account, (node_id, der, key, stake) in merged.items()
        )
    )


def node_entry(account: str, node_id: int, public_key: RSAPublicKey | bytes, stake: int = 1) -> NodeEntry:
    """A NodeEntry from a key object or its DER bytes."""
    if isinstance(public_key, bytes):
        der = public_key
        loaded = _load_rsa_key(der, account, "address book")
    else:
        loaded = public_key
        der = public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    _account_num(account)
    return NodeEntry(node_id=node_id, account=account, public_key=loaded, stake=stake, public_key_der=der)


def address_book_from_keys(
    keys: Iterable[tuple[str, RSAPublicKey]], stakes: Sequence[int] | None = None
) -> AddressBook:
    """A book from (account, key) pairs; node ids are account number - 3, stake one each by default."""
    pairs = list(keys)
    if stakes is not None and len(stakes) != len(pairs):
        raise AddressBookError(f"{len(pairs)} keys but {len(stakes)} stakes")
    return AddressBook(
        tuple(
            node_entry(account, _account_num(account) - 3, key, 1 if stakes is None else stakes[i])
            for i, (account, key) in enumerate(pairs)
        )
    )


def address_book_to_bytes(book: AddressBook) -> bytes:
    """The book as ``NodeAddressBook`` bytes (account in both ``nodeAccountId`` and ``memo``)."""
    message = hapi.NodeAddressBook()
    for node in book.nodes:
        shard, realm, num = (int(part) for part in node.account.split("."))
        address = message.nodeAddress.add()
        address.nodeId = node.node_id
        address.memo = node.account.encode()
        address.nodeAccountId.shardNum = shard
        address.nodeAccountId.realmNum = realm
        address.nodeAccountId.accountNum = num
        address.RSA_PubKey = node.public_key_der.hex()
        address.stake = node.stake
    data: bytes = message.SerializeToString()
    return data


def _entry_account(address: hapi.NodeAddress, index: int, name: str) -> str:
    if address.HasField("nodeAccountId"):
        aid = address.nodeAccountId
        return f"{aid.shardNum}.{aid.realmNum}.{aid.accountNum}"
    memo: str = address.memo.decode("utf-8", errors="replace").strip()
    if not _ACCOUNT.fullmatch(memo):
        raise AddressBookError(
            f"entry {index}: no nodeAccountId, and the memo is not an account: expected shard.realm.num, got {memo!r}",
            file=name,
        )
    return memo


def _account_num(account: str) -> int:
    match = _ACCOUNT.fullmatch(account)
    if match is None:
        raise AddressBookError(f"not an account: expected shard.realm.num, got {account!r}")
    return int(match[3])


def _hex_to_der(hex_key: str, account: str, name: str) -> bytes:
    try:
        der = bytes.fromhex(hex_key.strip())
    except ValueError as e:
        raise AddressBookError(f"RSA_PubKey is not hex: {e}", file=name, node=account) from e
    if not der:
        raise AddressBookError("RSA_PubKey is empty", file=name, node=account)
    return der


def _load_rsa_key(der: bytes, account: str, name: str) -> RSAPublicKey:
    try:
        key = serialization.load_der_public_key(der)
    except (ValueError, UnsupportedAlgorithm) as e:
        raise AddressBookError(f"RSA_PubKey is not an X.509 DER public key: {e}", file=name, node=account) from e
    if not isinstance(key, RSAPublicKey):
        raise AddressBookError(f"RSA_PubKey: expected an RSA key, got {type(key).__name__}", file=name, node=account)
    return key
