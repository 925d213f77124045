"""Address books in protobuf's JSON form (``{"nodeAddress": [{"RSAPubKey": ..., "nodeId": "1"}]}``),
as the block node's fixtures give them (``address-book.json``), beside the binary form.

The JSON is read into HAPI's ``NodeAddressBook`` by protobuf's own JSON parser and then goes through
:func:`~hedera_history.books.parse.parse_address_book`, so the same rules hold. Such books may name
no account at all (no ``nodeAccountId``, no ``memo``); an entry without one gets ``0.0.(nodeId + 3)``,
the inverse of the account − 3 rule that gives a node id to a book without node ids (an entry
without ``nodeId`` is node 0, as proto3 reads it). Block proofs name signers by node id, so the
accounts only label them.
"""

from __future__ import annotations

from google.protobuf import json_format

from hedera_history import hapi
from hedera_history.books.address_book import AddressBook
from hedera_history.books.parse import parse_address_book
from hedera_history.errors import AddressBookError

_FIRST_NODE_ACCOUNT = 3


def is_json_book(data: bytes) -> bool:
    """A JSON book starts with ``{`` (after any whitespace); a ``NodeAddressBook`` never does
    (0x7B would be field 15 as a group)."""
    return data.lstrip()[:1] == b"{"


def parse_json_address_book(data: bytes, name: str = "address book") -> AddressBook:
    return parse_address_book(_json_book_bytes(data, name), name)


def _json_book_bytes(data: bytes, name: str) -> bytes:
    """The ``NodeAddressBook`` bytes of a JSON book, every entry with an account."""
    try:
        book = json_format.Parse(data.decode("utf-8"), hapi.NodeAddressBook(), ignore_unknown_fields=True)
    except (json_format.ParseError, UnicodeDecodeError, RecursionError) as e:
        raise AddressBookError(f"not a NodeAddressBook in JSON: {e}", file=name) from e
    for index, address in enumerate(book.nodeAddress):
        if not address.HasField("nodeAccountId") and not address.memo:
            try:
                address.nodeAccountId.accountNum = address.nodeId + _FIRST_NODE_ACCOUNT
            except ValueError as e:
                raise AddressBookError(f"entry {index}: node id {address.nodeId} gives no account", file=name) from e
    data_bytes: bytes = book.SerializeToString()
    return data_bytes


def parse_book_file(data: bytes, name: str = "address book") -> AddressBook:
    """A book file in either form: JSON when it starts with ``{``, else ``NodeAddressBook`` bytes."""
    return parse_json_address_book(data, name) if is_json_book(data) else parse_address_book(data, name)


def book_file_contents(data: bytes, name: str = "address book") -> bytes:
    """A book file in either form as the ``NodeAddressBook`` bytes file 0.0.102 would hold: what a
    stored book keeps beside its canonical form (endpoints, certificate hashes, descriptions)."""
    return _json_book_bytes(data, name) if is_json_book(data) else data
