"""HIP-1137 discovery on the Bigtable emulator and the local block-node gRPC server: a native block
registers a block node (a state change of the registered-nodes map); the follower, reading blocks
from a bucket that keeps no later block, finds the node in that block and reads every later block
from it; the node stays a source for a restarted follower."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hedera_history.follow.block_node_registry import read_registry
from hedera_history.formats.block_protos import BlockItem, StateChanges
from hedera_history.formats.block_state import STATE_ID_REGISTERED_NODES
from hedera_history.gen.block_items import BlockItemWriter
from hedera_history.gen.config_and_output import GeneratedStream, GeneratorConfig
from hedera_history.gen.stream import generate_stream
from hedera_history.localstack.block_node_server import BlockNodeServer

from .harness import block_bucket, blocks_at_the_node_after, follow_until, make_followed
from .test_follow_cutover import CUTOVER, every_block

pytestmark = [pytest.mark.emulator]

REGISTERING_BLOCK = 5
"""The native block whose first transaction registers the block node."""
BLOCK_NODE_APIS = (1, 2, 3)  # STATUS, PUBLISH, SUBSCRIBE_STREAM


def stream_registering(port: int, monkeypatch: pytest.MonkeyPatch) -> GeneratedStream:
    """Record files 0-2, native blocks 3-7; block 5's first transaction's state changes also write
    registered node 1, a block node at 127.0.0.1:``port`` (as a RegisteredNodeCreate's would)."""
    config = GeneratorConfig(nodes=4, periods=8, transactions=8, seed=11, cutover_after=3)
    period_start = config.start_time_ns + REGISTERING_BLOCK * config.period_ns
    original = BlockItemWriter._state_changes
    done: list[bool] = []

    def with_registration(writer: BlockItemWriter, group: list[Any]) -> bytes | None:
        item = original(writer, group)
        stamp = group[0].record.consensusTimestamp
        if done or stamp.seconds * 10**9 + stamp.nanos < period_start or item is None:
            return item
        done.append(True)
        changes = StateChanges.FromString(BlockItem.FromString(item).state_changes.SerializeToString())
        change = changes.state_changes.add(state_id=STATE_ID_REGISTERED_NODES)
        change.map_update.key.entity_number_key.value = 1
        node = change.map_update.value.registered_node_value
        node.registered_node_id = 1
        endpoint = node.service_endpoint.add(ip_address=bytes([127, 0, 0, 1]), port=port)
        endpoint.block_node.endpoint_api.extend(BLOCK_NODE_APIS)
        return bytes(BlockItem(state_changes=changes).SerializeToString())

    monkeypatch.setattr(BlockItemWriter, "_state_changes", with_registration)
    stream = generate_stream(config)
    assert done, "the registration was written"
    return stream


def test_a_block_node_registered_on_chain_serves_the_blocks_after_it(
    bigtable_instance: Any,
    tmp_path: Path,
    block_node: tuple[BlockNodeServer, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server, served = block_node
    stream = stream_registering(server.port, monkeypatch)
    bucket, overrides = blocks_at_the_node_after(tmp_path, stream, served, REGISTERING_BLOCK, **CUTOVER)
    every = every_block(stream)
    with make_followed(bigtable_instance, tmp_path, stream, str(bucket), **overrides) as followed:
        report = follow_until(
            followed.follower(), lambda: followed.complete(every), "every block, the last from the node"
        )
        assert (report.mode, report.block_source) == ("blocks", "registered block node")
        assert sorted(followed.publisher.completions()) == every
        registry = read_registry(followed.gateway)
        assert (dict(registry.nodes), registry.through_block) == ({1: f"127.0.0.1:{server.port}"}, REGISTERING_BLOCK)

        restarted = followed.follower()
        restarted.run_window(0.5)
        assert restarted.blocks is not None and "registered block node" in restarted.blocks.sources.kinds


def test_discovery_off_leaves_the_registered_node_unread(
    bigtable_instance: Any,
    tmp_path: Path,
    block_node: tuple[BlockNodeServer, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server, _ = block_node
    stream = stream_registering(server.port, monkeypatch)
    bucket, overrides = block_bucket(tmp_path, stream, block_node_discovery=False, **CUTOVER)
    with make_followed(bigtable_instance, tmp_path, stream, str(bucket), **overrides) as followed:
        report = follow_until(followed.follower(), lambda: followed.complete(every_block(stream)), "every block")
        assert report.block_source == "bucket"
        assert read_registry(followed.gateway).nodes == {}
