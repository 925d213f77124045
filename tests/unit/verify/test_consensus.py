from __future__ import annotations

from fractions import Fraction

import pytest
from hedera_history.books.address_book import AddressBook, node_entry
from hedera_history.errors import ConfigError, ConsensusForkError, CorruptFileError, NoConsensusError
from hedera_history.formats.hashing import sha384
from hedera_history.formats.parsed_files import SignatureFile
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.verify.consensus import (
    DEFAULT_RATIO,
    count_signatures,
    meets_ratio,
    parse_consensus_ratio,
    verify_consensus,
)
from hedera_history.verify.signatures import sign_hash

GOOD = sha384(b"good file")
GOOD_META = sha384(b"good metadata")
OTHER = sha384(b"other file")


def _sig(key, file_hash=GOOD, metadata_hash=GOOD_META) -> SignatureFile:
    return SignatureFile(
        "p.rcd_sig", 6, file_hash, sign_hash(key, file_hash), metadata_hash, sign_hash(key, metadata_hash)
    )


def _acct(num: int) -> NodeIdentity:
    return NodeIdentity(account=f"0.0.{num}")


def _staked_book(node_keys, stakes: dict[int, int]) -> AddressBook:
    return AddressBook(
        tuple(node_entry(f"0.0.{num}", num - 3, node_keys[num].public_key(), stake) for num, stake in stakes.items())
    )


@pytest.fixture(scope="module")
def sigs(node_keys) -> dict[int, SignatureFile]:
    return {num: _sig(key) for num, key in node_keys.items()}


def test_all_nodes_agree(sigs, book):
    result = verify_consensus({_acct(n): s for n, s in sigs.items()}, book)
    assert result.reached
    assert (result.file_hash, result.metadata_hash, result.stake, result.total_stake) == (
        GOOD,
        GOOD_META,
        4,
        4,
    )
    assert dict(result.outcomes) == {"0.0.3": "ok", "0.0.4": "ok", "0.0.5": "ok", "0.0.6": "ok"}
    assert [s.node_account for s in result.node_signatures()] == ["0.0.3", "0.0.4", "0.0.5", "0.0.6"]
    assert result.summary().stake == 4


def test_exactly_one_third_is_enough(node_keys, sigs):
    book = _staked_book(node_keys, {3: 1, 4: 1, 5: 1})
    assert verify_consensus({_acct(3): sigs[3]}, book).stake == 1


def test_just_under_one_third_is_not(node_keys, sigs):
    book = _staked_book(node_keys, {3: 1, 4: 1, 5: 1, 6: 1})
    with pytest.raises(NoConsensusError, match="stake 1 of 4"):
        verify_consensus({_acct(3): sigs[3]}, book, period="p")
    result = count_signatures({_acct(3): sigs[3]}, book)
    assert not result.reached and result.file_hash == GOOD
    assert result.outcomes["0.0.4"] == "no signature file"


def test_boundaries_are_exact_with_large_stakes(node_keys, sigs):
    third = 10**18  # tinybars: floats cannot tell these apart
    exact = _staked_book(node_keys, {3: third, 4: third, 5: third})
    assert count_signatures({_acct(3): sigs[3]}, exact).reached
    short = _staked_book(node_keys, {3: third - 1, 4: third, 5: third + 1})
    assert not count_signatures({_acct(3): sigs[3]}, short).reached
    assert (third - 1) / (3 * third) >= 1 / 3  # what a float comparison would have accepted


def test_ratio_is_configurable(node_keys, sigs):
    book = _staked_book(node_keys, {3: 1, 4: 1, 5: 1, 6: 1})
    two = {_acct(3): sigs[3], _acct(4): sigs[4]}
    assert count_signatures(two, book, ratio=Fraction(1, 2)).reached
    assert not count_signatures(two, book, ratio=Fraction(2, 3)).reached
    assert count_signatures({**two, _acct(5): sigs[5]}, book, ratio=Fraction(2, 3)).reached


def test_parse_consensus_ratio():
    assert parse_consensus_ratio(1 / 3) == Fraction(1, 3) == DEFAULT_RATIO
    assert parse_consensus_ratio(2 / 3) == Fraction(2, 3)
    assert parse_consensus_ratio("1/3") == Fraction(1, 3)
    assert parse_consensus_ratio(" 0.5 ") == Fraction(1, 2)
    assert parse_consensus_ratio(Fraction(3, 4)) == Fraction(3, 4)
    for bad in ("0", "-1/3", "4/3", "1/0", "a third", 0.0):
        with pytest.raises(ConfigError):
            parse_consensus_ratio(bad)
    assert meets_ratio(1, 3, Fraction(1, 3)) and not meets_ratio(0, 0, Fraction(1, 3))


