"""Registered nodes (HIP-1137), the on-chain address book of the network's other nodes: block nodes,
mirror nodes, RPC relays and general services. Pure: what a registered node is, read from the HAPI
messages that carry one, for the follower (which reads the block nodes among them) and the API
(which lists them).

``RegisteredNodeCreate``, ``RegisteredNodeUpdate`` and ``RegisteredNodeDelete`` transactions write a
``RegisteredNode`` (its id, admin key, description and ``RegisteredServiceEndpoint`` list) into the
network's state; a native block carries each write as a state change too. Folded from the
transactions as the reference's importer folds them (``RegisteredNode*TransactionHandler``): a create
gives the node its receipt's id, admin key, description (none when blank) and endpoints, from its
consensus time; an update replaces the admin key and the description it sets, and the endpoints when
it lists any; a delete marks the node deleted. Only successful transactions count.

A registered node counts as a block node to read from, as the reference's
``BlockNodeDiscoveryService`` counts its "tier 1" nodes, when one of its block-node endpoints offers
the ``PUBLISH``, ``STATUS`` and ``SUBSCRIBE_STREAM`` APIs itself (APIs spread over several endpoints
do not count: this project's client, like the reference's, asks one address for ``serverStatus``,
``getBlock`` and the subscription); it is read at the first such endpoint, by domain name when it
has one (a host name: an endpoint whose domain name is not one is passed over), else by IP address,
with TLS when the endpoint requires it.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

CREATE_CASE, UPDATE_CASE, DELETE_CASE = "registeredNodeCreate", "registeredNodeUpdate", "registeredNodeDelete"
NODE_CASES = frozenset((CREATE_CASE, UPDATE_CASE, DELETE_CASE))
"""``TransactionBody.data`` cases that write a registered node."""
BLOCK_NODE, GENERAL_SERVICE, MIRROR_NODE, RPC_RELAY = "BLOCK_NODE", "GENERAL_SERVICE", "MIRROR_NODE", "RPC_RELAY"
_ENDPOINT_TYPES = {"block_node": BLOCK_NODE, "general_service": GENERAL_SERVICE, "mirror_node": MIRROR_NODE}
_ENDPOINT_TYPES["rpc_relay"] = RPC_RELAY
NODE_TYPES = (BLOCK_NODE, GENERAL_SERVICE, MIRROR_NODE, RPC_RELAY)
BLOCK_NODE_APIS = ("OTHER", "STATUS", "PUBLISH", "SUBSCRIBE_STREAM", "STATE_PROOF")
"""``RegisteredServiceEndpoint.BlockNodeEndpoint.BlockNodeApi`` by number."""
_READABLE_APIS = frozenset(("PUBLISH", "STATUS", "SUBSCRIBE_STREAM"))
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST_NAME = re.compile(rf"(?=.{{1,254}}$){_LABEL}(?:\.{_LABEL})*\.?")
"""A host name (RFC 1123 labels): anyone can register a node, and a domain name holding anything else
(a comma, a colon, a scheme) is no address to dial, and would not be read back as one."""


@dataclass(frozen=True, slots=True)
class ServiceEndpoint:
    """One ``RegisteredServiceEndpoint``."""

    ip_address: str | None
    """As the reference shows it (Java's ``InetAddress.getHostAddress``); None for a domain name or
    an address of neither 4 nor 16 bytes."""
    domain_name: str | None
    port: int
    requires_tls: bool
    node_type: str
    """One of :data:`NODE_TYPES`; an endpoint of no known type is a general service, as the
    reference shows it."""
    block_node_apis: tuple[str, ...] = ()
    service_description: str | None = None
    """A general service's description."""


@dataclass(frozen=True, slots=True)
class RegisteredNode:
    registered_node_id: int
    admin_key: bytes | None
    """The ``Key`` message's bytes."""
    description: str | None
    endpoints: tuple[ServiceEndpoint, ...]
    created_ns: int | None
    changed_ns: int
    """The consensus time of the last transaction that wrote it."""
    deleted: bool = False

    @property
    def node_types(self) -> frozenset[str]:
        return frozenset(endpoint.node_type for endpoint in self.endpoints)


def node_id_of(case: str | None, body: Any, record: Any) -> int | None:
    """The registered node a successful transaction writes (``case``: its body's ``data`` case),
    None when it writes none."""
    if case == CREATE_CASE:
        return int(record.receipt.registered_node_id) if record.receipt.registered_node_id else None
    if case in (UPDATE_CASE, DELETE_CASE):
        return int(getattr(body, case).registered_node_id)
    return None


def applied(node: RegisteredNode | None, node_id: int, body: Any, consensus_ns: int) -> RegisteredNode | None:
    """``node`` (None: not created yet) after a successful transaction of ``body`` that writes node
    ``node_id``; None while no create has been seen."""
    case = body.WhichOneof("data")
    if case == CREATE_CASE:
        create = body.registeredNodeCreate
        return RegisteredNode(
            registered_node_id=node_id,
            admin_key=create.admin_key.SerializeToString() if create.HasField("admin_key") else None,
            description=create.description if create.description.strip() else None,
            endpoints=tuple(service_endpoint(e) for e in create.service_endpoint),
            created_ns=consensus_ns,
            changed_ns=consensus_ns,
        )
    if node is None:
        return None
    if case == DELETE_CASE:
        return replace(node, deleted=True, changed_ns=consensus_ns)
    if case != UPDATE_CASE:
        return node
    update = body.registeredNodeUpdate
    return replace(
        node,
        admin_key=update.admin_key.SerializeToString() if update.HasField("admin_key") else node.admin_key,
        description=update.description.value if update.HasField("description") else node.description,
        endpoints=tuple(service_endpoint(e) for e in update.service_endpoint) or node.endpoints,
        changed_ns=consensus_ns,
        deleted=False,
    )


def service_endpoint(endpoint: Any) -> ServiceEndpoint:
    """A ``RegisteredServiceEndpoint`` as the reference's importer keeps it."""
    address = endpoint.WhichOneof("address")
    kind = endpoint.WhichOneof("endpoint_type")
    return ServiceEndpoint(
        ip_address=java_host_address(bytes(endpoint.ip_address)) if address == "ip_address" else None,
        domain_name=endpoint.domain_name if address == "domain_name" else None,
        port=endpoint.port,
        requires_tls=endpoint.requires_tls,
        node_type=_ENDPOINT_TYPES.get(kind or "", GENERAL_SERVICE),
        block_node_apis=(
            tuple(_api_name(api) for api in endpoint.block_node.endpoint_api) if kind == "block_node" else ()
        ),
        service_description=endpoint.general_service.description if kind == "general_service" else None,
    )


def _api_name(number: int) -> str:
    return BLOCK_NODE_APIS[number] if 0 <= number < len(BLOCK_NODE_APIS) else "UNRECOGNIZED"


def java_host_address(raw: bytes) -> str | None:
    """An IPv4 address dotted, an IPv6 one as eight hex groups without zero compression (Java's
    text); None for any other length."""
    if len(raw) == 4:
        return str(ipaddress.IPv4Address(raw))
    if len(raw) == 16:
        return ":".join(f"{int.from_bytes(raw[i : i + 2], 'big'):x}" for i in range(0, 16, 2))
    return None


def block_node_endpoint(endpoints: Iterable[Any]) -> str | None:
    """Where a registered node (its ``RegisteredServiceEndpoint`` messages) is read as a block node
    (``[tls://]host:port``, see the module), None when it is not one."""
    return readable_block_node(service_endpoint(endpoint) for endpoint in endpoints)


def readable_block_node(endpoints: Iterable[ServiceEndpoint]) -> str | None:
    """Where a registered node (its endpoints as kept, :func:`service_endpoint`) is read as a block
    node (``[tls://]host:port``, see the module), None when it is not one."""
    for endpoint in endpoints:
        if endpoint.node_type != BLOCK_NODE or not _READABLE_APIS.issubset(endpoint.block_node_apis):
            continue
        domain = (endpoint.domain_name or "").strip()
        host = _host_name(domain) if domain else _ip_text(endpoint.ip_address)
        if host and 0 < endpoint.port < 65536:
            return f"{'tls://' if endpoint.requires_tls else ''}{host}:{endpoint.port}"
    return None


def _host_name(name: str) -> str:
    return name if _HOST_NAME.fullmatch(name) else ""


def _ip_text(text: str | None) -> str:
    if not text:
        return ""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return ""
    return f"[{address}]" if address.version == 6 else str(address)


__all__ = [
    "NODE_CASES",
    "NODE_TYPES",
    "RegisteredNode",
    "ServiceEndpoint",
    "applied",
    "block_node_endpoint",
    "java_host_address",
    "node_id_of",
    "readable_block_node",
    "service_endpoint",
]
