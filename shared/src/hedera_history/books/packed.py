"""A book's keys as bytes instead of hex text: the checkpoint book at half its size, exactly
recoverable (``PackedBook`` in proof.proto)."""

from __future__ import annotations

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import ProofFormatError
from hedera_history.proto_gen.proof_pb2 import PackedBook


def pack_book(data: bytes) -> PackedBook | None:
    """The packed form of ``data``, or None when unpacking would not give ``data`` back (keys not in
    lowercase hex, or an encoding protobuf does not reproduce)."""
    try:
        book = hapi.NodeAddressBook.FromString(data)
    except DecodeError:
        return None
    keys: list[bytes] = []
    for address in book.nodeAddress:
        text = address.RSA_PubKey
        try:
            key = bytes.fromhex(text)
        except ValueError:
            return None
        if key.hex() != text:
            return None
        keys.append(key)
        address.RSA_PubKey = ""
    packed = PackedBook(book_without_keys=book.SerializeToString(deterministic=True), keys=keys)
    return packed if unpack_book(packed, check=False) == data else None


def unpack_book(packed: PackedBook, *, check: bool = True) -> bytes:
    """The book's bytes; ProofFormatError when ``packed`` is not the packed form of them."""
    try:
        book = hapi.NodeAddressBook.FromString(packed.book_without_keys)
    except DecodeError as e:
        raise ProofFormatError(f"packed checkpoint book: {e}") from e
    if len(book.nodeAddress) != len(packed.keys):
        raise ProofFormatError(f"packed checkpoint book: {len(book.nodeAddress)} entries but {len(packed.keys)} keys")
    for address, key in zip(book.nodeAddress, packed.keys, strict=True):
        if address.RSA_PubKey:
            raise ProofFormatError("packed checkpoint book: an entry keeps its key as text")
        address.RSA_PubKey = key.hex()
    data: bytes = book.SerializeToString(deterministic=True)
    if check and pack_book(data) != packed:
        raise ProofFormatError("packed checkpoint book: not the packed form of the book it gives")
    return data
