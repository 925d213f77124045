"""Keys and Avro values of every message type: layout, round trip, malformed input."""

from __future__ import annotations

import contextlib

import pytest
from hedera_history.cardinal import messages as msg
from hedera_history.errors import MessageFormatError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
H = bytes(range(32))
ID = bytes(range(100, 132))
P = bytes(range(200, 232))

hashes = st.binary(min_size=32, max_size=32)
ids = hashes.filter(lambda b: b != bytes(32))
texts = st.text(max_size=12)
numbers = st.integers(0, 2**63 - 1)
counts = st.integers(0, 2**31 - 1)
entries = st.one_of(
    st.builds(msg.InlineValue, st.binary(max_size=20)),
    st.just(msg.InlineDelete()),
    st.builds(msg.PrefixCount, st.integers(1, 2**31 - 1)),
    st.builds(msg.SubBatchRef, ids),
)
messages: st.SearchStrategy[msg.CardinalMessage] = st.one_of(
    st.builds(
        msg.Batch,
        hashes,
        numbers,
        st.integers(0, msg.MAX_WEIGHT),
        hashes,
        st.dictionaries(texts, entries, max_size=4),
    ),
    st.builds(msg.SubBatchHeader, hashes, ids, counts),
    st.builds(
        msg.SubBatchMsg,
        hashes,
        ids,
        counts,
        st.lists(texts, max_size=4).map(tuple),
        st.dictionaries(texts, st.binary(max_size=20), max_size=4),
    ),
    st.builds(msg.BatchMsg, hashes, texts, st.binary(max_size=20)),
    st.builds(msg.BatchDeleteMsg, hashes, texts),
    st.builds(msg.Reorg, hashes, numbers),
    st.builds(msg.ReorgComplete, hashes, numbers),
)


@FAST
@given(messages)
def test_every_message_type_round_trips(message: msg.CardinalMessage) -> None:
    assert msg.decode_message(message.encode()) == message


@FAST
@given(st.binary(max_size=80), st.binary(max_size=80))
def test_arbitrary_bytes_decode_or_raise_message_format_error(key: bytes, value: bytes) -> None:
    try:
        decoded = msg.decode_message(msg.WireMessage(key, value))
    except MessageFormatError:
        return
    assert msg.decode_message(decoded.encode()) == decoded


@FAST
@given(messages, st.data())
def test_corrupted_messages_decode_or_raise_message_format_error(
    message: msg.CardinalMessage, data: st.DataObject
) -> None:
    wire = message.encode()
    key = bytearray(wire.key)
    value = bytearray(wire.value)
    target = data.draw(st.sampled_from([key, value] if value else [key]))
    position = data.draw(st.integers(0, len(target) - 1))
    target[position] ^= data.draw(st.integers(1, 255))
    cut = data.draw(st.integers(0, len(value)))
    with contextlib.suppress(MessageFormatError):
        msg.decode_message(msg.WireMessage(bytes(key), bytes(value[:cut])))


def test_keys_and_values_have_the_spec_layout() -> None:
    assert msg.SubBatchHeader(H, ID, 3).encode() == msg.WireMessage(b"\x01" + H + ID, b"\x06")
    assert msg.SubBatchMsg(H, ID, 1).encode().key == b"\x02" + H + ID + b"\x02"
    assert msg.SubBatchMsg(H, ID, 64).encode().key == b"\x02" + H + ID + b"\x80\x01"
    assert msg.SubBatchMsg(H, ID, 0, ("a",), {"k": b"v"}).encode().value == b"\x02\x02a\x00\x02\x02k\x02v\x00"
    assert msg.SubBatchMsg(H, ID, 0).encode().value == b"\x00\x00"
    assert msg.BatchMsg(H, "tx/é", b"value").encode() == msg.WireMessage(b"\x03" + H + "tx/é".encode(), b"value")
    assert msg.BatchDeleteMsg(H, "tx/1").encode() == msg.WireMessage(b"\x04" + H + b"tx/1", b"")
    assert msg.Reorg(H, 5).encode() == msg.WireMessage(b"\x05" + H, b"\x0a")
    assert msg.ReorgComplete(H, 5).encode() == msg.WireMessage(b"\x06" + H, b"\x0a")
    # num 1, weight 0x0100 (big-endian, minimal), the parent as a fixed 32, an empty map.
    assert msg.Batch(H, 1, 256, P).encode() == msg.WireMessage(b"\x00" + H, b"\x02" + b"\x04\x01\x00" + P + b"\x00")


def test_batch_entries_use_one_field_each() -> None:
    batch = msg.Batch(
        H,
        7,
        0,
        P,
        {
            "zkey": msg.InlineValue(b"v"),
            "zgone": msg.InlineDelete(),
            "b/": msg.PrefixCount(2),
            "a/": msg.SubBatchRef(ID),
        },
    )
    value = batch.encode_value()
    assert b"\x00" * 32 in value  # entries that are not sub-batches carry the all-zero id
    assert msg.decode_message(batch.encode()) == batch
    assert msg.Batch.decode_value(H, value).weight == 0


