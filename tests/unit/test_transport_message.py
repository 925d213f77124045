from __future__ import annotations

import base64
import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from cloudevents.http import CloudEvent, from_http
from hedera_history.errors import MessageFormatError
from hedera_history.transport import topics
from hedera_history.transport.message import (
    ATTR_BLOCK,
    ATTR_BLOCK_HASH,
    ATTR_KEY,
    ATTR_TYPE,
    MAX_KEY_BYTES,
    decode_key,
    decode_message,
    encode_key,
    pubsub_attributes,
)
from hedera_history.transport.push_format import (
    MESSAGE_PUBLISHED,
    PublishedMessage,
    cloud_event_request,
    decode_cloud_event,
    decode_push_envelope,
    parse_time,
    push_envelope,
)

KEY = b"blocks/\x00\x01\xfe\xff" + bytes(range(40))
VALUE = b"\x00avro\xffvalue"
READABLE = {ATTR_TYPE: "SubBatchMsg", ATTR_BLOCK: "42", ATTR_BLOCK_HASH: "ab" * 32}
PUBLISHED = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
SUBSCRIPTION = "projects/p/subscriptions/store-history"
TOPIC = "projects/p/topics/history"

# ---- key and attributes --------------------------------------------------------------------------


@pytest.mark.parametrize("key", [b"", b"\x00", b"ab", b"abc", KEY, bytes(range(256)) * 3])
def test_key_round_trip_is_url_safe_without_padding(key: bytes) -> None:
    text = encode_key(key)
    assert re.fullmatch(r"[A-Za-z0-9_-]*", text)
    assert decode_key(text) == key


@pytest.mark.parametrize("text", ["a", "ab+c", "ab/c", "ab=c", "ab c", "é"])
def test_bad_key_encoding_is_a_format_error(text: str) -> None:
    with pytest.raises(MessageFormatError):
        decode_key(text)


def test_attributes_carry_the_key_beside_the_readable_ones() -> None:
    attributes = pubsub_attributes(KEY, READABLE)
    assert attributes == {**READABLE, ATTR_KEY: encode_key(KEY)}
    received = decode_message(VALUE, attributes, message_id="1")
    assert received.key == KEY
    assert received.value == VALUE
    assert received.attributes == READABLE


def test_the_longest_key_fits_one_attribute() -> None:
    assert len(pubsub_attributes(b"\xff" * MAX_KEY_BYTES, {})[ATTR_KEY]) <= 1024
    with pytest.raises(MessageFormatError):
        pubsub_attributes(b"\xff" * (MAX_KEY_BYTES + 1), {})


@pytest.mark.parametrize(
    "attributes",
    [{ATTR_KEY: "x"}, {"googthing": "x"}, {"": "x"}, {"a" * 257: "x"}, {"a": "x" * 1025}],
)
def test_attributes_pubsub_would_refuse_are_caught_early(attributes: dict[str, str]) -> None:
    with pytest.raises(MessageFormatError):
        pubsub_attributes(KEY, attributes)


def test_a_message_without_a_key_is_poison() -> None:
    with pytest.raises(MessageFormatError, match="no 'k' attribute"):
        decode_message(VALUE, READABLE, message_id="7")


# ---- push envelope -------------------------------------------------------------------------------


def _envelope(**changes: Any) -> dict[str, Any]:
    envelope = push_envelope(
        PublishedMessage(VALUE, pubsub_attributes(KEY, READABLE), "123", PUBLISHED),
        subscription=SUBSCRIPTION,
        delivery_attempt=3,
    )
    envelope["message"].update(changes)
    return envelope


def test_push_envelope_round_trip_as_dict_bytes_and_text() -> None:
    envelope = _envelope()
    for body in (envelope, json.dumps(envelope).encode(), json.dumps(envelope)):
        received = decode_push_envelope(body)
        assert (received.key, received.value, received.attributes) == (KEY, VALUE, READABLE)
        assert received.message_id == "123"
        assert received.delivery_attempt == 3
        assert received.publish_time == PUBLISHED


def test_push_envelope_as_pubsub_writes_it() -> None:
    """A body in the shape the Pub/Sub documentation shows (snake_case ids, no deliveryAttempt)."""
    body = {
        "message": {
            "attributes": pubsub_attributes(KEY, {}),
            "data": base64.b64encode(VALUE).decode(),
            "message_id": "2070443601311540",
            "publish_time": "2021-02-26T19:13:55.749Z",
        },
        "subscription": SUBSCRIPTION,
    }
    received = decode_push_envelope(body)
    assert received.message_id == "2070443601311540"
    assert received.delivery_attempt is None
    assert received.publish_time == datetime(2021, 2, 26, 19, 13, 55, 749000, tzinfo=UTC)
    assert received.value == VALUE


