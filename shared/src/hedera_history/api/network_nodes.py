"""``GET /api/v1/network/nodes`` from the address-book history (``pipeline.address_books``): the
nodes of the newest book in force, with the stakes in force, by node id as the reference lists
them (``node.id`` operators, ``file.id``, ``order``, ``limit`` 1-100 capped at 25, ``links.next``).

Each node as the reference's importer reads a ``NodeAddressBook`` (``AddressBookServiceImpl``) and
its REST service renders it: entries grouped by node id (the first entry's description, memo,
certificate hash and key; every entry's endpoints), the deprecated ``ipAddress``/``portno`` as an
endpoint beside each ``serviceEndpoint`` (an IPv4 address in dotted form, or a domain name),
endpoints ordered by address then port, ``node_cert_hash`` ``0x`` + the hash's text (``0x`` when
the book has none), ``public_key`` ``0x`` + the key's hex. From the book file's own bytes where the
row keeps them (every book recorded since they were kept: ``pipeline.history_start`` for the
bootstrap book, the keeper, a backfill and ``load`` for the books the stream puts in force), else
from the canonical book, which has no endpoints, descriptions or certificate hashes. The node
admin key and the staking details the reference takes from node transactions and staking periods
are null. Before any book is recorded the list is empty.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.api.parse import MAX_I64
from hedera_history.api.query import Query, integer_bounds, only, order, page_limit, single
from hedera_history.api.render import timestamp
from hedera_history.api.transaction_filters import account_reference
from hedera_history.books.address_book import AddressBook
from hedera_history.books.parse import parse_address_book
from hedera_history.books.stakes import NodeStakes
from hedera_history.errors import AddressBookError, CorruptFileError, RowDecodeError
from hedera_history.store.book_rows import BOOK, Q_BOOK, Q_FILE, Q_STAKES, STAKES, row_in_force
from hedera_history.store.gateway import BigtableGateway
from hedera_history.store.reader import HistoryReader

NODES_PATH = "/api/v1/network/nodes"
BOOK_FILE = "0.0.102"
"""The address book file the stored books are (0.0.101 holds the same nodes for clients)."""
MAX_NODES_LIMIT = 25
NO_ENDPOINT = {"domain_name": "", "ip_address_v4": "", "port": 0}
"""``grpc_proxy_endpoint`` when unknown: the reference's schema requires an object there."""
_FIRST_NODE_ACCOUNT = 3
Reader = Callable[[], HistoryReader]


@dataclass
class NodeDetails:
    """What the book file says of one node beyond what verification keeps."""

    description: str
    memo: str | None
    cert_hash: bytes
    public_key: str
    endpoints: set[tuple[str, str, int]] = field(default_factory=set)
    """(domain name, IPv4 address, port)."""


@dataclass(frozen=True, slots=True)
class StoredBook:
    effective_ns: int
    book: AddressBook
    details: dict[int, NodeDetails]
    """By node id."""


def newest_book(gateway: BigtableGateway) -> StoredBook | None:
    found = row_in_force(gateway, BOOK, None)
    if found is None or Q_BOOK not in found[1]:
        return None
    effective_ns, cells = found
    try:
        book = parse_address_book(cells[Q_BOOK], "stored address book")
        details = node_details(cells.get(Q_FILE) or cells[Q_BOOK])
    except (AddressBookError, DecodeError) as e:
        raise RowDecodeError(f"stored address book unreadable: {e}") from e
    return StoredBook(effective_ns, book, details)


def node_details(book_bytes: bytes) -> dict[int, NodeDetails]:
    """A ``NodeAddressBook``'s entries by node id, grouped as the reference's importer groups them
    (the node id of an entry without one as ``books.parse`` gives it, so the two agree)."""
    details: dict[int, NodeDetails] = {}
    for address in hapi.NodeAddressBook.FromString(book_bytes).nodeAddress:
        account = address.nodeAccountId.accountNum if address.HasField("nodeAccountId") else _memo_account(address)
        node_id = address.nodeId
        if node_id == 0 and account is not None:  # early books set no node id: as books.parse reads them
            node_id = account - _FIRST_NODE_ACCOUNT
        entry = details.get(node_id)
        if entry is None:
            memo = address.memo.decode("utf-8", "replace") or None
            entry = details[node_id] = NodeDetails(
                address.description, memo, bytes(address.nodeCertHash), address.RSA_PubKey.strip()
            )
        ip = address.ipAddress.decode("utf-8", "replace").strip()
        if ip:
            entry.endpoints.add(("", ip, address.portno))
        for endpoint in address.serviceEndpoint:
            v4 = str(ipaddress.IPv4Address(bytes(endpoint.ipAddressV4))) if len(endpoint.ipAddressV4) == 4 else ""
            entry.endpoints.add((endpoint.domain_name, v4, endpoint.port))
    return details


