"""The block-node client (sources.block_node) against the local block node
(localstack.block_node_server) serving real blocks: tss-schnorr 0..5, wrapped-solo-4n 0..4 and
mirror-node-blockstreams 7, 8, 16 (docs/block-streams.md, "Block nodes")."""

from __future__ import annotations

import random
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hedera_history import hapi  # noqa: F401  (registers the SDK's packages)
from hedera_history.errors import (
    BlockNodeError,
    BlockNodeUnavailableError,
    BlockNotFoundError,
    BlockNotYetAvailableError,
    is_transient,
)
from hedera_history.formats.block import block_content, parse_block, serialize_block
from hedera_history.formats.block_hash import block_root_hash
from hedera_history.localstack.block_node_server import BlockNodeServer
from hedera_history.sources.block_node import BlockNodeClient, BlockNodeOptions
from hedera_history.sources.block_node_api import BlockNodeEndpoint, parse_endpoint

from hiero_sdk_python.hapi.block.stream import block_item_pb2, block_proof_pb2  # isort: skip
from hiero_sdk_python.hapi.block.stream.output import block_footer_pb2, block_header_pb2  # isort: skip
from tests.conformance.block_golden import MIRROR_NODE, SOLO, TSS, BlockGolden

CHAINS = {"tss-schnorr": TSS, "wrapped-solo-4n": SOLO, "mirror-node-blockstreams": MIRROR_NODE}
OPTIONS = replace(BlockNodeOptions.from_settings(), status_timeout_seconds=10.0, block_timeout_seconds=60.0)
"""Generous: the machine may be busy; nothing here waits for a timeout to pass."""

Serve = Callable[..., BlockNodeServer]


@pytest.fixture
def serve() -> Iterator[Serve]:
    """Start local block nodes; every one still running is stopped at the end."""
    servers: list[BlockNodeServer] = []

    def start(folder: Path, **options: Any) -> BlockNodeServer:
        servers.append(BlockNodeServer(folder, **options).start())
        return servers[-1]

    yield start
    for server in servers:
        server.stop(0)


def _client(*endpoints: BlockNodeEndpoint) -> BlockNodeClient:
    return BlockNodeClient(endpoints, OPTIONS)


def _content(hedera_data: Path, golden: BlockGolden) -> bytes:
    path = hedera_data / golden.path
    return block_content(path.read_bytes(), path.name, limit=1 << 28)


def _copy_block(hedera_data: Path, number: int, folder: Path, name: str = "{}.blk.gz") -> None:
    """tss-schnorr block ``number`` into ``folder`` as a sink writes it: whole, then renamed."""
    partial = folder / "block.part"
    partial.write_bytes((hedera_data / TSS[number].path).read_bytes())
    partial.replace(folder / name.format(number))


@pytest.mark.parametrize("chain", CHAINS)
def test_every_block_is_its_files_bytes_and_gives_the_roots_the_data_lists(
    hedera_data: Path, serve: Serve, chain: str
) -> None:
    goldens = CHAINS[chain]
    server = serve(hedera_data / "blocks" / chain)
    numbers = [golden.number for golden in goldens]
    with _client(server.endpoint) as client:
        (status,) = client.statuses()
        assert (status.first_available, status.last_available) == (min(numbers), max(numbers))
        for golden in goldens:
            block = client.get_block(golden.number)
            assert (block.number, block.endpoint) == (golden.number, server.endpoint)
            assert block.content == _content(hedera_data, golden)
            assert block_root_hash(parse_block(block.content, block.name)).hex() == golden.root
        runs = [[7, 8], [16]] if chain == "mirror-node-blockstreams" else [numbers]
        streamed = [block for run in runs for block in client.subscribe(run[0], run[-1])]
    assert [block.number for block in streamed] == numbers
    assert [block.content for block in streamed] == [_content(hedera_data, golden) for golden in goldens]


def test_a_subscription_from_the_middle_ends_at_its_end_block(hedera_data: Path, serve: Serve) -> None:
    server = serve(hedera_data / "blocks" / "tss-schnorr")
    with _client(server.endpoint) as client:
        blocks = list(client.subscribe(3, 4))
    assert [block.number for block in blocks] == [3, 4]
    assert [block.content for block in blocks] == [_content(hedera_data, TSS[3]), _content(hedera_data, TSS[4])]