def test_empty_data_may_be_left_out() -> None:
    envelope = _envelope()
    del envelope["message"]["data"]
    assert decode_push_envelope(envelope).value == b""


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"\xff\xfe",
        b"[1, 2]",
        {"subscription": SUBSCRIPTION},
        {"message": "text"},
        _envelope(data="***"),
        _envelope(data=5),
        _envelope(attributes={"k": 5}),
        _envelope(attributes=["k"]),
        _envelope(messageId="", message_id=""),
        _envelope(publishTime="yesterday", publish_time="yesterday"),
        _envelope(attributes={ATTR_TYPE: "SubBatchMsg"}),
        _envelope(attributes={ATTR_KEY: "a+b"}),
        {**_envelope(), "deliveryAttempt": "3"},
        {**_envelope(), "deliveryAttempt": 0},
    ],
)
def test_malformed_push_delivery_is_a_format_error(body: Any) -> None:
    with pytest.raises(MessageFormatError):
        decode_push_envelope(body)


# ---- CloudEvent ----------------------------------------------------------------------------------


def test_cloud_event_request_decodes_as_functions_framework_would_see_it() -> None:
    headers, body = cloud_event_request(
        PublishedMessage(VALUE, pubsub_attributes(KEY, READABLE), "99", PUBLISHED),
        subscription=SUBSCRIPTION,
        topic=TOPIC,
    )
    assert headers["ce-type"] == MESSAGE_PUBLISHED
    assert headers["ce-source"] == "//pubsub.googleapis.com/projects/p/topics/history"
    event = from_http(headers, body)
    assert event["id"] == "99"
    received = decode_cloud_event(event)
    assert (received.key, received.value, received.attributes) == (KEY, VALUE, READABLE)
    assert received.message_id == "99"
    assert received.delivery_attempt is None
    assert received.publish_time == PUBLISHED


def test_cloud_event_of_another_type_is_refused() -> None:
    event = CloudEvent({"type": "google.cloud.storage.object.v1.finalized", "source": "//x"}, {"bucket": "b"})
    with pytest.raises(MessageFormatError, match="type"):
        decode_cloud_event(event)


def test_cloud_event_with_poison_data_is_refused() -> None:
    event = CloudEvent({"type": MESSAGE_PUBLISHED, "source": "//x"}, {"message": {"messageId": "1", "data": ""}})
    with pytest.raises(MessageFormatError):
        decode_cloud_event(event)


def test_publish_times_with_nanoseconds_and_offsets() -> None:
    assert parse_time("2024-05-06T07:08:09.123456789Z") == PUBLISHED
    assert parse_time("2024-05-06T07:08:09Z") == PUBLISHED.replace(microsecond=0)
    assert parse_time("2024-05-06T09:08:09.123456+02:00") == PUBLISHED


# ---- names ---------------------------------------------------------------------------------------


def test_topic_and_subscription_names_are_valid_pubsub_ids() -> None:
    specs = topics.pipeline_subscriptions("https://store.example/")
    names = [*topics.TOPICS, *(s.name for s in specs)]
    assert len(set(names)) == len(names)
    for name in names:
        assert re.fullmatch(r"[A-Za-z][A-Za-z0-9._~+%-]{2,254}", name)
        assert not name.startswith("goog")
    for spec in specs:
        assert spec.topic in topics.TOPICS
        assert spec.dead_letter_topic is None or spec.dead_letter_topic in topics.TOPICS
        assert 5 <= spec.max_delivery_attempts <= 100  # Pub/Sub's bounds


def test_store_subscriptions_push_when_given_an_endpoint_and_pull_otherwise() -> None:
    pushed = {s.name: s for s in topics.pipeline_subscriptions("https://store.example/")}
    pulled = {s.name: s for s in topics.pipeline_subscriptions()}
    assert pushed[topics.STORE_HISTORY].push_endpoint == "https://store.example/"
    assert pulled[topics.STORE_HISTORY].push_endpoint is None
    assert pushed[topics.STORE_SIDECARS].dead_letter_topic == topics.SIDECARS_DEAD_LETTER
    assert pushed[topics.HISTORY_DEAD_LETTER_HOLD].push_endpoint is None
