"""A raw view of ``RecordStreamFile``: items whose transaction and record are plain bytes.

Same wire format as HAPI's message, with ``RecordStreamItem.transaction`` (1) and ``record`` (2)
declared ``bytes``: upb then hands back each payload exactly as it stands in the file, which is
what the running hash covers, without a Python walk over the wire format. Every other field is
kept as an unknown field, so ``ByteSize()`` equals the input size unless something was dropped
or re-encoded (a repeated transaction/record field, a non-minimal length): then the caller must
walk the bytes itself.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message, message_factory

_PACKAGE = "hedera_history.raw_view"


def _build() -> type[message.Message]:
    field = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="hedera_history/raw_view.proto", package=_PACKAGE, syntax="proto3")
    item = proto.message_type.add(name="RawRecordStreamItem")
    item.field.add(name="transaction", number=1, type=field.TYPE_BYTES, label=field.LABEL_OPTIONAL)
    item.field.add(name="record", number=2, type=field.TYPE_BYTES, label=field.LABEL_OPTIONAL)
    stream_file = proto.message_type.add(name="RawRecordStreamFile")
    stream_file.field.add(
        name="record_stream_items",
        number=3,
        type=field.TYPE_MESSAGE,
        label=field.LABEL_REPEATED,
        type_name=f".{_PACKAGE}.RawRecordStreamItem",
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.RawRecordStreamFile"))


# Any: upb accepts any buffer (a memoryview avoids a copy), the stubs say bytes.
RawRecordStreamFile: Any = _build()