def test_a_live_tail_streams_each_block_as_its_file_appears(hedera_data: Path, serve: Serve, tmp_path: Path) -> None:
    folder = tmp_path / "testnet" / "block" / "0000" / "0000" / "0000" / "0000"
    folder.mkdir(parents=True)
    bucket_name = "{:03d}.blk.gz"  # the buckets' layout: 4 folders of 4 digits, then 3
    for number in (0, 1, 2):
        _copy_block(hedera_data, number, folder, bucket_name)
    server = serve(tmp_path)
    with _client(server.endpoint) as client:
        stream = client.subscribe(1)
        assert [next(stream).number, next(stream).number] == [1, 2]
        _copy_block(hedera_data, 3, folder, bucket_name)
        block = next(stream)
        assert (block.number, block.content) == (3, _content(hedera_data, TSS[3]))
        stream.close()
        assert client.statuses()[0].last_available == 3


def test_a_stream_cut_inside_a_block_is_transient_and_the_next_call_resumes_there(
    hedera_data: Path, serve: Serve
) -> None:
    cuts: list[tuple[int, int]] = []

    def cut_block_2_once(number: int, item_set: int) -> None:
        if (number, item_set) == (2, 1) and not cuts:
            cuts.append((number, item_set))
            raise RuntimeError("the block node fails inside block 2")

    server = serve(hedera_data / "blocks" / "tss-schnorr", max_set_bytes=4096, before_item_set=cut_block_2_once)
    received: list[int] = []
    with _client(server.endpoint) as client:
        with pytest.raises(BlockNodeUnavailableError) as failure:
            for block in client.subscribe(0, 5):
                received.append(block.number)
        assert is_transient(failure.value)
        assert received == [0, 1]  # nothing of block 2 was handed on
        resumed = list(client.subscribe(received[-1] + 1, 5))
    assert cuts == [(2, 1)]
    assert [block.number for block in resumed] == [2, 3, 4, 5]
    assert [block.content for block in resumed] == [_content(hedera_data, golden) for golden in TSS[2:]]


def test_a_block_node_that_dies_mid_stream_raises_transient_and_is_resumed_at_the_next_block(
    hedera_data: Path, serve: Serve, tmp_path: Path
) -> None:
    for number in (0, 1, 2, 3):
        _copy_block(hedera_data, number, tmp_path)
    server = serve(tmp_path)
    port = server.port
    with _client(server.endpoint) as client:
        stream = client.subscribe(2)
        assert [next(stream).number, next(stream).number] == [2, 3]
        server.stop(0)  # abruptly, while the stream waits for block 4
        with pytest.raises(BlockNodeUnavailableError) as failure:
            next(stream)
        assert is_transient(failure.value)
        _copy_block(hedera_data, 4, tmp_path)
        serve(tmp_path, port=port)
        block = next(client.subscribe(4))
    assert (block.number, block.content) == (4, _content(hedera_data, TSS[4]))


def test_a_missing_block_is_a_typed_error(hedera_data: Path, serve: Serve) -> None:
    server = serve(hedera_data / "blocks" / "mirror-node-blockstreams")  # blocks 7, 8 and 16
    with _client(server.endpoint) as client:
        for number in (9, 3, 99):
            with pytest.raises(BlockNotFoundError) as missing:
                client.get_block(number)
            assert not is_transient(missing.value)
        with pytest.raises(BlockNotFoundError):
            next(client.subscribe(3))  # older than the node's first block
        with pytest.raises(BlockNotYetAvailableError):
            next(client.subscribe(18))  # past the next block it will have
        received: list[int] = []
        with pytest.raises(BlockNodeUnavailableError, match="NOT_AVAILABLE"):
            for block in client.subscribe(7, 16):
                received.append(block.number)
        assert received == [7, 8]


