"""Blocks from block nodes over gRPC (HIP-1081): ``serverStatus``, ``getBlock`` and
``subscribeBlockStream``, over several endpoints with priority and failover.

As the reference mirror node reads them (``downloader/block/BlockNode.java`` and its schedulers):

- **Which node.** Endpoints are tried by priority (lower first, then in the order given). A
  subscription goes to the first node whose ``serverStatus`` range holds its start block; a node
  that failed ``max_attempts`` calls in a row is put aside for ``readmit_seconds`` and asked only
  when no other node can serve. Unlike the reference, a node whose next block is the start (at
  the tip) is taken too, after those holding it, so a live tail waits on the node's push instead
  of polling its status; and ``getBlock`` asks the nodes in the same order until one has the block.
- **Block boundaries.** A subscription sends item sets, then an end-of-block message per block
  (:mod:`.block_assembly`); a block is handed on only whole, with its number checked.
- **Statuses.** ``SUCCESS`` ends a stream; ``ERROR`` and ``NOT_AVAILABLE`` are
  :class:`BlockNodeUnavailableError` (transient), the ``INVALID_*`` codes :class:`BlockNodeError`,
  an unknown one :class:`BlockNodeProtocolError`. A stream cut without a status is transient.
- **Timeouts.** ``serverStatus`` within ``status_timeout_seconds``; ``getBlock`` within
  ``block_timeout_seconds``; in a subscription, each block within ``block_timeout_seconds`` of the
  last one (time the caller spends on a block is not counted), else the call is cancelled.

No retry happens here: a failed call raises, and the caller asks again (a subscription from the
block after the last one it received), when and how often it decides.
"""

from __future__ import annotations

import builtins
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from hedera_history.config import Settings
from hedera_history.errors import (
    BlockNodeError,
    BlockNodeProtocolError,
    BlockNodeUnavailableError,
    BlockNotFoundError,
    BlockNotYetAvailableError,
    ConfigError,
    SourceError,
    is_transient,
)
from hedera_history.proto_gen import block_node_pb2 as api
from hedera_history.sources.block_assembly import BlockAssembler, first_item, header_number
from hedera_history.sources.block_node_api import (
    GET_BLOCK,
    SERVER_STATUS,
    SUBSCRIBE_BLOCK_STREAM,
    UNKNOWN_BLOCK_NUMBER,
    BlockNodeEndpoint,
    parse_endpoints,
    serialize,
)

_RETRYABLE_CODES = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.CANCELLED,
    }
)
_Subscribe = api.SubscribeStreamResponse
_Access = api.BlockResponse


@dataclass(frozen=True, slots=True)
class BlockNodeOptions:
    """Timeouts and bounds of block-node calls: the ``HEDERA_HISTORY_BLOCK_NODE_*`` settings, whose
    defaults are the reference's (but the status timeout, 2 s for its 400 ms: a fresh channel's
    first call also connects)."""

    status_timeout_seconds: float
    block_timeout_seconds: float
    max_attempts: int
    readmit_seconds: float
    max_message_bytes: int
    max_block_bytes: int

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> BlockNodeOptions:
        """From ``settings`` (None: the defaults)."""
        settings = settings or Settings()
        return cls(
            status_timeout_seconds=settings.block_node_status_timeout_seconds,
            block_timeout_seconds=settings.block_node_block_timeout_seconds,
            max_attempts=settings.block_node_max_attempts,
            readmit_seconds=settings.block_node_readmit_seconds,
            max_message_bytes=settings.block_node_max_message_bytes,
            max_block_bytes=settings.max_decompressed_bytes,
        )


@dataclass(frozen=True, slots=True)
class BlockNodeStatus:
    """A node's ``serverStatus``: the blocks it serves (None, None when it has none)."""

    endpoint: BlockNodeEndpoint
    first_available: int | None
    last_available: int | None

    def has(self, number: int) -> bool:
        if self.first_available is None or self.last_available is None:
            return False
        return self.first_available <= number <= self.last_available

    def at_tip(self, number: int) -> bool:
        """``number`` is the next block this node will receive."""
        return self.last_available is not None and number == self.last_available + 1


@dataclass(frozen=True, slots=True)
class NodeBlock:
    """One block as a block node served it."""

    number: int
    content: bytes
    """The serialised ``Block`` (what ``formats.block.parse_block`` reads)."""
    endpoint: BlockNodeEndpoint

    @property
    def name(self) -> str:
        """For reports and errors: where the block came from."""
        return f"block {self.number} from block node {self.endpoint}"


