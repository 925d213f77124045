"""One parser for every time a person or tool writes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hedera_history.api.errors import InvalidParamsError
from hedera_history.api.parse import parse_timestamp
from hedera_history.errors import ConfigError
from hedera_history.times import datetime_ns, parse_time, seconds_nanos

MOMENT = 1_717_200_002_255_573_093  # 2024-06-01T00:00:02.255573093Z


@pytest.mark.parametrize(
    "text",
    [
        str(MOMENT),
        "1717200002.255573093",
        "2024-06-01T00_00_02.255573093Z",
        "2024-06-01T00:00:02.255573093Z",
    ],
)
def test_every_form_of_one_moment(text: str) -> None:
    assert parse_time(text) == MOMENT


def test_dates_iso_offsets_and_short_fractions() -> None:
    assert parse_time("2024-06-01") == 1_717_200_000 * 10**9
    assert parse_time("2024-06-01T02:00:00+02:00") == 1_717_200_000 * 10**9
    assert parse_time("2024-06-01T00:00:00") == 1_717_200_000 * 10**9
    assert parse_time("1717200000.5") == 1_717_200_000_500_000_000
    assert datetime_ns(datetime(2024, 6, 1, tzinfo=UTC)) == 1_717_200_000 * 10**9


@pytest.mark.parametrize("text", ["", "yesterday", "2024-13-01", "1.2.3", "1717200000.1234567891"])
def test_anything_else_is_a_config_error(text: str) -> None:
    with pytest.raises(ConfigError, match="not a time"):
        parse_time(text)


def test_the_mirror_nodes_seconds_nanos() -> None:
    assert seconds_nanos("1717200002.255573093") == MOMENT
    assert seconds_nanos("1717200000.5") == 1_717_200_000_500_000_000
    assert seconds_nanos("1717200000") == 1_717_200_000 * 10**9  # bare digits are seconds here
    for text in ("", "1.", ".5", "1.2.3", "1.1234567891", "12345678901.0", "2024-06-01"):
        assert seconds_nanos(text) is None


def test_the_query_api_and_the_commands_read_seconds_nanos_alike() -> None:
    for text in ("1717200002.255573093", "1717200000.5", "0.000000001"):
        assert parse_timestamp(text, "timestamp") == parse_time(text)
    with pytest.raises(InvalidParamsError, match="must be a timestamp"):
        parse_timestamp("2024-06-01", "timestamp")  # the API takes the mirror node's form only