def test_with_the_first_block_node_down_the_second_serves(hedera_data: Path, serve: Serve) -> None:
    down = BlockNodeEndpoint("127.0.0.1", _unused_port(), priority=0)
    server = serve(hedera_data / "blocks" / "wrapped-solo-4n")
    up = BlockNodeEndpoint("127.0.0.1", server.port, priority=1)
    now = [0.0]
    with BlockNodeClient([up, down], OPTIONS, clock=lambda: now[0]) as client:
        assert [node.endpoint for node in client.nodes] == [down, up]
        assert [status.endpoint for status in client.statuses()] == [up]
        assert client.get_block(1).endpoint == up
        streamed = list(client.subscribe(0, 4))
        assert {block.endpoint for block in streamed} == {up}
        assert [block.content for block in streamed] == [_content(hedera_data, golden) for golden in SOLO]
        first = client.nodes[0]
        assert not first.active  # three failed calls in a row: put aside, asked last
        now[0] += OPTIONS.readmit_seconds
        assert first.active  # and asked first again once the readmit time has passed


def test_a_block_larger_than_an_item_set_is_sent_in_sets_and_put_back_together(serve: Serve, tmp_path: Path) -> None:
    content = _generated_block(42, transactions=20_000)  # a mainnet-sized block: 6 MB
    (tmp_path / "42.blk").write_bytes(content)
    sets: list[int] = []
    server = serve(tmp_path, before_item_set=lambda number, index: sets.append(index))
    with _client(server.endpoint) as client:
        (streamed,) = list(client.subscribe(42, 42))
        assert client.get_block(42).content == content
    assert streamed.content == content
    assert len(sets) == len(content) // 1_048_576 + 1


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_the_command_line_serves_a_folder_until_it_is_stopped_or_killed(hedera_data: Path, stop: int) -> None:
    command = [sys.executable, "-m", "hedera_history.cli.main", "stack", "block-node"]
    process = subprocess.Popen(
        [*command, str(hedera_data / "blocks" / "tss-schnorr"), "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "serving blocks 0..5" in line, line
        with _client(parse_endpoint(line.split()[2])) as client:
            assert client.get_block(5).content == _content(hedera_data, TSS[5])
            stream = client.subscribe(4)  # live: waits for block 6 after 4 and 5
            assert [next(stream).number, next(stream).number] == [4, 5]
            process.send_signal(stop)
            if stop == signal.SIGTERM:
                assert list(stream) == []  # a graceful end: the stream's SUCCESS
                assert process.wait(timeout=60) == 0
            else:
                with pytest.raises(BlockNodeUnavailableError):
                    next(stream)
    finally:
        process.kill()
        process.wait()


def test_a_refused_request_is_not_transient(hedera_data: Path, serve: Serve) -> None:
    server = serve(hedera_data / "blocks" / "tss-schnorr")
    with _client(server.endpoint) as client, pytest.raises(BlockNodeError, match="INVALID_END_BLOCK_NUMBER") as refused:
        next(client.subscribe(4, 2))
    assert not is_transient(refused.value)


def test_a_block_that_does_not_come_in_time_cancels_the_subscription(hedera_data: Path, serve: Serve) -> None:
    server = serve(hedera_data / "blocks" / "tss-schnorr")
    options = replace(OPTIONS, block_timeout_seconds=0.5)
    with BlockNodeClient([server.endpoint], options) as client:
        stream = client.subscribe(6)  # the node's next block, which never comes
        with pytest.raises(BlockNodeUnavailableError, match=r"no whole block 6 within 0\.5 s"):
            next(stream)


def _unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _generated_block(number: int, *, transactions: int) -> bytes:
    """A block of ``transactions`` random signed transactions between a header, a footer and a proof."""
    rng = random.Random(number)
    header = block_header_pb2.BlockHeader(number=number)
    header.hapi_proto_version.minor = 78
    header.block_timestamp.seconds = 1_800_000_000
    footer = block_footer_pb2.BlockFooter(
        previous_block_root_hash=bytes(48), root_hash_of_all_block_hashes_tree=bytes(48)
    )
    items = [
        block_item_pb2.BlockItem(block_header=header),
        *(block_item_pb2.BlockItem(signed_transaction=rng.randbytes(300)) for _ in range(transactions)),
        block_item_pb2.BlockItem(block_footer=footer),
        block_item_pb2.BlockItem(block_proof=block_proof_pb2.BlockProof(block=number)),
    ]
    return serialize_block(item.SerializeToString() for item in items)
