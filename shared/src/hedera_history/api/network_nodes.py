"""``GET /api/v1/network/nodes`` from the address-book history (``pipeline.address_books``): the
nodes of the newest book in force, with the stakes in force, by node id as the reference lists
them (``node.id`` operators, ``file.id``, ``order``, ``limit`` 1-100 capped at 25, ``links.next``).

The stored books keep what verification needs (node id, account, RSA key, weight): endpoints,
descriptions, certificate hashes and staking details the reference also shows are null or empty
(docs/api.md). Books are stored from the first change after the bootstrap book, or by a backfill:
before that the list is empty.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from hedera_history.api.parse import MAX_I64
from hedera_history.api.query import Query, integer_bounds, only, order, page_limit, single
from hedera_history.api.render import timestamp
from hedera_history.api.transaction_filters import account_reference
from hedera_history.books.address_book import AddressBook
from hedera_history.books.parse import parse_address_book
from hedera_history.books.stakes import NodeStakes
from hedera_history.errors import AddressBookError, CorruptFileError, RowDecodeError
from hedera_history.pipeline.address_books import BOOK, Q_BOOK, Q_STAKES, STAKES
from hedera_history.store import schema as s
from hedera_history.store.gateway import BigtableGateway, KeyRange, RowQuery
from hedera_history.store.keys import decode_hex16, ones_complement, prefix_end
from hedera_history.store.reader import HistoryReader

NODES_PATH = "/api/v1/network/nodes"
BOOK_FILE = "0.0.102"
"""The address book file the stored books are (0.0.101 holds the same nodes with endpoints)."""
MAX_NODES_LIMIT = 25
NO_ENDPOINT = {"domain_name": "", "ip_address_v4": "", "port": 0}
"""``grpc_proxy_endpoint`` when unknown: the reference's schema requires an object there."""
Reader = Callable[[], HistoryReader]


def _newest(gateway: BigtableGateway, prefix: bytes, qualifier: bytes) -> tuple[int, bytes] | None:
    """(effective time ns, value) of the newest row under ``prefix`` (keys are newest first)."""
    query = RowQuery(ranges=(KeyRange(prefix, prefix_end(prefix)),), limit=1)
    for row in gateway.read_rows(s.ADDRESS_BOOKS, query):
        cell = row.cell(s.ADDRESS_BOOKS_FAMILY, qualifier)
        if cell is None:
            return None
        try:
            return ones_complement(decode_hex16(row.key[len(prefix) :])), cell.value
        except ValueError as e:
            raise RowDecodeError(f"address book row key {row.key[:40]!r} unreadable") from e
    return None


def newest_book(gateway: BigtableGateway) -> tuple[int, AddressBook] | None:
    found = _newest(gateway, BOOK, Q_BOOK)
    if found is None:
        return None
    try:
        return found[0], parse_address_book(found[1], "stored address book")
    except AddressBookError as e:
        raise RowDecodeError(f"stored address book unreadable: {e}") from e


def newest_stakes(gateway: BigtableGateway) -> dict[int, int]:
    found = _newest(gateway, STAKES, Q_STAKES)
    if found is None:
        return {}
    try:
        return dict(NodeStakes.decode(found[1]).entries)
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
    effective, book = found
    stakes = newest_stakes(gateway)
    nodes = sorted(
        (n for n in book.nodes if low <= n.node_id and (high is None or n.node_id <= high)),
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
    return {
        "nodes": [
            {
                "admin_key": None,
                "associated_registered_nodes": [],
                "decline_reward": None,
                "description": None,
                "file_id": BOOK_FILE,
                "grpc_proxy_endpoint": NO_ENDPOINT,
                "max_stake": None,
                "memo": node.account,
                "min_stake": None,
                "node_account_id": node.account,
                "node_id": node.node_id,
                "node_cert_hash": None,
                "public_key": "0x" + node.public_key_der.hex(),
                "reward_rate_start": None,
                "service_endpoints": [],
                "stake": stakes.get(node.node_id),
                "stake_not_rewarded": None,
                "stake_rewarded": None,
                "staking_period": None,
                "timestamp": {"from": timestamp(effective), "to": None},
            }
            for node in page
        ],
        "links": {"next": next_link},
    }
