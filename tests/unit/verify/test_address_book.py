from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from hedera_history import hapi
from hedera_history.books.address_book import AddressBook, address_book_from_keys, node_entry
from hedera_history.books.parse import address_book_to_bytes, parse_address_book
from hedera_history.errors import AddressBookError
from hedera_history.formats.stream_paths import NodeIdentity


def _der(key: rsa.RSAPrivateKey) -> str:
    return (
        key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo).hex()
    )


def _book(*entries: dict[str, Any]) -> bytes:
    message = hapi.NodeAddressBook()
    for entry in entries:
        address = message.nodeAddress.add()
        if "account" in entry:
            shard, realm, num = (int(p) for p in entry["account"].split("."))
            address.nodeAccountId.shardNum, address.nodeAccountId.realmNum = shard, realm
            address.nodeAccountId.accountNum = num
        address.memo = entry.get("memo", b"")
        address.nodeId = entry.get("node_id", 0)
        address.stake = entry.get("stake", 0)
        address.RSA_PubKey = entry["key"]
    return bytes(message.SerializeToString())


def test_round_trip_through_bytes(book: AddressBook):
    parsed = parse_address_book(address_book_to_bytes(book))
    assert parsed == book
    assert [(n.account, n.node_id, n.stake) for n in parsed.nodes] == [
        ("0.0.3", 0, 1),
        ("0.0.4", 1, 1),
        ("0.0.5", 2, 1),
        ("0.0.6", 3, 1),
    ]
    assert parsed.total_stake == 4


def test_account_from_memo_and_node_id_from_account(node_keys):
    data = _book(
        {"memo": b"0.0.5", "key": _der(node_keys[5])},
        {"memo": b" 0.0.3 ", "key": _der(node_keys[3])},
        {"account": "0.0.9", "memo": b"ignored", "node_id": 17, "key": _der(node_keys[4])},
    )
    parsed = parse_address_book(data)
    assert [(n.account, n.node_id) for n in parsed.nodes] == [("0.0.5", 2), ("0.0.3", 0), ("0.0.9", 17)]
    assert parsed.by_account("0.0.9") is parsed.by_node_id(17)
    assert parsed.find(NodeIdentity(node_id=2)) == parsed.by_account("0.0.5")
    assert parsed.find(NodeIdentity(account="0.0.4")) is None
    assert parsed.account_for_node_id(0) == "0.0.3"
    assert parsed.node_id_for_account("0.0.9") == 17
    assert parsed.account_for_node_id(99) is None and parsed.node_id_for_account("0.0.99") is None


def test_keys_verify_what_the_private_key_signs(node_keys):
    parsed = parse_address_book(_book({"memo": b"0.0.3", "key": _der(node_keys[3])}))
    assert parsed.nodes[0].public_key.public_numbers() == node_keys[3].public_key().public_numbers()


def test_stakes_from_the_book_or_one_each(node_keys):
    one_each = parse_address_book(
        _book({"memo": b"0.0.3", "key": _der(node_keys[3])}, {"memo": b"0.0.4", "key": _der(node_keys[4])})
    )
    assert [n.stake for n in one_each.nodes] == [1, 1]
    staked = parse_address_book(
        _book(
            {"memo": b"0.0.3", "key": _der(node_keys[3]), "stake": 5_000_000_000_000_000},
            {"memo": b"0.0.4", "key": _der(node_keys[4])},
        )
    )
    assert [n.stake for n in staked.nodes] == [5_000_000_000_000_000, 0]
    assert staked.total_stake == 5_000_000_000_000_000


def test_entries_of_one_node_merge(node_keys):
    data = _book(
        {"memo": b"0.0.3", "key": _der(node_keys[3])},
        {"memo": b"0.0.3", "key": _der(node_keys[3]).upper()},
        {"memo": b"0.0.4", "key": _der(node_keys[4])},
    )
    assert [n.account for n in parse_address_book(data).nodes] == ["0.0.3", "0.0.4"]


def test_entries_of_one_node_with_different_keys_fail(node_keys):
    data = _book({"memo": b"0.0.3", "key": _der(node_keys[3])}, {"memo": b"0.0.3", "key": _der(node_keys[4])})
    with pytest.raises(AddressBookError, match="different keys"):
        parse_address_book(data)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"memo": b"node three", "key": "00"}, "memo"),
        ({"memo": b"0.0.3", "key": "zz"}, "not hex"),
        ({"memo": b"0.0.3", "key": ""}, "empty"),
        ({"memo": b"0.0.3", "key": "3000"}, "DER"),
        ({"memo": b"0.0.1", "key": "3000"}, "node id"),
    ],
)
def test_bad_entries_fail(entry, message):
    with pytest.raises(AddressBookError, match=message):
        parse_address_book(_book(entry), "book.bin")


def test_a_non_rsa_key_fails():
    ec_key = ec.generate_private_key(ec.SECP256R1()).public_key()
    der = ec_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo).hex()
    with pytest.raises(AddressBookError, match="expected an RSA key"):
        parse_address_book(_book({"memo": b"0.0.3", "key": der}))


def test_empty_and_garbage_books_fail():
    with pytest.raises(AddressBookError, match="no nodes"):
        parse_address_book(b"")
    with pytest.raises(AddressBookError, match="not a NodeAddressBook"):
        parse_address_book(b"\xff\xff\xff\xff")


def test_books_built_from_keys(node_keys):
    built = address_book_from_keys([("0.0.3", node_keys[3].public_key()), ("0.0.7", node_keys[4].public_key())], [3, 1])
    assert [(n.account, n.node_id, n.stake) for n in built.nodes] == [("0.0.3", 0, 3), ("0.0.7", 4, 1)]
    assert built.total_stake == 4
    with pytest.raises(AddressBookError):
        address_book_from_keys([("0.0.3", node_keys[3].public_key())], [1, 2])


def test_book_invariants(node_keys):
    entry = node_entry("0.0.3", 0, node_keys[3].public_key())
    with pytest.raises(AddressBookError, match="more than once"):
        AddressBook((entry, entry))
    with pytest.raises(AddressBookError, match="no stake"):
        AddressBook((node_entry("0.0.3", 0, node_keys[3].public_key(), stake=0),))
    with pytest.raises(AddressBookError):
        AddressBook(())
    with pytest.raises(AddressBookError, match="not an account"):
        node_entry("three", 0, node_keys[3].public_key())
    assert node_entry("0.0.3", 0, entry.public_key_der) == entry