def _memo_account(address: Any) -> int | None:
    parts = address.memo.decode("utf-8", "replace").strip().split(".")
    return int(parts[2]) if len(parts) == 3 and parts[2].isdigit() else None


def newest_stakes(gateway: BigtableGateway) -> dict[int, int]:
    found = row_in_force(gateway, STAKES, None)
    if found is None or Q_STAKES not in found[1]:
        return {}
    try:
        return dict(NodeStakes.decode(found[1][Q_STAKES]).entries)
    except (CorruptFileError, AddressBookError) as e:
        raise RowDecodeError(f"stored node stakes unreadable: {e}") from e


def network_nodes(get_reader: Reader, query: Query) -> dict[str, Any]:
    only(query, {"file.id", "limit", "node.id", "order"})
    limit = min(page_limit(query), MAX_NODES_LIMIT)  # the reference pages nodes by 25 at most
    direction = order(query)
    low, high = integer_bounds(query.get("node.id", []), "node.id", maximum=MAX_I64)
    file_text = single(query, "file.id")
    gateway = get_reader().gateway
    found = newest_book(gateway)
    other_file = file_text is not None and account_reference(file_text.removeprefix("eq:"), "file.id") != BOOK_FILE
    if found is None or other_file:
        return {"nodes": [], "links": {"next": None}}
    stakes = newest_stakes(gateway)
    nodes = sorted(
        (n for n in found.book.nodes if low <= n.node_id and (high is None or n.node_id <= high)),
        key=lambda n: n.node_id,
        reverse=direction == "desc",
    )
    page = nodes[:limit]
    next_link = None
    if len(nodes) > limit:
        op = "gt" if direction == "asc" else "lt"
        params = [("limit", limit), ("order", direction), ("node.id", f"{op}:{page[-1].node_id}")]
        params.extend(("node.id", c) for c in query.get("node.id", []))
        if file_text is not None:
            params.append(("file.id", file_text))
        next_link = f"{NODES_PATH}?" + urlencode(params)
    return {"nodes": [_render(node, found, stakes) for node in page], "links": {"next": next_link}}


def _render(node: Any, found: StoredBook, stakes: dict[int, int]) -> dict[str, Any]:
    details = found.details.get(node.node_id)
    cert_hash = details.cert_hash.decode("utf-8", "replace") if details is not None else ""
    public_key = details.public_key if details is not None and details.public_key else node.public_key_der.hex()
    endpoints = sorted(details.endpoints, key=lambda e: (e[1], e[2], e[0])) if details is not None else []
    return {
        "admin_key": None,
        "associated_registered_nodes": [],
        "decline_reward": None,
        "description": details.description if details is not None else None,
        "file_id": BOOK_FILE,
        "grpc_proxy_endpoint": NO_ENDPOINT,
        "max_stake": None,
        "memo": details.memo if details is not None else node.account,
        "min_stake": None,
        "node_account_id": node.account,
        "node_id": node.node_id,
        "node_cert_hash": cert_hash if cert_hash.startswith("0x") else "0x" + cert_hash,
        "public_key": public_key if public_key.startswith("0x") else "0x" + public_key,
        "reward_rate_start": None,
        "service_endpoints": [{"domain_name": d, "ip_address_v4": ip, "port": port} for d, ip, port in endpoints],
        "stake": stakes.get(node.node_id),
        "stake_not_rewarded": None,
        "stake_rewarded": None,
        "staking_period": None,
        "timestamp": {"from": timestamp(found.effective_ns), "to": None},
    }
