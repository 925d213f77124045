from __future__ import annotations

from hedera_history.books.address_book import address_book_from_keys
from hedera_history.books.parse import address_book_to_bytes
from hedera_history.books.stakes import NodeStakes, node_stake_update_body
from hedera_history.errors import BrokenChainError, NoConsensusError
from hedera_history.formats.hashing import EMPTY_HASH, sha384
from hedera_history.verify.chain import LinkStatus
from hedera_history.verify.period import FetchedFile
from hedera_history.verify.stream import verify_stream

from .streamkit import (
    MemoryPeriod,
    account,
    file_transaction,
    record_bytes,
    transaction_bytes,
    v2_record,
    v2_signature,
    v6_period,
    v6_record,
)

NS = 1_700_000_000_000_000_000
STEP = 2_000_000_000


def _chain(node_keys, count: int, *, items=None, signers=None):
    periods, start = [], sha384(b"genesis")
    for i in range(count):
        ns = NS + i * STEP
        record = v6_record(ns, start=start, block_number=10 + i, items=(items or {}).get(i))
        periods.append(v6_period((signers or {}).get(i, node_keys), record))
        start = record.end
    return periods


def test_a_good_chain(node_keys, book):
    results = list(verify_stream(_chain(node_keys, 3), book))
    assert [r.ok for r in results] == [True, True, True]
    assert [r.block_number for r in results] == [10, 11, 12]
    assert results[0].link is None
    assert all(r.link is not None and r.link.status is LinkStatus.OK for r in results[1:])


def test_a_bad_period_is_reported_and_the_chain_goes_on(node_keys, book):
    periods = _chain(node_keys, 4)
    for node in list(periods[1].signatures)[1:]:
        del periods[1].signatures[node]
    results = list(verify_stream(periods, book))
    assert [r.ok for r in results] == [True, False, True, True]
    assert isinstance(results[1].error, NoConsensusError)
    assert results[1].block_number == 11  # its record was never read: the number follows the chain
    link = results[2].link
    assert link is not None and link.status is LinkStatus.UNVERIFIABLE
    assert periods[1].period_key in link.reason
    assert results[3].link is not None and results[3].link.ok


def test_a_block_whose_link_is_broken_is_refused_and_the_chain_goes_on(node_keys, book):
    periods = _chain(node_keys, 2)
    stray = v6_record(NS + 2 * STEP, start=sha384(b"elsewhere"), block_number=12)
    periods.append(v6_period(node_keys, stray))
    periods.append(v6_period(node_keys, v6_record(NS + 3 * STEP, start=stray.end, block_number=13)))
    results = list(verify_stream(periods, book))
    assert [r.ok for r in results] == [True, True, False, True]
    assert isinstance(results[2].error, BrokenChainError)
    # refused: no block to write, but the file and its number are reported
    assert results[2].report.block is None and results[2].report.record is not None
    assert results[2].block_number == 12
    # the next block follows the refused one, not the last good one: unverifiable, not broken
    link = results[3].link
    assert link is not None and link.status is LinkStatus.UNVERIFIABLE
    assert results[3].report.block is not None


def test_a_stray_between_good_blocks_leaves_the_chain_whole(node_keys, book):
    periods = _chain(node_keys, 3)
    stray = v6_record(NS + STEP + STEP // 2, start=sha384(b"elsewhere"), block_number=12)
    periods.insert(2, v6_period(node_keys, stray))
    results = list(verify_stream(periods, book))
    assert [r.ok for r in results] == [True, True, False, True]
    assert isinstance(results[2].error, BrokenChainError)
    # the good block after the stray links to the last good block: the chain is whole
    assert results[3].link is not None and results[3].link.ok
    assert results[3].report.block is not None


def test_a_book_update_takes_effect_after_its_block(node_keys, spare_key, book):
    rotated = dict(node_keys)
    rotated[3] = spare_key
    new_book = address_book_from_keys((f"0.0.{n}", k.public_key()) for n, k in rotated.items())
    update = file_transaction("update", 102, address_book_to_bytes(new_book))
    # each record file is named after its first transaction's consensus time
    items = {i: [(update if i == 0 else transaction_bytes(), record_bytes(NS + i * STEP))] for i in range(3)}
    # period 0 carries the update (still signed with the old keys); later ones are signed with the new
    periods = _chain(node_keys, 3, items=items, signers={1: rotated, 2: rotated})
    results = list(verify_stream(periods, book))
    assert [r.ok for r in results] == [True, True, True]
    assert results[0].new_book == new_book
    assert results[1].report.consensus is not None and results[1].report.consensus.outcomes["0.0.3"] == "ok"
    # without the update the old key of 0.0.3 no longer verifies the later periods
    without = list(verify_stream(_chain(node_keys, 3, signers={1: rotated, 2: rotated}), book))
    assert without[1].report.consensus is not None
    assert without[1].report.consensus.outcomes["0.0.3"].startswith("bad signature")


def test_v2_blocks_are_numbered_from_start_block(node_keys, book):
    periods, previous = [], EMPTY_HASH
    for i in range(3):
        name, data, file_hash = v2_record(NS + i * STEP, previous_file_hash=previous)
        period = MemoryPeriod(name.removesuffix(".rcd"))
        for num, key in node_keys.items():
            period.signatures[account(num)] = FetchedFile(f"{period.period_key}.rcd_sig", v2_signature(key, file_hash))
            period.records[account(num)] = FetchedFile(name, data)
        periods.append(period)
        previous = file_hash
    periods[1].records.clear()  # the middle period cannot verify, yet keeps its number
    results = list(verify_stream(periods, book, start_block=500))
    assert [r.block_number for r in results] == [500, 501, 502]
    assert [r.ok for r in results] == [True, False, True]
    assert results[2].link is not None and results[2].link.status is LinkStatus.UNVERIFIABLE


def test_stakes_take_effect_after_their_block_and_decide_where_a_count_would_not(node_keys, book):
    # block 0 puts 0.0.3 (node 0) at 60 % of the stake; block 1 is signed by 0.0.3 alone (1 of 4 by
    # count), block 2 by the three others (3 of 4 by count, 40 % of the stake)
    update = (transaction_bytes(node_stake_update_body({0: 60, 1: 20, 2: 10, 3: 10})), record_bytes(NS))
    periods = _chain(node_keys, 3, items={0: [update]}, signers={1: {3: node_keys[3]}})
    for node in list(periods[2].signatures):
        if node == account(3):
            del periods[2].signatures[node]
    results = list(verify_stream(periods, book))
    assert results[0].new_stakes == NodeStakes.of({0: 60, 1: 20, 2: 10, 3: 10})
    assert [r.ok for r in results] == [True, True, True]
    assert results[1].report.consensus is not None and results[1].report.consensus.stake == 60
    assert results[2].report.consensus is not None and results[2].report.consensus.stake == 40
    # by count (no stakes in the stream) the lone signer of block 1 is short
    plain = _chain(node_keys, 3, signers={1: {3: node_keys[3]}})
    assert [r.ok for r in verify_stream(plain, book)] == [True, False, True]
