from __future__ import annotations

import random
import zlib

import pytest
from hedera_history.errors import RowDecodeError
from hedera_history.store.encoding import COMPRESS_MIN_SIZE, RAW, ZLIB, decode_value, encode_value
from hypothesis import given
from hypothesis import strategies as st


@given(st.binary(max_size=4096), st.booleans())
def test_every_payload_round_trips(payload: bytes, compress: bool) -> None:
    assert decode_value(encode_value(payload, compress=compress)) == payload


def test_small_payloads_stay_raw() -> None:
    payload = b"a" * (COMPRESS_MIN_SIZE - 1)
    assert encode_value(payload) == bytes([RAW]) + payload


def test_compressible_payloads_are_zlib_and_deterministic() -> None:
    payload = b"hedera " * 200
    encoded = encode_value(payload)
    assert encoded[0] == ZLIB
    assert len(encoded) < len(payload) // 4
    assert encode_value(payload) == encoded


def test_incompressible_payloads_stay_raw() -> None:
    payload = random.Random(1).randbytes(2000)
    assert encode_value(payload)[0] == RAW


@pytest.mark.parametrize(
    "value",
    [b"", b"\x07abc", bytes([ZLIB]) + b"not zlib", bytes([ZLIB]) + zlib.compress(b"x" * 1000)[:-3]],
)
def test_undecodable_values_raise_row_decode_error(value: bytes) -> None:
    with pytest.raises(RowDecodeError):
        decode_value(value)
