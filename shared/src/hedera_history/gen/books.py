"""The generated network's address books (file 0.0.102) and how an update is split into chunks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cryptography.hazmat.primitives.asymmetric import rsa

from hedera_history import hapi
from hedera_history.books.address_book import AddressBook, node_entry
from hedera_history.books.parse import address_book_to_bytes
from hedera_history.formats.hashing import sha384
from hedera_history.gen.config_and_output import NodeInfo
from hedera_history.gen.keys import public_der

ENDPOINT_PORTS = (50211, 50212)
FILE_CHUNK_BYTES = 4096
"""Largest chunk of file contents one FileUpdate or FileAppend carries here (real limits are near this)."""


def address_book_bytes(
    nodes: Sequence[NodeInfo],
    keys: Mapping[tuple[int, int], rsa.RSAPrivateKey],
    generations: Sequence[int],
    *,
    endpoints_seed: int | None = None,
) -> bytes:
    """``NodeAddressBook`` bytes listing every node with the key of its current generation; with
    ``endpoints_seed`` each entry also carries service endpoints, a certificate hash and a
    description (:func:`with_endpoints`)."""
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
    data = address_book_to_bytes(book)
    return data if endpoints_seed is None else with_endpoints(data, endpoints_seed)


def with_endpoints(book: bytes, seed: int) -> bytes:
    """The book with what mainnet's entries carry besides keys: two service endpoints per node
    (IPv4 ``10.0.<node id / 250>.<node id % 250 + 1>``, ports 50211 and 50212, as mainnet's plain
    and TLS gRPC ports), the node's TLS certificate hash (hex of the SHA-384 of a seed-derived
    stand-in certificate, as UTF-8, the form mainnet's books hold) and a description."""
    message = hapi.NodeAddressBook.FromString(book)
    for address in message.nodeAddress:
        node_id = address.nodeId
        ip = bytes((10, 0, node_id // 250, node_id % 250 + 1))
        for port in ENDPOINT_PORTS:
            address.serviceEndpoint.add(ipAddressV4=ip, port=port)
        certificate = f"hedera-history/gen/node-certificate/{seed}/{node_id}".encode()
        address.nodeCertHash = sha384(certificate).hex().encode()
        address.description = f"generated node {node_id}"
    data: bytes = message.SerializeToString()
    return data


def file_chunks(contents: bytes) -> list[bytes]:
    """Contents split for a FileUpdate and FileAppends: at least two chunks (a real book never fits
    one transaction, so readers must join them), none over :data:`FILE_CHUNK_BYTES`."""
    count = max(2, -(-len(contents) // FILE_CHUNK_BYTES))
    size = -(-len(contents) // count)
    return [contents[i : i + size] for i in range(0, len(contents), size)]
