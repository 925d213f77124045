"""Address books in protobuf's JSON form, as the block node's fixtures give them."""

from __future__ import annotations

import json

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from hedera_history.books.json_book import is_json_book, parse_book_file, parse_json_address_book
from hedera_history.books.parse import address_book_to_bytes
from hedera_history.errors import AddressBookError


def _key_hex(seed: int) -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024 + 8 * seed)
    der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return der.hex()


KEYS = [_key_hex(i) for i in range(3)]


def test_node_ids_and_accounts_when_the_book_names_no_account() -> None:
    # As the block node's address-book.json: node 0 has no nodeId field (proto3's default), ids as strings.
    text = json.dumps({"nodeAddress": [{"RSAPubKey": KEYS[0]}, {"RSAPubKey": KEYS[1], "nodeId": "1"}]})
    book = parse_book_file(("  \n" + text).encode(), "address-book.json")
    assert [(n.node_id, n.account, n.stake) for n in book.nodes] == [(0, "0.0.3", 1), (1, "0.0.4", 1)]
    assert book.nodes[1].public_key_der.hex() == KEYS[1]


def test_accounts_and_stakes_given_are_kept() -> None:
    entry = {
        "RSAPubKey": KEYS[2],
        "nodeId": "5",
        "nodeAccountId": {"shardNum": "0", "realmNum": "0", "accountNum": "8"},
    }
    book = parse_json_address_book(json.dumps({"nodeAddress": [{**entry, "stake": "40"}]}).encode())
    assert [(n.node_id, n.account, n.stake) for n in book.nodes] == [(5, "0.0.8", 40)]


def test_the_binary_form_is_told_apart() -> None:
    book = parse_json_address_book(json.dumps({"nodeAddress": [{"RSAPubKey": KEYS[0]}]}).encode())
    binary = address_book_to_bytes(book)
    assert not is_json_book(binary)
    assert parse_book_file(binary) == book


@pytest.mark.parametrize(
    "text",
    [
        b"{",
        b'{"nodeAddress": 5}',
        b'{"nodeAddress": [{"RSAPubKey": "zz"}]}',
        b"{}",
        b'{"nodeAddress": [{"RSAPubKey": "00", "nodeId": "9223372036854775807"}]}',
        b"{\xff}",
    ],
)
def test_a_bad_json_book_is_an_address_book_error(text: bytes) -> None:
    with pytest.raises(AddressBookError):
        parse_book_file(text, "address-book.json")
