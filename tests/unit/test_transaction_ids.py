"""One reading of transaction ids, for the API, the proofs and the command line."""

from __future__ import annotations

import pytest
from hedera_history.errors import ConfigError
from hedera_history.transaction_ids import format_transaction_id, parse_transaction_id


@pytest.mark.parametrize(
    "text",
    ["0.0.1001-1657701968-041986003", "0.0.1001-1657701968-41986003", "0.0.1001@1657701968.041986003"],
)
def test_both_forms_name_one_transaction(text: str) -> None:
    assert parse_transaction_id(text) == ("0.0.1001", 1_657_701_968_041_986_003)


def test_the_part_after_the_seconds_counts_nanoseconds_in_both_forms() -> None:
    assert parse_transaction_id("0.0.2@1657701910.5") == parse_transaction_id("0.0.2-1657701910-5")
    assert parse_transaction_id("0.0.2@1657701910.5")[1] == 1_657_701_910_000_000_005
    assert format_transaction_id("0.0.2", 1_657_701_910_000_000_005) == "0.0.2-1657701910-000000005"


@pytest.mark.parametrize("text", ["", "0.0.2", "0.0.2-1657701910", "0.0.2@1657701910", "0.0.2-1-1234567890"])
def test_anything_else_is_refused(text: str) -> None:
    with pytest.raises(ConfigError, match="not a transaction id"):
        parse_transaction_id(text)
