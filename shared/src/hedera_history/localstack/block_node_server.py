"""A local block node: a gRPC server on loopback that serves a folder of block files through the
block node's published API (HIP-1081), for the tests and the local stack. The block node itself
cannot run here; this answers as it does for the three calls the project makes.

- **The folder.** Every ``*.blk``, ``*.blk.gz`` or ``*.blk.zstd`` below it, flat or in the buckets'
  layout, by the number its path gives (else its header's); one chain (a folder holding two
  files of one number is refused). It is listed again whenever a call needs a block it has not
  seen, and every ``poll_seconds`` while a subscription waits, so new files are served as they
  appear (whole: write them under another name and rename them, as the project's sinks do).
- **serverStatus**: the lowest and highest number found (both ``UNKNOWN_BLOCK_NUMBER`` when none).
- **getBlock**: the file's decompressed bytes exactly (``retrieve_latest`` or the unknown number:
  the highest); a number outside the folder's blocks is ``NOT_AVAILABLE``, a file that cannot be
  read ``NOT_FOUND``, as the block node's ``BlockAccessServicePlugin`` answers.
- **subscribeBlockStream**, by the rules of the block node's ``BlockStreamSubscriberSession``: the
  unknown number as start means live (from the next new block) or, with an end, from the first
  block; an end before the start is ``INVALID_END_BLOCK_NUMBER``; a start before the first block
  or more than ``max_future_blocks`` past the last is ``NOT_AVAILABLE``. Each block goes out as
  item sets of about ``max_set_bytes`` (1 MiB, the block node's chunk) and an end-of-block
  message; a block missing below the last one found is ``NOT_AVAILABLE``; past the last, the
  stream waits for it (the live tail). The stream ends with ``SUCCESS`` after its end block, or
  when the server stops gracefully.

Bounded: at most ``workers`` calls at once (a waiting subscription holds one; beyond them a call
is refused with ``RESOURCE_EXHAUSTED``); ``stop`` ends every call. ``before_item_set`` is a test's
hook, called before each item set is sent, to make a stream fail at a chosen place.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc

from hedera_history.errors import ConfigError, CorruptFileError, FormatError, PortInUseError, SourceError
from hedera_history.formats.block import block_content, parse_message
from hedera_history.formats.compression import DEFAULT_MAX_DECOMPRESSED_BYTES
from hedera_history.proto_gen import block_node_pb2 as api
from hedera_history.sources.block_assembly import header_number
from hedera_history.sources.block_node_api import (
    GET_BLOCK,
    SERVER_STATUS,
    SUBSCRIBE_BLOCK_STREAM,
    UNKNOWN_BLOCK_NUMBER,
    BlockNodeEndpoint,
    serialize,
)
from hedera_history.sources.local_blocks import LocalBlock, block_number, list_block_files

log = logging.getLogger(__name__)

_Subscribe = api.SubscribeStreamResponse
_Access = api.BlockResponse
MAX_SET_BYTES = 1_048_576
MAX_FUTURE_BLOCKS = 4000
"""The block node's ``maximumFutureRequest``."""


class BlockFolder:
    """The block files under ``root`` by number, listed again on demand."""

    def __init__(self, root: Path, *, max_decompressed: int = DEFAULT_MAX_DECOMPRESSED_BYTES) -> None:
        self.root = root
        self._max_decompressed = max_decompressed
        self._lock = threading.Lock()
        self._blocks: dict[int, LocalBlock] = {}
        self._seen: set[Path] = set()
        self.refresh(strict=True)

    def refresh(self, *, strict: bool = False) -> None:
        """Take in files that appeared; ``strict``: a second file of one number is an error
        (later, it is passed over with a warning)."""
        with self._lock:
            for block in list_block_files(self.root):
                if block.path in self._seen:
                    continue
                number = block_number(block, max_decompressed=self._max_decompressed)
                if number is None:
                    continue  # not readable yet: looked at again next time
                self._seen.add(block.path)
                known = self._blocks.get(number)
                if known is None:
                    self._blocks[number] = block
                    continue
                message = f"two block files of block {number} under {self.root}: {known.name} and {block.name}"
                if strict:
                    raise ConfigError(message)
                log.warning("%s; serving the first", message)

    @property
    def first(self) -> int | None:
        with self._lock:
            return min(self._blocks, default=None)

    @property
    def last(self) -> int | None:
        with self._lock:
            return max(self._blocks, default=None)

    def has(self, number: int) -> bool:
        with self._lock:
            return number in self._blocks

    def content(self, number: int) -> bytes:
        """The serialised ``Block`` of the file (decompressed)."""
        with self._lock:
            block = self._blocks[number]
        return block_content(block.read(), block.name, limit=self._max_decompressed)


