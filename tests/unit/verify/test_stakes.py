"""Consensus weighted by node stake, as the mirror node weighs it: where it and a count disagree."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner
from hedera_history import hapi
from hedera_history.books.parse import parse_address_book
from hedera_history.books.stakes import NodeStakes, decode_stakes_or_none, node_stake_update_body, weigh
from hedera_history.books.updates import AddressBookTracker
from hedera_history.cli.verify_cmd import verify
from hedera_history.errors import AddressBookError, CorruptFileError, NoConsensusError
from hedera_history.formats.hashing import sha384
from hedera_history.formats.parsed_files import RecordFile, RecordItem, SignatureFile
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.gen import generate_stream, write_stream
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.consensus import count_signatures, required_stake, verify_consensus
from hedera_history.verify.period import collect_signatures
from hedera_history.verify.stream import verify_stream

from tests.helpers.staked_stream import ONLY_BY_COUNT, ONLY_BY_STAKE, STAKED, STAKES, STAKES_BLOCK, VERIFIED

from .streamkit import account, record_bytes, transaction_bytes
from .test_consensus import OTHER, _sig

FAIL = hapi.ResponseCodeEnum.Value("INVALID_SIGNATURE")
HBAR = 100_000_000


def _signed_by(node_keys, *nums: int) -> dict[NodeIdentity, SignatureFile]:
    return {account(n): _sig(node_keys[n]) for n in nums}


def _stakes(**by_account: int) -> NodeStakes:
    """Stakes by account (``n3=...`` is node id 0)."""
    return NodeStakes.of({int(name[1:]) - 3: stake for name, stake in by_account.items()})


def test_one_node_with_most_stake_reaches_consensus_alone(book, node_keys):
    weighted = weigh(book, _stakes(n3=60 * HBAR, n4=20 * HBAR, n5=10 * HBAR, n6=10 * HBAR))
    result = count_signatures(_signed_by(node_keys, 3), weighted)
    assert result.reached and (result.stake, result.total_stake) == (60 * HBAR, 100 * HBAR)
    assert not count_signatures(_signed_by(node_keys, 3), book).reached  # 1 of 4 by count


def test_three_small_nodes_do_not_reach_consensus(book, node_keys):
    weighted = weigh(book, _stakes(n3=70 * HBAR, n4=10 * HBAR, n5=10 * HBAR, n6=10 * HBAR))
    with pytest.raises(NoConsensusError, match=f"stake {30 * HBAR} of {100 * HBAR}"):
        verify_consensus(_signed_by(node_keys, 4, 5, 6), weighted)
    assert count_signatures(_signed_by(node_keys, 4, 5, 6), book).reached  # 3 of 4 by count


def test_stakes_totalling_zero_count_one_each(book, node_keys):
    weighted = weigh(book, _stakes(n3=0, n4=0, n5=0, n6=0))
    assert [n.stake for n in weighted.nodes] == [1, 1, 1, 1]
    result = count_signatures(_signed_by(node_keys, 3, 4), weighted)
    assert result.reached and (result.stake, result.total_stake) == (2, 4)


def test_a_book_node_without_a_stake_entry_weighs_nothing(book, node_keys):
    weighted = weigh(book, _stakes(n3=10, n4=10, n5=10))
    assert [n.stake for n in weighted.nodes] == [10, 10, 10, 0]
    result = count_signatures(_signed_by(node_keys, 6), weighted)
    assert result.stake == 0 and not result.reached and result.outcomes["0.0.6"] == "ok"


def test_only_book_nodes_count_toward_the_total(book, node_keys):
    stakes = NodeStakes.of({0: 10, 1: 10, 2: 10, 3: 10, 99: 1_000})  # node 99 is not in the book
    result = count_signatures(_signed_by(node_keys, 3, 4), weigh(book, stakes))
    assert result.reached and result.total_stake == 40


def test_no_stakes_yet_keeps_the_book_weights(book):
    assert weigh(book, None) is book


def test_the_threshold_is_the_ceiling_of_total_times_ratio():
    assert [required_stake(t, Fraction(1, 3)) for t in (1, 2, 3, 4, 5, 6, 7)] == [1, 1, 1, 2, 2, 2, 3]
    assert required_stake(100 * HBAR, Fraction(1, 3)) == 3_333_333_334
    # the reference's ratio, 1/3 cut to 19 digits, has the same ceiling for any 64-bit total
    cut = Fraction(3_333_333_333_333_333_333, 10**19)
    for total in (3, 4, 3 * 10**18, 2**63 - 1, 2**63 - 2):
        assert required_stake(total, cut) == required_stake(total, Fraction(1, 3))


def test_two_groups_over_the_threshold_are_a_fork_though_one_leads(book, node_keys):
    weighted = weigh(book, _stakes(n3=50, n4=10, n5=40, n6=0))
    files = {**_signed_by(node_keys, 3, 4), account(5): _sig(node_keys[5], OTHER)}
    result = count_signatures(files, weighted)
    assert (result.stake, result.rival_stake, result.fork, result.reached) == (60, 40, True, False)
    with pytest.raises(NoConsensusError, match="two file hashes each reach the threshold"):
        verify_consensus(files, weighted)


def test_a_weaker_group_under_the_threshold_is_no_fork(book, node_keys):
    weighted = weigh(book, _stakes(n3=50, n4=30, n5=20, n6=0))
    files = {**_signed_by(node_keys, 3, 4), account(5): _sig(node_keys[5], OTHER)}
    result = count_signatures(files, weighted)
    assert result.reached and not result.fork and result.rival_stake == 20


def test_stakes_encode_to_equal_bytes_and_back():
    stakes = NodeStakes.of([(2, 5), (0, 7), (2, 9)])  # a node listed twice keeps its last entry
    assert stakes.entries == ((0, 7), (2, 9)) and stakes.stake_of(1) == 0
    assert NodeStakes.decode(stakes.encode()) == stakes == NodeStakes.of({2: 9, 0: 7})
    assert decode_stakes_or_none(b"") is None
    with pytest.raises(CorruptFileError):
        NodeStakes.decode(b"\x00" * 15)
    with pytest.raises(AddressBookError):
        NodeStakes.of({})


# ---- stakes from the stream ---------------------------------------------------------------------


def _block(*items: tuple[bytes] | tuple[bytes, int]) -> RecordFile:
    built = tuple(RecordItem(tx, record_bytes(1000 + i, *extra), 1000 + i) for i, (tx, *extra) in enumerate(items))
    return RecordFile("b.rcd.gz", 6, (0, 28, 0), built, sha384(b""), None, None, None, None, None, 1)


def _update(stakes: dict[int, int]) -> bytes:
    return transaction_bytes(node_stake_update_body(stakes, seconds=1_700_000_000))


def test_the_last_successful_update_of_a_block_is_in_force_after_it(book):
    tracker = AddressBookTracker(book)
    assert tracker.apply_block(_block((transaction_bytes(),))) is None and tracker.stakes is None
    block = _block((_update({0: 1, 1: 2}),), (_update({0: 5, 1: 6, 2: 7}),), (_update({0: 9}), FAIL))
    assert tracker.apply_block(block) is None  # the book did not change
    assert tracker.stakes == NodeStakes.of({0: 5, 1: 6, 2: 7})
    assert [n.stake for n in tracker.consensus_book.nodes] == [5, 6, 7, 0]
    assert tracker.book == book  # the raw book stays as the stream wrote it


def test_an_empty_update_changes_nothing(book):
    tracker = AddressBookTracker(book, stakes=NodeStakes.of({0: 3}))
    tracker.apply_block(_block((_update({}),)))
    assert tracker.stakes == NodeStakes.of({0: 3})


def test_stake_not_stake_rewarded_is_the_weight(book):
    body = node_stake_update_body({0: 10})
    body.node_stake_update.node_stake[0].stake_rewarded = 999
    body.node_stake_update.node_stake[0].stake_not_rewarded = 999
    tracker = AddressBookTracker(book)
    tracker.apply_block(_block((transaction_bytes(body),)))
    assert tracker.stakes == NodeStakes.of({0: 10})


# ---- a generated stream whose stakes change mid-stream ------------------------------------------


@pytest.fixture(scope="module")
def staked_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("staked-stream")
    write_stream(generate_stream(STAKED), out)
    return out


def test_a_generated_stream_is_verified_by_stake_where_a_count_disagrees(staked_dir: Path) -> None:
    book = parse_address_book((staked_dir / "address-book.bin").read_bytes())
    periods = find_local_periods(staked_dir)
    results = list(verify_stream(periods, book))
    assert results[STAKES_BLOCK].new_stakes == NodeStakes.of(dict(enumerate(STAKES)))
    assert [r.block_number for r in results if r.ok] == list(VERIFIED)
    assert isinstance(results[ONLY_BY_COUNT].error, NoConsensusError)
    by_stake = results[ONLY_BY_STAKE].report.consensus
    assert by_stake is not None and (by_stake.stake, by_stake.total_stake) == (70, 100)
    # the same signatures counted one per node (the book alone) give the opposite answers
    by_count = {n: count_signatures(collect_signatures(periods[n]), book).reached for n in (3, 4)}
    assert by_count == {ONLY_BY_STAKE: False, ONLY_BY_COUNT: True}


def test_verify_reports_the_stakes_a_block_puts_in_force(staked_dir: Path) -> None:
    args = [str(staked_dir / "recordstreams"), "--address-book", str(staked_dir / "address-book.bin")]
    result = CliRunner().invoke(verify, [*args, "--json"], env={})
    assert result.exit_code == 1  # block 4 has no consensus by stake
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [line["node_stakes_changed"] for line in lines][:3] == [None, {"0": 70, "1": 10, "2": 10, "3": 10}, None]
    assert [line["ok"] for line in lines] == [True, True, True, True, False, True]
    assert (lines[ONLY_BY_STAKE]["consensus"]["stake"], lines[ONLY_BY_STAKE]["consensus"]["total_stake"]) == (70, 100)
    text = CliRunner().invoke(verify, args, env={}).output
    assert "node stakes change: 4 nodes from the next period" in text