def test_unknown_nodes_are_reported_never_counted(node_keys, sigs, spare_key):
    book = _staked_book(node_keys, {3: 1, 4: 1, 5: 1, 6: 1})
    files = {_acct(3): sigs[3], _acct(99): _sig(spare_key), NodeIdentity(node_id=42): _sig(spare_key)}
    result = count_signatures(files, book)
    assert result.stake == 1 and not result.reached
    assert result.outcomes["0.0.99"].startswith("unknown node")
    assert result.outcomes["node 42"].startswith("unknown node")
    assert list(result.outcomes)[:4] == ["0.0.3", "0.0.4", "0.0.5", "0.0.6"]


def test_bad_and_unreadable_signatures_are_reported(sigs, node_keys, book):
    files = {
        _acct(3): sigs[3],
        _acct(4): sigs[4],
        _acct(5): _sig(node_keys[3]),  # signed with another node's key
        _acct(6): CorruptFileError("field version: expected 6 but got 9", file="p.rcd_sig"),
    }
    result = verify_consensus(files, book)
    assert result.stake == 2
    assert result.outcomes["0.0.5"].startswith("bad signature: file signature does not verify")
    assert result.outcomes["0.0.6"] == "unreadable signature file: field version: expected 6 but got 9"


def test_the_group_with_most_stake_leads(node_keys):
    book = _staked_book(node_keys, {3: 1, 4: 1, 5: 9, 6: 1})
    files = {
        _acct(3): _sig(node_keys[3]),
        _acct(4): _sig(node_keys[4]),
        _acct(5): _sig(node_keys[5], OTHER),
        _acct(6): _sig(node_keys[6]),
    }
    result = verify_consensus(files, book)
    assert (result.file_hash, result.stake, result.total_stake) == (OTHER, 9, 12)
    assert result.outcomes["0.0.5"] == "ok"
    assert result.outcomes["0.0.3"].startswith("signed a different file hash " + GOOD.hex()[:16])
    assert [node.account for node, _ in result.agreeing] == ["0.0.5"]


def test_a_different_metadata_hash_is_another_group(node_keys, book):
    files = {_acct(n): _sig(node_keys[n]) for n in (3, 4)}
    files[_acct(5)] = _sig(node_keys[5], GOOD, sha384(b"other metadata"))
    result = verify_consensus(files, book)
    assert result.stake == 2 and result.outcomes["0.0.5"].startswith("signed a different")


def test_an_equal_stake_fork_is_no_consensus(node_keys, book):
    files = {
        _acct(3): _sig(node_keys[3]),
        _acct(4): _sig(node_keys[4]),
        _acct(5): _sig(node_keys[5], OTHER),
        _acct(6): _sig(node_keys[6], OTHER),
    }
    result = count_signatures(files, book)
    assert result.fork and not result.reached
    forked = r"^fork: two file hashes each reach the threshold: stake 2 and 2"
    with pytest.raises(ConsensusForkError, match=forked) as e:
        verify_consensus(files, book, period="2024-01-01T00_00_00.000000000Z")
    assert isinstance(e.value, NoConsensusError) and e.value.kind == "consensus_fork"
    assert e.value.file == "2024-01-01T00_00_00.000000000Z"


def test_a_larger_group_does_not_win_over_a_rival_over_the_threshold(node_keys):
    # 3 of 5 against 2 of 5: both reach ceil(5/3) = 2. The larger is not chosen silently.
    book = _staked_book(node_keys, {3: 2, 4: 1, 5: 1, 6: 1})
    files = {_acct(n): _sig(node_keys[n]) for n in (3, 4)} | {_acct(n): _sig(node_keys[n], OTHER) for n in (5, 6)}
    result = count_signatures(files, book)
    assert (result.stake, result.rival_stake, result.fork, result.reached) == (3, 2, True, False)
    with pytest.raises(ConsensusForkError, match="stake 3 and 2 of 5"):
        verify_consensus(files, book)
    # A rival under the threshold is a minority: the leading group holds.
    files[_acct(6)] = _sig(node_keys[6])
    assert verify_consensus(files, book).stake == 4


def test_a_node_named_twice_counts_once(node_keys, sigs):
    book = _staked_book(node_keys, {3: 1, 4: 1, 5: 1, 6: 1})
    files = {_acct(3): sigs[3], NodeIdentity(node_id=0): sigs[3]}
    result = count_signatures(files, book)
    assert result.stake == 1 and len(result.agreeing) == 1


def test_no_signature_at_all(book):
    result = count_signatures({}, book)
    assert result.file_hash is None and not result.reached
    assert set(result.outcomes.values()) == {"no signature file"}
    with pytest.raises(NoConsensusError, match="no valid signature"):
        verify_consensus({}, book)
