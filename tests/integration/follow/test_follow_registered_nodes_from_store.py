"""Block nodes registered before the follower's first block, on the Bigtable emulator: a generated
network registers nodes in its first native blocks (``GeneratorConfig(registered_nodes=True)``: node
1 created then moved, node 2 created then deleted); ``load`` writes it up to block 5, the delete's.
A follower started after it reads none of those blocks, yet knows node 1 from the store's
registered-node index (and not node 2, deleted) and reads the later blocks from it, the bucket
keeping none of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hedera_history.follow.block_node_registry import (
    BlockNodeRegistry,
    read_registry,
    starting_registry,
    write_registry,
)
from hedera_history.gen import registered_nodes as gen_registered_nodes
from hedera_history.gen.config_and_output import GeneratedStream, GeneratorConfig
from hedera_history.gen.stream import generate_stream
from hedera_history.localstack.block_node_server import BlockNodeServer

from tests.integration.cutover_load import load_cutover_stream

from .harness import blocks_at_the_node_after, follow_until, make_followed
from .test_follow_cutover import CUTOVER

pytestmark = [pytest.mark.emulator]

LOADED_THROUGH = 5
"""Record files 0-2, native blocks 3-7: 3 creates nodes 1 and 2, 4 moves node 1, 5 deletes node 2."""
READABLE_APIS = (1, 2, 3)  # STATUS, PUBLISH, SUBSCRIBE_STREAM


def stream_registering(port: int, monkeypatch: pytest.MonkeyPatch) -> GeneratedStream:
    """The plan of ``gen.registered_nodes`` with both nodes block nodes to read: node 2 at
    127.0.0.2, node 1 moved to 127.0.0.1 (the local block-node server)."""

    def beta(target: Any) -> None:
        target.add(ip_address=bytes([127, 0, 0, 2]), port=port).block_node.endpoint_api.extend(READABLE_APIS)

    def alpha_moved(target: Any) -> None:
        target.add(ip_address=bytes([127, 0, 0, 1]), port=port).block_node.endpoint_api.extend(READABLE_APIS)

    monkeypatch.setitem(gen_registered_nodes._CREATED, 2, beta)
    monkeypatch.setitem(gen_registered_nodes._UPDATED, 1, alpha_moved)
    config = GeneratorConfig(
        nodes=4, periods=8, transactions=8, seed=11, cutover_after=3, registered_nodes=True, rotate_key=False
    )
    return generate_stream(config)


def test_a_follower_started_after_the_registrations_knows_them_from_the_store(
    bigtable_instance: Any,
    tmp_path: Path,
    block_node: tuple[BlockNodeServer, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server, served = block_node
    stream = stream_registering(server.port, monkeypatch)
    bucket, overrides = blocks_at_the_node_after(tmp_path, stream, served, LOADED_THROUGH, **CUTOVER)
    later = [block.block_number for block in stream.blocks if block.block_number > LOADED_THROUGH]
    load_cutover_stream(bigtable_instance, bucket, "f_")
    with make_followed(bigtable_instance, tmp_path, stream, str(bucket), **overrides) as followed:
        assert followed.complete(list(range(LOADED_THROUGH + 1))) and read_registry(followed.gateway).nodes == {}
        assert dict(starting_registry(followed.gateway, followed.settings).nodes) == {1: f"127.0.0.1:{server.port}"}
        assert starting_registry(followed.gateway, followed.settings.with_(block_node_discovery=False)).nodes == {}
        follower = followed.follower()
        report = follow_until(follower, lambda: followed.complete(later), "the blocks after the load, from the node")
        assert (report.mode, report.block_source) == ("blocks", "registered block node")
        assert sorted(followed.publisher.completions()) == later
        assert follower.blocks is not None
        assert dict(follower.blocks.registry.nodes) == {1: f"127.0.0.1:{server.port}"}, "node 2 was deleted"

        # The follower's own row stays on top of the index.
        write_registry(followed.gateway, BlockNodeRegistry({1: "10.9.9.9:40840", 7: "10.7.7.7:40840"}, 9))
        registry = starting_registry(followed.gateway, followed.settings)
        assert dict(registry.nodes) == {1: "10.9.9.9:40840", 7: "10.7.7.7:40840"}
