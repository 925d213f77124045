"""proto/hedera_history/block_node.proto is wire-identical to the block node's published API.

The published messages are restated here with their real types (``BlockItem`` and ``Block`` of
HAPI, as hiero-sdk-python carries them) in a pool of their own: the same package, services,
methods, field numbers and kinds as ``block-node/api/`` at hiero-block-node b81bbd1. Ours carry
items and blocks as ``bytes``; both must read each other's bytes, and real blocks must survive the
trip unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from hedera_history import hapi  # noqa: F401  (registers the SDK's packages)
from hedera_history.formats.block import block_content, parse_block
from hedera_history.proto_gen import block_node_pb2 as ours
from hedera_history.sources import block_node_api

from hiero_sdk_python.hapi.block.stream import block_pb2  # isort: skip

F = descriptor_pb2.FieldDescriptorProto
PACKAGE = "org.hiero.block.api"
ITEM = ".com.hedera.hapi.block.stream.BlockItem"
BLOCK = ".com.hedera.hapi.block.stream.Block"

# (message, [(field, number, type, label, type name or "", oneof index or None)])
PUBLISHED_MESSAGES: dict[str, list[tuple[str, int, int, int, str, int | None]]] = {
    "BlockItemSet": [("block_items", 1, F.TYPE_MESSAGE, F.LABEL_REPEATED, ITEM, None)],
    "BlockEnd": [("block_number", 1, F.TYPE_UINT64, F.LABEL_OPTIONAL, "", None)],
    "ServerStatusRequest": [],
    "ServerStatusResponse": [
        ("first_available_block", 1, F.TYPE_UINT64, F.LABEL_OPTIONAL, "", None),
        ("last_available_block", 2, F.TYPE_UINT64, F.LABEL_OPTIONAL, "", None),
        ("only_latest_state", 3, F.TYPE_BOOL, F.LABEL_OPTIONAL, "", None),
        ("next_expected_block", 4, F.TYPE_UINT64, F.LABEL_OPTIONAL, "", None),
    ],
    "BlockRequest": [
        ("block_number", 1, F.TYPE_UINT64, F.LABEL_OPTIONAL, "", 0),
        ("retrieve_latest", 2, F.TYPE_BOOL, F.LABEL_OPTIONAL, "", 0),
    ],
    "BlockResponse": [
        ("status", 1, F.TYPE_ENUM, F.LABEL_OPTIONAL, f".{PACKAGE}.BlockResponse.Code", None),
        ("block", 2, F.TYPE_MESSAGE, F.LABEL_OPTIONAL, BLOCK, None),
    ],
    "SubscribeStreamRequest": [
        ("start_block_number", 1, F.TYPE_UINT64, F.LABEL_OPTIONAL, "", None),
        ("end_block_number", 2, F.TYPE_UINT64, F.LABEL_OPTIONAL, "", None),
    ],
    "SubscribeStreamResponse": [
        ("status", 1, F.TYPE_ENUM, F.LABEL_OPTIONAL, f".{PACKAGE}.SubscribeStreamResponse.Code", 0),
        ("block_items", 2, F.TYPE_MESSAGE, F.LABEL_OPTIONAL, f".{PACKAGE}.BlockItemSet", 0),
        ("end_of_block", 3, F.TYPE_MESSAGE, F.LABEL_OPTIONAL, f".{PACKAGE}.BlockEnd", 0),
    ],
}
PUBLISHED_CODES = {
    "BlockResponse": ["UNKNOWN", "SUCCESS", "INVALID_REQUEST", "ERROR", "NOT_FOUND", "NOT_AVAILABLE"],
    "SubscribeStreamResponse": [
        "UNKNOWN",
        "SUCCESS",
        "INVALID_REQUEST",
        "ERROR",
        "INVALID_START_BLOCK_NUMBER",
        "INVALID_END_BLOCK_NUMBER",
        "NOT_AVAILABLE",
    ],
}
PUBLISHED_METHODS = {
    "/org.hiero.block.api.BlockNodeService/serverStatus": block_node_api.SERVER_STATUS,
    "/org.hiero.block.api.BlockAccessService/getBlock": block_node_api.GET_BLOCK,
    "/org.hiero.block.api.BlockStreamSubscribeService/subscribeBlockStream": block_node_api.SUBSCRIBE_BLOCK_STREAM,
}
_ONEOFS = {"BlockRequest": "block_specifier", "SubscribeStreamResponse": "response"}
# Both a sub-message and a byte string are length-delimited on the wire.
_WIRE_KIND: dict[int, str] = {
    F.TYPE_MESSAGE: "LEN",
    F.TYPE_BYTES: "LEN",
    F.TYPE_UINT64: "VARINT",
    F.TYPE_BOOL: "VARINT",
    F.TYPE_ENUM: "VARINT",
}


def _published_pool() -> descriptor_pool.DescriptorPool:
    pool = descriptor_pool.DescriptorPool()
    added: set[str] = set()

    def add(file: Any) -> None:
        if file.name in added:
            return
        for dependency in file.dependencies:
            add(dependency)
        proto = descriptor_pb2.FileDescriptorProto()
        file.CopyToProto(proto)
        pool.Add(proto)
        added.add(file.name)

    add(block_pb2.DESCRIPTOR)
    api = descriptor_pb2.FileDescriptorProto(
        name="published/block_node_api.proto", package=PACKAGE, syntax="proto3", dependency=[block_pb2.DESCRIPTOR.name]
    )
    for name, fields in PUBLISHED_MESSAGES.items():
        message = api.message_type.add(name=name)
        if name in _ONEOFS:
            message.oneof_decl.add(name=_ONEOFS[name])
        for field, number, kind, label, type_name, oneof in fields:
            added_field = message.field.add(name=field, number=number, type=kind, label=label)
            if type_name:
                added_field.type_name = type_name
            if oneof is not None:
                added_field.oneof_index = oneof
        for value, code in enumerate(PUBLISHED_CODES.get(name, [])):
            enum = message.enum_type[0] if message.enum_type else message.enum_type.add(name="Code")
            enum.value.add(name=code, number=value)
    pool.Add(api)
    return pool


PUBLISHED = _published_pool()


def published(name: str) -> Any:
    return message_factory.GetMessageClass(PUBLISHED.FindMessageTypeByName(f"{PACKAGE}.{name}"))


def test_ours_declares_the_published_packages_methods_and_fields() -> None:
    assert ours.DESCRIPTOR.package == PACKAGE
    for path, ours_path in PUBLISHED_METHODS.items():
        assert ours_path == path
    services = ours.DESCRIPTOR.services_by_name
    assert services["BlockStreamSubscribeService"].methods_by_name["subscribeBlockStream"].server_streaming
    for name, fields in PUBLISHED_MESSAGES.items():
        message = ours.DESCRIPTOR.message_types_by_name[name]
        assert {f.name: f.number for f in message.fields} == {field[0]: field[1] for field in fields}, name
        for field, number, kind, label, _, oneof in fields:
            mine = message.fields_by_number[number]
            assert _WIRE_KIND[mine.type] == _WIRE_KIND[kind], (name, field)
            assert mine.is_repeated == (label == F.LABEL_REPEATED), (name, field)
            assert (mine.containing_oneof is not None) == (oneof is not None), (name, field)
    for name, codes in PUBLISHED_CODES.items():
        enum = ours.DESCRIPTOR.message_types_by_name[name].enum_types_by_name["Code"]
        assert [(v.name, v.number) for v in enum.values] == [(code, n) for n, code in enumerate(codes)]


@pytest.fixture(scope="module")
def real_block(hedera_data: Path) -> bytes:
    path = hedera_data / "blocks" / "tss-schnorr" / "1.blk.gz"
    return block_content(path.read_bytes(), path.name, limit=1 << 28)


def test_an_item_set_and_its_end_read_the_same_both_ways(real_block: bytes) -> None:
    items = [item.data for item in parse_block(real_block, "1.blk.gz").items]
    # What the client's assembly and the local block node rely on: an item set is a Block of its items.
    assert ours.BlockItemSet(block_items=items).SerializeToString() == real_block
    assert list(ours.BlockItemSet.FromString(real_block).block_items) == items
    mine = ours.SubscribeStreamResponse(block_items=ours.BlockItemSet(block_items=items)).SerializeToString()
    theirs = published("SubscribeStreamResponse").FromString(mine)
    assert len(theirs.block_items.block_items) == len(items)
    assert theirs.block_items.block_items[0].block_header.number == 1
    assert ours.SubscribeStreamResponse.FromString(theirs.SerializeToString()).block_items.block_items[0] == items[0]
    end = published("SubscribeStreamResponse")(end_of_block=published("BlockEnd")(block_number=1)).SerializeToString()
    assert ours.SubscribeStreamResponse.FromString(end).end_of_block.block_number == 1
    status = ours.SubscribeStreamResponse(status=ours.SubscribeStreamResponse.NOT_AVAILABLE).SerializeToString()
    assert published("SubscribeStreamResponse").FromString(status).status == 6


def test_a_get_block_answer_carries_the_block_bytes_exactly(real_block: bytes) -> None:
    mine = ours.BlockResponse(status=ours.BlockResponse.SUCCESS, block=real_block).SerializeToString()
    theirs = published("BlockResponse").FromString(mine)
    assert theirs.status == 1
    canonical = block_pb2.Block.FromString(real_block).SerializeToString(deterministic=True)
    assert theirs.block.SerializeToString(deterministic=True) == canonical
    # Theirs re-encodes the block; ours hands back whatever bytes were sent, unchanged.
    assert ours.BlockResponse.FromString(mine).block == real_block
    back = ours.BlockResponse.FromString(theirs.SerializeToString()).block
    assert block_pb2.Block.FromString(back).SerializeToString(deterministic=True) == canonical


def test_requests_read_the_same_both_ways() -> None:
    mine = ours.SubscribeStreamRequest(start_block_number=7, end_block_number=block_node_api.UNKNOWN_BLOCK_NUMBER)
    theirs = published("SubscribeStreamRequest").FromString(mine.SerializeToString())
    assert (theirs.start_block_number, theirs.end_block_number) == (7, 2**64 - 1)
    latest = published("BlockRequest")(retrieve_latest=True).SerializeToString()
    assert ours.BlockRequest.FromString(latest).WhichOneof("block_specifier") == "retrieve_latest"
    status = published("ServerStatusResponse")(first_available_block=3, last_available_block=9, next_expected_block=10)
    answer = ours.ServerStatusResponse.FromString(status.SerializeToString())
    assert (answer.first_available_block, answer.last_available_block, answer.next_expected_block) == (3, 9, 10)
