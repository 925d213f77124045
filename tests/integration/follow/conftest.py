"""Fixtures shared by the follower's tests of blocks after the cutover: uploaded blocks, and a local
block node (the gRPC server over a folder of block files) for the registered-node tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedera_history.gen.config_and_output import GeneratedStream
from hedera_history.localstack.block_node_server import BlockNodeServer

from .harness import Followed, block_bucket, make_followed
from .test_follow_cutover import CUTOVER, RECORD_PERIODS, every_block


@pytest.fixture
def uploads(bigtable_instance: Any, tmp_path: Path, generated_cutover_stream: GeneratedStream) -> Iterator[Followed]:
    """The generated cutover stream in a directory bucket, its record periods followed and stored;
    its block files in the bucket as uploads, none ingested."""
    stream = generated_cutover_stream
    bucket, overrides = block_bucket(tmp_path, stream, **CUTOVER)
    with make_followed(bigtable_instance, tmp_path, stream, str(bucket), **overrides) as followed:
        followed.follower().run(lambda: followed.complete(every_block(stream)[:RECORD_PERIODS]))
        yield followed


@pytest.fixture
def block_node(tmp_path: Path) -> Iterator[tuple[BlockNodeServer, Path]]:
    """A block node serving ``tmp_path/block-node`` (empty: the test copies the block files in)."""
    folder = tmp_path / "block-node"
    folder.mkdir()
    server = BlockNodeServer(folder).start()
    try:
        yield server, folder
    finally:
        server.stop(0)
