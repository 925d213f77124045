from __future__ import annotations

import pytest
from hedera_history import hapi
from hedera_history.books.address_book import AddressBook, address_book_from_keys
from hedera_history.books.parse import address_book_to_bytes
from hedera_history.books.updates import AddressBookTracker
from hedera_history.errors import CorruptFileError
from hedera_history.formats.hashing import sha384
from hedera_history.formats.parsed_files import RecordFile, RecordItem
from hedera_history.formats.transactions import transaction_body

from .streamkit import file_transaction, record_bytes, transaction_bytes

FAIL = hapi.ResponseCodeEnum.Value("INVALID_SIGNATURE")


def _block(*items: tuple[bytes] | tuple[bytes, int], name: str = "b.rcd.gz") -> RecordFile:
    built = tuple(RecordItem(tx, record_bytes(1000 + i, *extra), 1000 + i) for i, (tx, *extra) in enumerate(items))
    return RecordFile(name, 6, (0, 28, 0), built, sha384(b""), None, None, None, None, None, 1)


@pytest.fixture(scope="module")
def new_book(node_keys, spare_key) -> AddressBook:
    keys = [(f"0.0.{n}", k.public_key()) for n, k in node_keys.items()][:3]
    keys.append(("0.0.7", spare_key.public_key()))
    return address_book_from_keys(keys)


def test_a_whole_book_in_one_update(book, new_book):
    tracker = AddressBookTracker(book)
    assert tracker.apply_block(_block((transaction_bytes(),))) is None
    changed = tracker.apply_block(_block((file_transaction("update", 102, address_book_to_bytes(new_book)),)))
    assert changed == new_book and tracker.book == new_book
    # the same contents again change nothing
    assert tracker.apply_block(_block((file_transaction("update", 102, address_book_to_bytes(new_book)),))) is None


def test_an_update_and_appends_across_blocks(book, new_book):
    data = address_book_to_bytes(new_book)
    cut = [data[:700], data[700:1500], data[1500:]]
    tracker = AddressBookTracker(book)
    assert tracker.apply_block(_block((file_transaction("update", 102, cut[0]),))) is None
    assert tracker.book == book
    assert tracker.apply_block(_block((file_transaction("append", 102, cut[1]),))) is None
    assert tracker.apply_block(_block((file_transaction("append", 102, cut[2]),))) == new_book
    assert tracker.contents[102] == data


def test_an_update_and_appends_in_one_block(book, new_book):
    data = address_book_to_bytes(new_book)
    tracker = AddressBookTracker(book)
    block = _block(
        (file_transaction("update", 102, data[:500]),),
        (transaction_bytes(),),
        (file_transaction("append", 102, data[500:]),),
    )
    assert tracker.apply_block(block) == new_book


def test_failed_transactions_and_other_files_are_ignored(book, new_book):
    data = address_book_to_bytes(new_book)
    tracker = AddressBookTracker(book)
    assert tracker.apply_block(_block((file_transaction("update", 102, data), FAIL))) is None
    assert tracker.apply_block(_block((file_transaction("update", 150, data),))) is None
    assert tracker.apply_block(_block((file_transaction("append", 102, data),))) is None  # nothing to append to
    assert tracker.book == book and tracker.contents == {}


def test_0_0_101_is_tracked_but_not_authoritative(book, new_book):
    tracker = AddressBookTracker(book)
    assert tracker.apply_block(_block((file_transaction("update", 101, address_book_to_bytes(new_book)),))) is None
    assert tracker.book == book and tracker.endpoint_book == new_book


def test_an_update_without_contents_keeps_them(book, new_book):
    tracker = AddressBookTracker(book, contents={102: address_book_to_bytes(book)})
    assert tracker.apply_block(_block((file_transaction("update", 102, b""),))) is None
    assert tracker.apply_block(_block((file_transaction("append", 102, b""),))) is None
    assert tracker.contents[102] == address_book_to_bytes(book)


def test_other_shards_files_are_not_the_book(book, new_book):
    tracker = AddressBookTracker(book, shard=1)
    assert tracker.apply_block(_block((file_transaction("update", 102, address_book_to_bytes(new_book)),))) is None


@pytest.mark.parametrize("how", ["signed", "body_bytes", "deprecated_body"])
def test_transaction_bodies_in_every_encoding(how):
    body = hapi.TransactionBody(memo="hello")
    assert transaction_body(transaction_bytes(body, how=how)).memo == "hello"


def test_an_undecodable_transaction_is_corrupt(book):
    with pytest.raises(CorruptFileError):
        transaction_body(b"\x0a\x05\xff", "x.rcd")
    with pytest.raises(CorruptFileError):
        AddressBookTracker(book).apply_block(_block((b"\x2a\x03\xff\xff\xff",)))