class BlockNode:
    """One block node's calls, with its run of failures (the reference's ``BlockNode``)."""

    def __init__(
        self, endpoint: BlockNodeEndpoint, options: BlockNodeOptions, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.endpoint = endpoint
        self._options = options
        self._clock = clock
        self._lock = threading.Lock()
        self._channel: grpc.Channel | None = None
        self._failures = 0
        self._readmit_at: float | None = None

    @property
    def active(self) -> bool:
        """Not put aside, or put aside long enough ago to be asked again."""
        with self._lock:
            if self._readmit_at is not None and self._clock() >= self._readmit_at:
                self._readmit_at = None
            return self._readmit_at is None

    def status(self) -> BlockNodeStatus:
        response = self._call(
            SERVER_STATUS, api.ServerStatusRequest(), api.ServerStatusResponse, self._options.status_timeout_seconds
        )
        first, last = response.first_available_block, response.last_available_block
        if UNKNOWN_BLOCK_NUMBER in (first, last) or first > last:
            return BlockNodeStatus(self.endpoint, None, None)
        return BlockNodeStatus(self.endpoint, first, last)

    def get_block(self, number: int) -> NodeBlock:
        """The block, or :class:`BlockNotFoundError` when this node answers that it has not got it."""
        response = self._call(
            GET_BLOCK, api.BlockRequest(block_number=number), _Access, self._options.block_timeout_seconds
        )
        if response.status == _Access.SUCCESS:
            return self._checked(number, response.block)
        if response.status in (_Access.NOT_FOUND, _Access.NOT_AVAILABLE):
            raise BlockNotFoundError(
                f"block node {self.endpoint} has no block {number} ({_Access.Code.Name(response.status)})"
            )
        raise self._failed(self._status_error(f"getBlock({number})", response.status, _Access.Code))

    def subscribe(self, start: int, end: int | None = None) -> Generator[NodeBlock, None, None]:
        """Blocks ``start`` .. ``end`` (None: without end, each new block as the node receives it);
        closing the generator cancels the call. A node may end the stream (``SUCCESS``) before
        ``end``, as the API allows: the caller carries on from the block after the last received."""
        request = api.SubscribeStreamRequest(
            start_block_number=start, end_block_number=UNKNOWN_BLOCK_NUMBER if end is None else end
        )
        call = self._stream(request)
        watchdog = _BlockWatchdog(self._options.block_timeout_seconds, call.cancel)
        assembler = BlockAssembler(str(self.endpoint), start, max_bytes=self._options.max_block_bytes)
        try:
            for response in call:
                kind = response.WhichOneof("response")
                if kind == "block_items":
                    assembler.add(response.block_items)
                elif kind == "end_of_block":
                    block = assembler.end(response.end_of_block.block_number)
                    self._succeeded()
                    watchdog.pause()
                    yield NodeBlock(block.number, block.content, self.endpoint)
                    if end is not None and block.number >= end:
                        return
                    watchdog.restart()
                elif kind == "status":
                    self._end_of_stream(response.status, assembler, start)
                    return
                else:
                    raise BlockNodeProtocolError(f"block node {self.endpoint} sent a subscription message of no kind")
            raise BlockNodeUnavailableError(
                f"block node {self.endpoint} ended the subscription from block {start} without a status"
                f" (next block {assembler.expected})"
            )
        except grpc.RpcError as e:
            if watchdog.expired:
                raise self._failed(
                    BlockNodeUnavailableError(
                        f"block node {self.endpoint} sent no whole block {assembler.expected} within "
                        f"{self._options.block_timeout_seconds} s"
                    )
                ) from e
            raise self._failed(self._rpc_error(f"subscribeBlockStream({start})", e)) from e
        except SourceError as e:
            self._failed(e)
            raise
        finally:
            watchdog.stop()
            call.cancel()

    def close(self) -> None:
        with self._lock:
            channel, self._channel = self._channel, None
        if channel is not None:
            channel.close()

    def _end_of_stream(self, status: int, assembler: BlockAssembler, start: int) -> None:
        if status != _Subscribe.SUCCESS:
            raise self._status_error(f"subscribeBlockStream({start})", status, _Subscribe.Code)
        if assembler.pending:
            raise BlockNodeProtocolError(
                f"block node {self.endpoint} ended the subscription inside block {assembler.expected}"
            )
        self._succeeded()

    def _checked(self, number: int, content: bytes) -> NodeBlock:
        source = str(self.endpoint)
        try:
            found = header_number(first_item(content, source), source)
        except BlockNodeProtocolError as e:
            self._failed(e)
            raise
        if found != number:
            raise self._failed(
                BlockNodeProtocolError(f"block node {self.endpoint} answered getBlock({number}) with block {found}")
            )
        self._succeeded()
        return NodeBlock(number, content, self.endpoint)

    def _call(self, method: str, request: Any, response_type: Any, timeout: float) -> Any:
        call = self._open().unary_unary(
            method, request_serializer=serialize, response_deserializer=response_type.FromString
        )
        try:
            return call(request, timeout=timeout)
        except grpc.RpcError as e:
            raise self._failed(self._rpc_error(method.rsplit("/", 1)[-1], e)) from e

    def _stream(self, request: api.SubscribeStreamRequest) -> Any:
        call = self._open().unary_stream(
            SUBSCRIBE_BLOCK_STREAM, request_serializer=serialize, response_deserializer=_Subscribe.FromString
        )
        return call(request)

    def _open(self) -> grpc.Channel:
        with self._lock:
            if self._channel is None:
                options = [
                    ("grpc.max_receive_message_length", self._options.max_message_bytes),
                    ("grpc.max_send_message_length", self._options.max_message_bytes),
                ]
                target = self.endpoint.target
                self._channel = (
                    grpc.secure_channel(target, grpc.ssl_channel_credentials(), options)
                    if self.endpoint.tls
                    else grpc.insecure_channel(target, options)
                )
            return self._channel

    def _succeeded(self) -> None:
        with self._lock:
            self._failures = 0

    def _failed(self, error: SourceError) -> SourceError:
        """Count a failure (the ``max_attempts``-th in a row puts the node aside); the error, to raise."""
        with self._lock:
            self._failures += 1
            if self._failures >= self._options.max_attempts:
                self._failures = 0
                self._readmit_at = self._clock() + self._options.readmit_seconds
        return error

    def readmit(self) -> None:
        """Ask this node again now, put aside or not (when no other node can serve)."""
        with self._lock:
            self._readmit_at = None

    def _rpc_error(self, what: str, error: grpc.RpcError) -> SourceError:
        code = error.code() if isinstance(error, grpc.Call) else grpc.StatusCode.UNKNOWN
        details = error.details() if isinstance(error, grpc.Call) else str(error)
        message = f"block node {self.endpoint}: {what}: {code.name} {details}"
        return BlockNodeUnavailableError(message) if code in _RETRYABLE_CODES else BlockNodeError(message)

    def _status_error(self, what: str, status: int, codes: Any) -> SourceError:
        names = dict(codes.items())
        name = codes.Name(status) if status in names.values() else str(status)
        message = f"block node {self.endpoint}: {what} ended with status {name}"
        if status in (names["ERROR"], names["NOT_AVAILABLE"]):
            return BlockNodeUnavailableError(message)
        if name.startswith("INVALID_"):
            return BlockNodeError(message)
        return BlockNodeProtocolError(message)


class BlockNodeClient:
    """Several block nodes, asked by priority, failing over to the next."""

    def __init__(
        self,
        endpoints: Sequence[BlockNodeEndpoint],
        options: BlockNodeOptions | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not endpoints:
            raise ConfigError("no block node given (HEDERA_HISTORY_BLOCK_NODES)")
        ordered = sorted(enumerate(endpoints), key=lambda pair: (pair[1].priority, pair[0]))
        chosen = options or BlockNodeOptions.from_settings()
        self.nodes = tuple(BlockNode(endpoint, chosen, clock=clock) for _, endpoint in ordered)

    @classmethod
    def from_settings(cls, settings: Settings) -> BlockNodeClient:
        """The block nodes of ``HEDERA_HISTORY_BLOCK_NODES`` (or the network preset's)."""
        return cls(parse_endpoints(settings.block_nodes), BlockNodeOptions.from_settings(settings))

    def __enter__(self) -> BlockNodeClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for node in self.nodes:
            node.close()

    def statuses(self) -> builtins.list[BlockNodeStatus]:
        """The ``serverStatus`` of every node that answered, by priority;
        :class:`BlockNodeUnavailableError` when none did."""
        answers, errors = self._statuses(self.nodes)
        if not answers:
            raise _none_answered("serverStatus", errors)
        return answers

    def get_block(self, number: int) -> NodeBlock:
        """Block ``number`` from the first node (by priority, active ones first) that has it."""
        errors: list[SourceError] = []
        for node in self._by_preference():
            try:
                return node.get_block(number)
            except SourceError as e:
                errors.append(e)
        if all(isinstance(e, BlockNotFoundError) for e in errors):
            raise BlockNotFoundError(f"no block node has block {number}: {_joined(errors)}")
        raise _none_answered(f"getBlock({number})", errors)

    def subscribe(self, start: int, end: int | None = None) -> Generator[NodeBlock, None, None]:
        """Blocks ``start`` .. ``end`` (None: without end) from one node, chosen as the reference's
        scheduler chooses it. When the stream fails the error is raised; subscribe again from the
        block after the last one received, and the next node that can serve it is chosen."""
        node = self.node_for(start)
        yield from node.subscribe(start, end)

    def node_for(self, number: int) -> BlockNode:
        """The node a subscription from ``number`` goes to: by priority, active nodes first, one
        holding the block, else one whose next block it is."""
        answers, errors = self._statuses(self._by_preference())
        by_endpoint = {node.endpoint: node for node in self.nodes}
        for wanted in (BlockNodeStatus.has, BlockNodeStatus.at_tip):
            for status in answers:
                if wanted(status, number):
                    node = by_endpoint[status.endpoint]
                    node.readmit()
                    return node
        if not answers:
            raise _none_answered(f"subscribeBlockStream({number})", errors)
        ranges = ", ".join(f"{s.endpoint} {_range(s)}" for s in answers)
        last = max((s.last_available for s in answers if s.last_available is not None), default=None)
        if last is None or number > last:
            raise BlockNotYetAvailableError(f"no block node has reached block {number}: {ranges}")
        raise BlockNotFoundError(f"no block node holds block {number}: {ranges}")

    def _by_preference(self) -> builtins.list[BlockNode]:
        active = [node for node in self.nodes if node.active]
        return active + [node for node in self.nodes if node not in active]

    @staticmethod
    def _statuses(nodes: Sequence[BlockNode]) -> tuple[builtins.list[BlockNodeStatus], builtins.list[SourceError]]:
        answers: list[BlockNodeStatus] = []
        errors: list[SourceError] = []
        for node in nodes:
            try:
                answers.append(node.status())
            except SourceError as e:
                errors.append(e)
        return answers, errors


class _BlockWatchdog:
    """Calls ``expire`` once no block has come for ``seconds`` (paused while the caller holds one)."""

    def __init__(self, seconds: float, expire: Callable[[], object]) -> None:
        self._seconds = seconds
        self._expire = expire
        self._condition = threading.Condition()
        self._deadline: float | None = time.monotonic() + seconds
        self._stopped = False
        self.expired = False
        threading.Thread(target=self._run, name="block-node-watchdog", daemon=True).start()

    def pause(self) -> None:
        with self._condition:
            self._deadline = None

    def restart(self) -> None:
        with self._condition:
            self._deadline = time.monotonic() + self._seconds
            self._condition.notify()

    def stop(self) -> None:
        with self._condition:
            self._stopped = True
            self._condition.notify()

    def _run(self) -> None:
        with self._condition:
            while not self._stopped:
                if self._deadline is None:
                    self._condition.wait()
                    continue
                remaining = self._deadline - time.monotonic()
                if remaining <= 0:
                    self.expired = True
                    break
                self._condition.wait(remaining)
        if self.expired:
            self._expire()


def _none_answered(what: str, errors: Sequence[SourceError]) -> SourceError:
    message = f"no block node answered {what}: {_joined(errors)}"
    if errors and not any(is_transient(e) for e in errors):
        return BlockNodeError(message)
    return BlockNodeUnavailableError(message)


def _joined(errors: Sequence[SourceError]) -> str:
    return "; ".join(e.reason for e in errors) or "none asked"


def _range(status: BlockNodeStatus) -> str:
    if status.first_available is None:
        return "(no blocks)"
    return f"{status.first_available}..{status.last_available}"
