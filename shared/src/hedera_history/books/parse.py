"""``NodeAddressBook`` protobuf bytes <-> :class:`~hedera_history.books.address_book.AddressBook`.

A book is a ``NodeAddressBook`` (the contents of file 0.0.102, or of 0.0.101). Per entry:
the account from ``nodeAccountId``, else from ``memo``; the node id from ``nodeId``, else
account number - 3 (``nodeId`` has no presence in proto3, so 0 counts as unset: for the account
0.0.3 both rules give 0); the key from ``RSA_PubKey``, a hex string of an X.509 DER key; the
stake from ``stake``, or one each when every stake is zero. Old books list a node once per
endpoint: entries of one account are merged and must carry the same key.

:func:`address_book_to_bytes` writes the canonical form: what the stores keep (``book/`` rows, the
keeper's and the backfill's state, :mod:`hedera_history.books.codec`) and what fingerprints hash.
"""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.books.address_book import ACCOUNT_PATTERN, AddressBook, NodeEntry, account_num, load_rsa_key
from hedera_history.errors import AddressBookError


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
        node_id = address.nodeId if address.nodeId != 0 else account_num(account) - 3
        if node_id < 0:
            raise AddressBookError(f"entry {index}: account {account} gives no node id", file=name)
        if account in merged:
            if merged[account][1] != _hex_to_der(address.RSA_PubKey, account, name):
                raise AddressBookError(f"entries for {account} carry different keys", file=name, node=account)
            continue
        der = _hex_to_der(address.RSA_PubKey, account, name)
        merged[account] = (node_id, der, load_rsa_key(der, account, name), address.stake)
    if not merged:
        raise AddressBookError("address book lists no nodes", file=name)
    no_stakes = all(entry[3] == 0 for entry in merged.values())
    return AddressBook(
        tuple(
            NodeEntry(node_id, account, key, 1 if no_stakes else stake, der)
            for account, (node_id, der, key, stake) in merged.items()
        )
    )


def parse_or_none(data: bytes, name: str) -> AddressBook | None:
    """The book, or None when ``data`` is not (yet) a usable one: contents in the middle of an
    update and its appends."""
    try:
        return parse_address_book(data, name)
    except AddressBookError:
        return None


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
    if not ACCOUNT_PATTERN.fullmatch(memo):
        raise AddressBookError(
            f"entry {index}: no nodeAccountId, and the memo is not an account: expected shard.realm.num, got {memo!r}",
            file=name,
        )
    return memo


def _hex_to_der(hex_key: str, account: str, name: str) -> bytes:
    try:
        der = bytes.fromhex(hex_key.strip())
    except ValueError as e:
        raise AddressBookError(f"RSA_PubKey is not hex: {e}", file=name, node=account) from e
    if not der:
        raise AddressBookError("RSA_PubKey is empty", file=name, node=account)
    return der