@pytest.mark.parametrize(
    ("key", "value", "complaint"),
    [
        (b"", b"", "shorter"),
        (b"\x00" + H[:31], b"", "shorter"),
        (b"\x07" + H, b"", "unknown message type"),
        (b"\xff" + H, b"", "unknown message type"),
        (b"\x00" + H + b"x", b"", "trailing"),
        (b"\x00" + H, b"\x02", "not valid Avro"),
        (b"\x00" + H, b"\x01" + b"\x00" + P + b"\x00", "number"),  # num -1
        (b"\x00" + H, b"\x02\x00" + P + b"\x00junk", "left after"),
        (b"\x00" + H, b"\x02" + b"\x42" + b"\x01" * 33 + P + b"\x00", "weight"),  # 33-byte weight > 2^256-1
        (b"\x01" + H + ID[:10], b"\x06", "too short"),
        (b"\x01" + H + ID + b"x", b"\x06", "trailing"),
        (b"\x01" + H + ID, b"\x01", "outside"),  # item count -1
        (b"\x01" + H + ID, b"\x80\x80\x80\x80\x10", "does not fit"),  # 2^31
        (b"\x01" + H + ID, b"\x86\x00", "canonical"),  # 3 written in two bytes
        (b"\x01" + H + bytes(32), b"\x06", "all-zero"),
        (b"\x02" + H + ID, b"\x00\x00", "not valid Avro"),  # no index
        (b"\x02" + H + ID + b"\x02\x02", b"\x00\x00", "left after"),
        (b"\x02" + H + ID + b"\x01", b"\x00\x00", "index"),  # index -1
        (b"\x02" + H + ID + b"\x02", b"\x02\x02\xff\x00\x00", "not valid Avro"),  # a delete that is not UTF-8
        (b"\x03" + H + b"\xff\xfe", b"v", "not UTF-8"),
        (b"\x04" + H + b"k", b"v", "must be empty"),
        (b"\x05" + H, b"", "not valid Avro"),
        (b"\x05" + H, b"\x01", "number"),
        (b"\x06" + H + b"\x00", b"\x02", "trailing"),
    ],
)
def test_malformed_messages_are_rejected(key: bytes, value: bytes, complaint: str) -> None:
    with pytest.raises(MessageFormatError, match=complaint):
        msg.decode_message(msg.WireMessage(key, value))


def _batch_value_with_entry(value: bytes, count: int, delete: bool, sub_batch: bytes) -> bytes:
    entry = (
        bytes([len(value) * 2])
        + value
        + bytes([count * 2] if count >= 0 else [1])
        + (b"\x01" if delete else b"\x00")
        + sub_batch
    )
    return b"\x02\x00" + P + b"\x02\x02k" + entry + b"\x00"


@pytest.mark.parametrize(
    ("value", "count", "delete", "sub_batch"),
    [
        (b"v", 1, False, bytes(32)),
        (b"", 1, True, bytes(32)),
        (b"", 0, True, ID),
        (b"v", 0, False, ID),
        (b"", -1, False, bytes(32)),
    ],
)
def test_batch_entries_with_two_roles_or_a_negative_count_are_rejected(
    value: bytes, count: int, delete: bool, sub_batch: bytes
) -> None:
    with pytest.raises(MessageFormatError):
        msg.decode_message(msg.WireMessage(b"\x00" + H, _batch_value_with_entry(value, count, delete, sub_batch)))


def test_each_entry_role_decodes() -> None:
    def entry(value: bytes, count: int, delete: bool, sub_batch: bytes) -> object:
        batch = msg.decode_message(
            msg.WireMessage(b"\x00" + H, _batch_value_with_entry(value, count, delete, sub_batch))
        )
        assert isinstance(batch, msg.Batch)
        return batch.entries["k"]

    assert entry(b"v", 0, False, bytes(32)) == msg.InlineValue(b"v")
    assert entry(b"", 0, False, bytes(32)) == msg.InlineValue(b"")
    assert entry(b"", 0, True, bytes(32)) == msg.InlineDelete()
    assert entry(b"", 3, False, bytes(32)) == msg.PrefixCount(3)
    assert entry(b"", 0, False, ID) == msg.SubBatchRef(ID)


@pytest.mark.parametrize(
    "build",
    [
        lambda: msg.Batch(H[:31], 0, 0, P),
        lambda: msg.Batch(H, -1, 0, P),
        lambda: msg.Batch(H, 2**63, 0, P),
        lambda: msg.Batch(H, 0, 2**256, P),
        lambda: msg.Batch(H, 0, -1, P),
        lambda: msg.SubBatchHeader(H, ID, 2**31),
        lambda: msg.SubBatchMsg(H, ID, -1),
        lambda: msg.PrefixCount(0),
        lambda: msg.SubBatchRef(bytes(32)),
        lambda: msg.Reorg(H, -1),
    ],
)
def test_out_of_range_fields_cannot_be_built(build: object) -> None:
    with pytest.raises(MessageFormatError):
        build()  # type: ignore[operator]