class BlockNodeServer:
    """``BlockFolder`` served over gRPC on ``host:port`` (port 0: a free one, see :attr:`port`)."""

    def __init__(
        self,
        folder: Path,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        workers: int = 8,
        poll_seconds: float = 0.1,
        max_set_bytes: int = MAX_SET_BYTES,
        max_future_blocks: int = MAX_FUTURE_BLOCKS,
        before_item_set: Callable[[int, int], None] | None = None,
    ) -> None:
        self.folder = BlockFolder(folder)
        self._host = host
        self._requested_port = port
        self._workers = workers
        self._poll_seconds = poll_seconds
        self._max_set_bytes = max_set_bytes
        self._max_future_blocks = max_future_blocks
        self._before_item_set = before_item_set
        self._stopping = threading.Event()
        self._server: grpc.Server | None = None
        self.port = 0

    @property
    def endpoint(self) -> BlockNodeEndpoint:
        return BlockNodeEndpoint(self._host, self.port)

    def start(self) -> BlockNodeServer:
        server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="block-node"),
            handlers=self._handlers(),
            maximum_concurrent_rpcs=self._workers,
            options=[("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)],
        )
        target = BlockNodeEndpoint(self._host, self._requested_port).target
        try:
            self.port = server.add_insecure_port(target)
        except RuntimeError as e:  # grpc's "failed to bind"
            raise PortInUseError(f"the local block node cannot listen on {target}: {e}") from e
        server.start()
        self._server = server
        return self

    def stop(self, grace: float | None = 1.0) -> None:
        """End every call (waiting subscriptions end with ``SUCCESS`` within ``grace`` seconds;
        None or 0 cuts them as a dying node would) and close the port."""
        if grace:
            self._stopping.set()
        if self._server is not None:
            self._server.stop(grace).wait()
            self._server = None
        self._stopping.set()

    def __enter__(self) -> BlockNodeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _handlers(self) -> list[Any]:
        """One generic handler per service, each method under its path's name."""
        unary, stream = grpc.unary_unary_rpc_method_handler, grpc.unary_stream_rpc_method_handler
        methods = (
            (SERVER_STATUS, unary, self._server_status, api.ServerStatusRequest),
            (GET_BLOCK, unary, self._get_block, api.BlockRequest),
            (SUBSCRIBE_BLOCK_STREAM, stream, self._subscribe, api.SubscribeStreamRequest),
        )
        services: dict[str, dict[str, Any]] = {}
        for path, kind, behaviour, request_type in methods:
            service, method = path.strip("/").split("/")
            services.setdefault(service, {})[method] = kind(
                behaviour, request_deserializer=request_type.FromString, response_serializer=serialize
            )
        return [grpc.method_handlers_generic_handler(service, handlers) for service, handlers in services.items()]

    def _server_status(self, request: api.ServerStatusRequest, context: grpc.ServicerContext) -> Any:
        del request, context
        self.folder.refresh()
        first, last = self.folder.first, self.folder.last
        if first is None or last is None:
            return api.ServerStatusResponse(
                first_available_block=UNKNOWN_BLOCK_NUMBER,
                last_available_block=UNKNOWN_BLOCK_NUMBER,
                next_expected_block=UNKNOWN_BLOCK_NUMBER,
            )
        return api.ServerStatusResponse(
            first_available_block=first, last_available_block=last, next_expected_block=last + 1
        )

    def _get_block(self, request: api.BlockRequest, context: grpc.ServicerContext) -> Any:
        del context
        kind = request.WhichOneof("block_specifier")
        if kind is None or (kind == "retrieve_latest" and not request.retrieve_latest):
            return _Access(status=_Access.INVALID_REQUEST)
        number = request.block_number if kind == "block_number" else UNKNOWN_BLOCK_NUMBER
        if number == UNKNOWN_BLOCK_NUMBER or not self.folder.has(number):
            self.folder.refresh()
        if number == UNKNOWN_BLOCK_NUMBER:
            number = self.folder.last if self.folder.last is not None else UNKNOWN_BLOCK_NUMBER
        if not self.folder.has(number):
            return _Access(status=_Access.NOT_AVAILABLE)
        try:
            return _Access(status=_Access.SUCCESS, block=self.folder.content(number))
        except (FormatError, SourceError) as e:
            log.warning("local block node cannot read block %d: %s", number, e)
            return _Access(status=_Access.NOT_FOUND)

    def _subscribe(self, request: api.SubscribeStreamRequest, context: grpc.ServicerContext) -> Iterator[Any]:
        start, end = request.start_block_number, request.end_block_number
        self.folder.refresh()
        first_block = self._first_block(start, end, context)
        if isinstance(first_block, str):
            yield _Subscribe(status=first_block)
            return
        number = first_block
        while end == UNKNOWN_BLOCK_NUMBER or number <= end:
            if self.folder.has(number):
                try:
                    yield from self._block_messages(number)
                except (FormatError, SourceError) as e:
                    log.warning("local block node cannot send block %d: %s", number, e)
                    yield _Subscribe(status=_Subscribe.ERROR)
                    return
                number += 1
                continue
            last = self.folder.last
            if last is not None and number <= last:
                yield _Subscribe(status=_Subscribe.NOT_AVAILABLE)  # a gap in the folder's history
                return
            if not self._wait(context):
                break
            self.folder.refresh()
        yield _Subscribe(status=_Subscribe.SUCCESS)

    def _first_block(self, start: int, end: int, context: grpc.ServicerContext) -> int | str:
        """The first block to send, or the status that refuses the request."""
        first, last = self.folder.first, self.folder.last
        if start == UNKNOWN_BLOCK_NUMBER:
            if end != UNKNOWN_BLOCK_NUMBER:
                return first if first is not None and first <= end else "NOT_AVAILABLE"
            return self._live_start(context)
        if end != UNKNOWN_BLOCK_NUMBER and start > end:
            return "INVALID_END_BLOCK_NUMBER"
        if first is None or start < first or start > (last if last is not None else -1) + self._max_future_blocks:
            return "NOT_AVAILABLE"
        return start

    def _live_start(self, context: grpc.ServicerContext) -> int | str:
        """Live: the next new block (with no block yet, the first one to come)."""
        last = self.folder.last
        if last is not None:
            return last + 1
        while self._wait(context):
            self.folder.refresh()
            if self.folder.first is not None:
                return self.folder.first
        return "SUCCESS"

    def _block_messages(self, number: int) -> Iterator[Any]:
        # A Block is a BlockItemSet on the wire (field 1, repeated items): its items as sent.
        name = f"block {number}"
        items = list(parse_message(api.BlockItemSet, self.folder.content(number), "Block", name).block_items)
        if not items:
            raise CorruptFileError("field items: expected at least a header but got none", file=name)
        batch: list[bytes] = []
        size = 0
        sets = 0
        for item in items:
            if batch and size + len(item) > self._max_set_bytes:
                yield self._item_set(number, sets, batch)
                batch, size, sets = [], 0, sets + 1
            batch.append(item)
            size += len(item)
        yield self._item_set(number, sets, batch)
        yield _Subscribe(end_of_block=api.BlockEnd(block_number=header_number(items[0], name)))

    def _item_set(self, number: int, index: int, items: list[bytes]) -> Any:
        if self._before_item_set is not None:
            self._before_item_set(number, index)
        return _Subscribe(block_items=api.BlockItemSet(block_items=items))

    def _wait(self, context: grpc.ServicerContext) -> bool:
        """Wait a poll for new files; False when the call or the server is ending."""
        return context.is_active() and not self._stopping.wait(self._poll_seconds)
