"""The address book in memory: which nodes may sign, with which RSA key and how much stake.

A book's entries are merged per account and carry the node id, the account, the key (loaded and
as X.509 DER) and the stake. Equality compares the DER key, so two parses of one book are equal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

from hedera_history.errors import AddressBookError
from hedera_history.formats.stream_paths import NodeIdentity

ACCOUNT_PATTERN = re.compile(r"(\d+)\.(\d+)\.(\d+)")
"""``shard.realm.num``."""


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


def node_entry(account: str, node_id: int, public_key: RSAPublicKey | bytes, stake: int = 1) -> NodeEntry:
    """A NodeEntry from a key object or its DER bytes."""
    if isinstance(public_key, bytes):
        der = public_key
        loaded = load_rsa_key(der, account, "address book")
    else:
        loaded = public_key
        der = public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    account_num(account)
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
            node_entry(account, account_num(account) - 3, key, 1 if stakes is None else stakes[i])
            for i, (account, key) in enumerate(pairs)
        )
    )


def account_num(account: str) -> int:
    """The ``num`` of ``shard.realm.num``; AddressBookError for anything else."""
    match = ACCOUNT_PATTERN.fullmatch(account)
    if match is None:
        raise AddressBookError(f"not an account: expected shard.realm.num, got {account!r}")
    return int(match[3])


def load_rsa_key(der: bytes, account: str, name: str) -> RSAPublicKey:
    """An X.509 DER RSA public key; AddressBookError naming the book ``name`` and the node otherwise."""
    try:
        key = serialization.load_der_public_key(der)
    except (ValueError, UnsupportedAlgorithm) as e:
        raise AddressBookError(f"RSA_PubKey is not an X.509 DER public key: {e}", file=name, node=account) from e
    if not isinstance(key, RSAPublicKey):
        raise AddressBookError(f"RSA_PubKey: expected an RSA key, got {type(key).__name__}", file=name, node=account)
    return key
