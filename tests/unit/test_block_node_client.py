"""Block-node endpoints from settings, and the assembly of a subscription's item sets into blocks."""

from __future__ import annotations

import pytest
from hedera_history import hapi  # noqa: F401  (registers the SDK's packages)
from hedera_history.config import Settings
from hedera_history.errors import BlockNodeProtocolError, ConfigError, ObjectTooLargeError, is_transient
from hedera_history.formats.block import serialize_block
from hedera_history.proto_gen.block_node_pb2 import BlockItemSet
from hedera_history.sources.block_assembly import BlockAssembler
from hedera_history.sources.block_node import BlockNodeClient, BlockNodeOptions
from hedera_history.sources.block_node_api import DEFAULT_PORT, BlockNodeEndpoint, parse_endpoints

from hiero_sdk_python.hapi.block.stream import block_item_pb2, block_proof_pb2  # isort: skip
from hiero_sdk_python.hapi.block.stream.output import block_header_pb2  # isort: skip


def test_endpoints_are_host_port_and_priority() -> None:
    assert parse_endpoints(" bn1.example.com , tls://bn2:443@2, 10.0.0.5:50000@1, [::1]:7,") == (
        BlockNodeEndpoint("bn1.example.com", DEFAULT_PORT),
        BlockNodeEndpoint("bn2", 443, priority=2, tls=True),
        BlockNodeEndpoint("10.0.0.5", 50000, priority=1),
        BlockNodeEndpoint("::1", 7),
    )
    assert str(BlockNodeEndpoint("::1", 7, tls=True)) == "tls://[::1]:7"
    assert parse_endpoints("") == ()


@pytest.mark.parametrize("text", ["host:port", ":40840", "host:0", "host:70000", "::1:7", "[::1", "h@first"])
def test_a_malformed_endpoint_is_a_config_error(text: str) -> None:
    with pytest.raises(ConfigError):
        parse_endpoints(text)


def test_the_client_takes_its_nodes_and_options_from_the_settings() -> None:
    settings = Settings.from_env(
        {
            "HEDERA_HISTORY_BLOCK_NODES": "b:1@1,a:2@1,c:3",
            "HEDERA_HISTORY_BLOCK_NODE_BLOCK_TIMEOUT_SECONDS": "7.5",
            "HEDERA_HISTORY_BLOCK_NODE_MAX_ATTEMPTS": "5",
        }
    )
    client = BlockNodeClient.from_settings(settings)
    assert [str(node.endpoint) for node in client.nodes] == ["c:3", "b:1", "a:2"]  # priority, then as given
    assert BlockNodeOptions.from_settings(settings).block_timeout_seconds == 7.5
    assert BlockNodeOptions.from_settings(settings).max_attempts == 5
    assert BlockNodeOptions.from_settings(settings).max_block_bytes == settings.max_decompressed_bytes


def test_no_network_publishes_block_nodes_yet() -> None:
    assert Settings.from_env({"HEDERA_HISTORY_NETWORK": "mainnet"}).block_nodes == ""
    with pytest.raises(ConfigError, match="no block node"):
        BlockNodeClient.from_settings(Settings.from_env({"HEDERA_HISTORY_NETWORK": "testnet"}))


def _header(number: int) -> bytes:
    header = block_header_pb2.BlockHeader(number=number)
    header.hapi_proto_version.minor = 78
    return bytes(block_item_pb2.BlockItem(block_header=header).SerializeToString())


def _item(payload: bytes = b"tx") -> bytes:
    return bytes(block_item_pb2.BlockItem(signed_transaction=payload).SerializeToString())


def _proof(number: int) -> bytes:
    return bytes(block_item_pb2.BlockItem(block_proof=block_proof_pb2.BlockProof(block=number)).SerializeToString())


def test_item_sets_become_the_block_they_came_from() -> None:
    assembler = BlockAssembler("test", 4, max_bytes=1 << 20)
    assembler.add(BlockItemSet(block_items=[_header(4), _item(b"a")]))
    assembler.add(BlockItemSet())
    later = BlockItemSet(block_items=[_item(b"b"), _proof(4)])
    later.MergeFromString(b"\x10\x07")  # a field of a newer block node: not part of the block
    assembler.add(later)
    assert assembler.pending
    block = assembler.end(4)
    assert (block.number, block.content) == (4, serialize_block([_header(4), _item(b"a"), _item(b"b"), _proof(4)]))
    assert not assembler.pending
    assembler.add(BlockItemSet(block_items=[_header(5), _proof(5)]))
    assert assembler.end(5).number == 5


@pytest.mark.parametrize(
    ("sets", "end", "reason"),
    [
        ([[_item()]], 4, "block 4 begins with signed_transaction"),
        ([[_header(4)], [_header(5)]], 4, "a block header while block 4 still lacks its end"),
        ([], 4, "end of block 4 without its items"),
        ([[_header(4)]], 5, "end of block 5 closes the items of block 4"),
        ([[_header(6)]], 6, "block 6 where block 4 comes next"),
        ([[b"\x00"]], 4, "does not parse"),
    ],
)
def test_a_stream_breaking_the_apis_rules_is_refused(sets: list[list[bytes]], end: int, reason: str) -> None:
    assembler = BlockAssembler("test", 4, max_bytes=1 << 20)
    with pytest.raises(BlockNodeProtocolError, match=reason) as refused:
        for items in sets:
            assembler.add(BlockItemSet(block_items=items))
        assembler.end(end)
    assert is_transient(refused.value)


def test_a_block_past_the_size_bound_is_refused_before_its_end() -> None:
    assembler = BlockAssembler("test", 0, max_bytes=1000)
    assembler.add(BlockItemSet(block_items=[_header(0)]))
    with pytest.raises(ObjectTooLargeError):
        assembler.add(BlockItemSet(block_items=[_item(bytes(1000))]))
