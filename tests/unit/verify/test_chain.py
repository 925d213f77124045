from __future__ import annotations

import pytest
from hedera_history.errors import BrokenChainError
from hedera_history.formats.hashing import EMPTY_HASH, sha384
from hedera_history.formats.parsed_files import RecordFile
from hedera_history.verify.chain import block_number_for, check_link

H = [sha384(bytes([i])) for i in range(6)]


def _file(name: str, version: int, *, previous: bytes, this: bytes, block_number: int | None = None) -> RecordFile:
    running = version >= 5
    return RecordFile(
        name=name,
        version=version,
        hapi_version=(0, 28, 0),
        items=(),
        file_hash=sha384(name.encode()) if running else this,
        metadata_hash=sha384(b"m") if running else None,
        start_running_hash=previous if running else None,
        end_running_hash=this if running else None,
        computed_end_running_hash=this if running else None,
        previous_file_hash=None if running else previous,
        block_number=block_number,
    )


@pytest.mark.parametrize(("v1", "v2"), [(6, 6), (5, 5), (5, 6), (2, 2), (1, 2), (1, 1), (2, 5), (1, 5)])
def test_matching_links_are_ok(v1, v2):
    first = _file("a", v1, previous=H[0], this=H[1])
    second = _file("b", v2, previous=H[1], this=H[2])
    link = check_link(first, second)
    assert link.ok and (link.previous, link.current) == ("a", "b")


@pytest.mark.parametrize(("v1", "v2"), [(6, 6), (5, 6), (2, 2), (1, 2), (2, 5)])
def test_a_mismatch_is_broken_and_names_both_files(v1, v2):
    first = _file("a.rcd", v1, previous=H[0], this=H[1])
    second = _file("b.rcd", v2, previous=H[3], this=H[2])
    with pytest.raises(BrokenChainError) as caught:
        check_link(first, second)
    assert caught.value.file == "a.rcd -> b.rcd"
    assert H[1].hex() in caught.value.reason and H[3].hex() in caught.value.reason


def test_the_first_v5_file_must_start_from_the_last_v2_file_hash():
    last_v2 = _file("a.rcd", 2, previous=H[0], this=H[1])
    assert check_link(last_v2, _file("b.rcd", 5, previous=H[1], this=H[2])).ok
    # A V5 file that starts a chain of its own (or names another V2 file) is a splice, not a boundary.
    for start in (EMPTY_HASH, H[3]):
        with pytest.raises(BrokenChainError, match=r"start running hash: .* \(the file hash of a.rcd\)"):
            check_link(last_v2, _file("b.rcd", 5, previous=start, this=H[2]))


def test_a_version_going_back_is_broken():
    with pytest.raises(BrokenChainError, match="version goes back"):
        check_link(_file("a", 6, previous=H[0], this=H[1]), _file("b", 5, previous=H[1], this=H[2]))


def test_a_bare_previous_hash():
    current = _file("b", 6, previous=H[1], this=H[2])
    assert check_link(H[1], current).ok
    with pytest.raises(BrokenChainError, match="the end running hash of previous block"):
        check_link(H[0], current)
    assert check_link(H[1], current, previous_version=2).ok
    with pytest.raises(BrokenChainError):
        check_link(H[0], current, previous_version=2)


def test_block_numbers():
    v6 = _file("a", 6, previous=H[0], this=H[1], block_number=42)
    v5 = _file("b", 5, previous=H[0], this=H[1])
    assert block_number_for(v6, None) == 42
    assert block_number_for(v6, 7) == 42
    assert block_number_for(v5, None, start_block=100) == 100
    assert block_number_for(v5, 100, start_block=0) == 101
