"""The generated network's address books (file 0.0.102) and how an update is split into chunks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cryptography.hazmat.primitives.asymmetric import rsa

from hedera_history.books.address_book import AddressBook, node_entry
from hedera_history.books.parse import address_book_to_bytes
from hedera_history.gen.config_and_output import NodeInfo
from hedera_history.gen.keys import public_der

FILE_CHUNK_BYTES = 4096
"""Largest chunk of file contents one FileUpdate or FileAppend carries here (real limits are near this)."""


def address_book_bytes(
    nodes: Sequence[NodeInfo], keys: Mapping[tuple[int, int], rsa.RSAPrivateKey], generations: Sequence[int]
) -> bytes:
    """``NodeAddressBook`` bytes listing every node with the key of its current generation."""
    book = AddressBook(
        tuple(
            node_entry(
                node.account,
                node.node_id,
                public_der(keys[(node.node_id, generations[node.node_id])]),
                node.stake,
            )
            for node in nodes
        )
    )
    return address_book_to_bytes(book)


def file_chunks(contents: bytes) -> list[bytes]:
    """Contents split for a FileUpdate and FileAppends: at least two chunks (a real book never fits
    one transaction, so readers must join them), none over :data:`FILE_CHUNK_BYTES`."""
    count = max(2, -(-len(contents) // FILE_CHUNK_BYTES))
    size = -(-len(contents) // count)
    return [contents[i : i + size] for i in range(0, len(contents), size)]
