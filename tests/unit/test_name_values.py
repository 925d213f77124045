"""``NAME=VALUE`` options: read into a mapping, a malformed pair named with its option."""

from __future__ import annotations

import pytest
from hedera_history.errors import JobArgumentError, NameValueError
from hedera_history.name_values import name_values


def test_pairs_read_into_a_mapping_a_later_name_winning() -> None:
    assert name_values(["A=1", "B=", "C=x=y", "A=2"], "--env") == {"A": "2", "B": "", "C": "x=y"}
    assert name_values([], "--env") == {}


@pytest.mark.parametrize("bad", ["NOVALUE", "=1"])
def test_a_pair_without_equals_or_name_is_refused_naming_option_and_pair(bad: str) -> None:
    with pytest.raises(NameValueError) as raised:
        name_values(["A=1", bad], "--port")
    assert (raised.value.option, raised.value.pair) == ("--port", bad)
    assert isinstance(raised.value, JobArgumentError)  # a backfill command shows it as a usage error
    assert raised.value.reason == f"--port takes KEY=VALUE, got {bad!r}"
