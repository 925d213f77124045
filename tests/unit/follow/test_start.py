"""Start modes: backfill (after the last complete block), now, a time in either form."""

from __future__ import annotations

from typing import Any, cast

import pytest
from hedera_history.config import Settings
from hedera_history.errors import ConfigError
from hedera_history.follow.start import FreshStart, fresh_start, parse_start_time, resolve_start
from hedera_history.follow.tracker import just_before
from hedera_history.formats.names import format_timestamp
from hedera_history.pipeline.address_books import AddressBookHistory
from hedera_history.store import schema as s
from hedera_history.store.writer import BlockWriter

from tests.unit.store.builders import BASE_NS, NS, make_block, transfer_tx
from tests.unit.store.fakes import ConditionalMemoryGateway, MemoryGateway

NOW = 1_717_200_000_123_000_000


def test_times_in_iso_and_stream_name_form() -> None:
    assert parse_start_time("2024-06-01T00:00:00Z") == 1_717_200_000 * 10**9
    assert parse_start_time("2024-06-01") == 1_717_200_000 * 10**9
    assert parse_start_time("2024-06-01T02:00:00+02:00") == 1_717_200_000 * 10**9
    assert parse_start_time("2024-06-01T00_00_00.000000001Z") == 1_717_200_000 * 10**9 + 1
    with pytest.raises(ConfigError):
        parse_start_time("yesterday")


def test_now_and_a_time_start_just_before_it() -> None:
    gateway = MemoryGateway()
    assert resolve_start("now", gateway, now_ns=NOW) == just_before(NOW)
    key, ns = resolve_start("2024-06-01T00:00:00Z", gateway, now_ns=NOW)
    assert ns == 1_717_200_000 * 10**9 - 1
    # The period starting at that second sorts after the start point, the one before it does not.
    assert key + "~" < format_timestamp(1_717_200_000 * 10**9) and format_timestamp(ns - 1) < key + "~"


def test_backfill_starts_after_the_last_complete_block_or_now_on_an_empty_store() -> None:
    gateway = MemoryGateway()
    assert resolve_start("backfill", gateway, now_ns=NOW) == just_before(NOW)
    blocks = [
        make_block(b, [transfer_tx(BASE_NS + b * 10 * NS + i, 1000 + b, 2000 + i) for i in range(2)]) for b in (1, 2, 3)
    ]
    assert all(r.complete for r in BlockWriter(gateway, Settings()).write_blocks(blocks))
    last = blocks[-1].record
    key, ns = resolve_start("backfill", gateway, now_ns=NOW)
    assert key in last.name and ns == last.consensus_start


def test_a_follower_on_an_empty_store_begins_the_history_where_the_first_follower_did() -> None:
    gateway = ConditionalMemoryGateway([s.ADDRESS_BOOKS, s.BLOCKS])
    books = AddressBookHistory(gateway, cast(Any, None))
    assert fresh_start("now", gateway, books, now_ns=NOW) == FreshStart(*just_before(NOW), begins_history=True)
    first = format_timestamp(NOW + 4_000_000_000)
    recorded = books.mark_stream_start(first)
    assert recorded is not None and (recorded.period_key, recorded.block) == (first, None)
    assert books.mark_stream_start(format_timestamp(NOW + 6_000_000_000)) == recorded  # the first mark stays
    # A follower that marked it stopped before anything completed: the next starts just before it.
    again = fresh_start("now", gateway, books, now_ns=NOW + 60_000_000_000)
    assert again == FreshStart(*just_before(NOW + 4_000_000_000), begins_history=True)


def test_a_follower_after_a_backfill_does_not_begin_the_history() -> None:
    gateway = ConditionalMemoryGateway()
    blocks = [make_block(1, [transfer_tx(BASE_NS + 10 * NS, 1001, 2000)])]
    assert all(r.complete for r in BlockWriter(gateway, Settings()).write_blocks(blocks))
    start = fresh_start("backfill", gateway, AddressBookHistory(gateway, cast(Any, None)), now_ns=NOW)
    assert not start.begins_history and start.consensus_ns == blocks[0].record.consensus_start
