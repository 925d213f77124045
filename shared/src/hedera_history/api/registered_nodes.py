"""``GET /api/v1/network/registered-nodes``: the registered nodes (HIP-1137) as of the latest complete
block, from the registered-node index (``store.reader_registered_nodes``), as the reference lists its
``registered_node`` rows: nodes not deleted, by id (``order=desc`` reverses it), ``limit`` 25 (at most
100), ``registerednode.id`` bounds, ``type`` (any of the node's endpoints of that type, the name taken
in any case), and ``links.next`` carrying the last id as a bound when more follow.

Each node as the reference's REST service renders it: the admin key, the creation time, the
description, the endpoints in the order registered (each with its address, port, TLS flag, type,
``block_node`` with its APIs for a block node, ``general_service`` with its description for a general
service), ``timestamp.from`` the last transaction that wrote the node. Where the reference answers
null for the kinds an endpoint is not, its schema requires objects: they are empty objects here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from hedera_history.api.entity_state import render_key
from hedera_history.api.errors import InvalidParamsError
from hedera_history.api.parse import MAX_I64
from hedera_history.api.query import Query, integer_bounds, only, order, page_limit, single
from hedera_history.api.render import timestamp
from hedera_history.books.registered_nodes import (
    BLOCK_NODE,
    GENERAL_SERVICE,
    NODE_TYPES,
    RegisteredNode,
    ServiceEndpoint,
)
from hedera_history.errors import RowDecodeError
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_registered_nodes import registered_nodes_page

REGISTERED_NODES_PATH = "/api/v1/network/registered-nodes"
ID_PARAMETER = "registerednode.id"
Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]


def registered_nodes(get_reader: Reader, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"limit", "order", ID_PARAMETER, "type"})
    limit = page_limit(query)
    direction = order(query)
    low, high = integer_bounds(query.get(ID_PARAMETER, []), ID_PARAMETER, maximum=MAX_I64)
    type_text = single(query, "type")
    node_type = None if type_text is None else type_text.upper()
    if node_type is not None and node_type not in NODE_TYPES:
        raise InvalidParamsError(f"Invalid parameter: type must be one of {', '.join(NODE_TYPES)}")
    nodes: tuple[RegisteredNode, ...] = ()
    more = False
    if high is None or low <= high:

        def accept(node: RegisteredNode) -> bool:
            return node_type is None or node_type in node.node_types

        page = registered_nodes_page(get_reader(), low, high, accept, limit, descending=direction == "desc")
        skipped(page.errors)
        nodes, more = page.nodes, page.more
    next_link = None
    if more and nodes:
        op = "gt" if direction == "asc" else "lt"
        params: list[tuple[str, Any]] = [("limit", limit), ("order", direction)]
        params += [(ID_PARAMETER, c) for c in query.get(ID_PARAMETER, [])]
        params.append((ID_PARAMETER, f"{op}:{nodes[-1].registered_node_id}"))
        if type_text is not None:
            params.append(("type", type_text))
        next_link = f"{REGISTERED_NODES_PATH}?" + urlencode(params)
    return {"registered_nodes": [render_node(node) for node in nodes], "links": {"next": next_link}}


def render_node(node: RegisteredNode) -> dict[str, Any]:
    return {
        "admin_key": render_key(node.admin_key),
        "created_timestamp": None if node.created_ns is None else timestamp(node.created_ns),
        "description": node.description,
        "registered_node_id": node.registered_node_id,
        "service_endpoints": [render_endpoint(endpoint) for endpoint in node.endpoints],
        "timestamp": {"from": timestamp(node.changed_ns), "to": None},
    }


def render_endpoint(endpoint: ServiceEndpoint) -> dict[str, Any]:
    """The reference's schema declares the four kinds' objects required and not nullable: the kinds
    the endpoint is not are empty objects (its kind is ``type``)."""
    kind = endpoint.node_type
    block_node: dict[str, Any] = {"endpoint_apis": list(endpoint.block_node_apis)} if kind == BLOCK_NODE else {}
    general: dict[str, Any] = {"description": endpoint.service_description} if kind == GENERAL_SERVICE else {}
    return {
        "block_node": block_node,
        "domain_name": endpoint.domain_name,
        "general_service": general,
        "ip_address": endpoint.ip_address,
        "mirror_node": {},
        "port": endpoint.port,
        "requires_tls": endpoint.requires_tls,
        "rpc_relay": {},
        "type": kind,
    }
