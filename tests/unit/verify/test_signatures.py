from __future__ import annotations

import pytest
from hedera_history.books.address_book import AddressBook, NodeEntry
from hedera_history.errors import BadSignatureError
from hedera_history.formats.hashing import sha384
from hedera_history.formats.parsed_files import SignatureFile
from hedera_history.verify.signatures import sign_hash, verify_node_signature

FILE_HASH = sha384(b"file")
METADATA_HASH = sha384(b"metadata")


def _node(book: AddressBook, account: str) -> NodeEntry:
    node = book.by_account(account)
    assert node is not None
    return node


def _signature(key, *, file_hash=FILE_HASH, metadata_hash=METADATA_HASH, version=6) -> SignatureFile:
    return SignatureFile(
        name="2022-07-13T08_46_11.304284003Z.rcd_sig",
        version=version,
        file_hash=file_hash,
        file_signature=sign_hash(key, file_hash),
        metadata_hash=metadata_hash,
        metadata_signature=sign_hash(key, metadata_hash) if metadata_hash is not None else None,
    )


def test_good_signatures_verify(node_keys, book: AddressBook):
    verify_node_signature(_signature(node_keys[3]), _node(book, "0.0.3"))


def test_v2_signature_without_metadata_verifies(node_keys, book: AddressBook):
    verify_node_signature(_signature(node_keys[4], metadata_hash=None, version=2), _node(book, "0.0.4"))


def test_another_nodes_key_fails_and_names_file_and_node(node_keys, book: AddressBook):
    with pytest.raises(BadSignatureError) as caught:
        verify_node_signature(_signature(node_keys[3]), _node(book, "0.0.4"))
    assert caught.value.node == "0.0.4"
    assert caught.value.file == "2022-07-13T08_46_11.304284003Z.rcd_sig"
    assert "file signature" in caught.value.reason


@pytest.mark.parametrize("field", ["file_signature", "metadata_signature"])
def test_a_flipped_bit_fails(node_keys, book: AddressBook, field):
    good = _signature(node_keys[5])
    signature = bytearray(getattr(good, field))
    signature[100] ^= 0x01
    bad = SignatureFile(**{**{f: getattr(good, f) for f in good.__slots__}, field: bytes(signature)})
    with pytest.raises(BadSignatureError, match=field.split("_")[0]):
        verify_node_signature(bad, _node(book, "0.0.5"))


def test_a_signature_over_another_hash_fails(node_keys, book: AddressBook):
    good = _signature(node_keys[6])
    lying = SignatureFile(
        good.name, 6, sha384(b"other"), good.file_signature, good.metadata_hash, good.metadata_signature
    )
    with pytest.raises(BadSignatureError):
        verify_node_signature(lying, _node(book, "0.0.6"))


def test_truncated_signature_fails(node_keys, book: AddressBook):
    good = _signature(node_keys[3])
    short = SignatureFile(good.name, 6, FILE_HASH, good.file_signature[:-1], METADATA_HASH, good.metadata_signature)
    with pytest.raises(BadSignatureError):
        verify_node_signature(short, _node(book, "0.0.3"))


def test_metadata_hash_without_its_signature_fails(node_keys, book: AddressBook):
    good = _signature(node_keys[3])
    half = SignatureFile(good.name, 6, FILE_HASH, good.file_signature, METADATA_HASH, None)
    with pytest.raises(BadSignatureError, match="together"):
        verify_node_signature(half, _node(book, "0.0.3"))
