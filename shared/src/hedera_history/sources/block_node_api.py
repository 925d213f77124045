"""The block node API (HIP-1081) as gRPC carries it, shared by the client (:mod:`.block_node`) and
the local block node (``localstack.block_node_server``), so the two cannot disagree.

The messages are ``proto/hedera_history/block_node.proto`` (wire-identical to the block node's
published ``block-node/api/`` files); each method's path is read from its generated descriptor
rather than spelled out again. An endpoint is written ``[tls://]host[:port][@priority]``, as the
reference mirror node configures one (``hiero.mirror.importer.block.nodes[]``: host, port 40840,
priority 0 first).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hedera_history.errors import ConfigError
from hedera_history.proto_gen import block_node_pb2

UNKNOWN_BLOCK_NUMBER = 2**64 - 1
"""``uint64`` max, the block node's ``UNKNOWN_BLOCK_NUMBER`` (-1 as a Java long): in a status, no
block at all; as a subscription's end, no end (new blocks as they arrive); as its start, live."""

DEFAULT_PORT = 40840
"""The block node's port (the reference's ``BlockNodeProperties`` status and streaming ports)."""

_TLS_SCHEME = "tls://"


def _method(service: str, method: str) -> str:
    return f"/{block_node_pb2.DESCRIPTOR.services_by_name[service].full_name}/{method}"


SERVER_STATUS = _method("BlockNodeService", "serverStatus")
GET_BLOCK = _method("BlockAccessService", "getBlock")
SUBSCRIBE_BLOCK_STREAM = _method("BlockStreamSubscribeService", "subscribeBlockStream")


def serialize(message: Any) -> bytes:
    """A message's bytes, as gRPC's serializer hook wants them."""
    return bytes(message.SerializeToString())


@dataclass(frozen=True, slots=True)
class BlockNodeEndpoint:
    """One block node: where it answers, whether over TLS, and its priority (lower first)."""

    host: str
    port: int = DEFAULT_PORT
    priority: int = 0
    tls: bool = False

    @property
    def target(self) -> str:
        """``host:port`` as gRPC dials it (an IPv6 host in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    def __str__(self) -> str:
        return (_TLS_SCHEME if self.tls else "") + self.target


def parse_endpoints(text: str) -> tuple[BlockNodeEndpoint, ...]:
    """``[tls://]host[:port][@priority]``, comma separated; empty entries are skipped."""
    return tuple(parse_endpoint(entry) for entry in text.split(",") if entry.strip())


def parse_endpoint(text: str) -> BlockNodeEndpoint:
    entry = text.strip()
    tls = entry.startswith(_TLS_SCHEME)
    address, _, priority_text = entry.removeprefix(_TLS_SCHEME).partition("@")
    host, port_text = _split_host_port(address, text)
    port = _number(port_text, "port", text) if port_text else DEFAULT_PORT
    if not 0 < port < 65536:
        raise ConfigError(f"block node {text!r}: port {port} is not between 1 and 65535")
    priority = _number(priority_text, "priority", text) if priority_text else 0
    return BlockNodeEndpoint(host, port, priority, tls)


def _split_host_port(address: str, text: str) -> tuple[str, str]:
    if address.startswith("["):
        host, bracket, rest = address[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise ConfigError(f"block node {text!r}: expected [ipv6]:port")
        port = rest[1:]
    elif address.count(":") > 1:
        raise ConfigError(f"block node {text!r}: write an IPv6 host in brackets, [host]:port")
    else:
        host, _, port = address.partition(":")
    if not host:
        raise ConfigError(f"block node {text!r}: no host")
    return host, port


def _number(value: str, what: str, text: str) -> int:
    if not value.isdigit():
        raise ConfigError(f"block node {text!r}: {what} {value!r} is not a whole number")
    return int(value)
