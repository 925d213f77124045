"""Discovery: each node folder listed after its last name, sidecars not descended, hot folders rotated."""

from __future__ import annotations

import pytest
from hedera_history.errors import ObjectNotFoundError
from hedera_history.follow.cache import CachedSource
from hedera_history.follow.discovery import Discovery
from hedera_history.formats.names import format_timestamp

from .memory_source import MemorySource

T0 = 1_717_200_000_000_000_000
FOLDERS = [f"recordstreams/record0.0.{n}/" for n in (3, 4, 5, 6)]


def key(index: int) -> str:
    return format_timestamp(T0 + index * 2_000_000_000)


def upload(source: MemorySource, folder: str, index: int) -> None:
    source.put(f"{folder}{key(index)}.rcd.gz")
    source.put(f"{folder}{key(index)}.rcd_sig")
    source.put(f"{folder}sidecar/{key(index)}_01.rcd.gz")


def start_points() -> dict[str, str]:
    return {f: f + key(-1) + "~" for f in FOLDERS}


def test_lists_only_what_is_new_in_each_folder() -> None:
    source = MemorySource()
    upload(source, FOLDERS[0], -1)  # before the start: never reported
    discovery = Discovery(source, FOLDERS, after={}, default_after=start_points(), hot_nodes=0)
    assert discovery.poll(FOLDERS) == []
    for folder in FOLDERS:
        upload(source, folder, 0)
    seen = discovery.poll(FOLDERS)
    assert sorted(s.name for s in seen) == sorted(f"{f}{key(0)}.rcd_sig" for f in FOLDERS)
    assert {s.period_key for s in seen} == {key(0)}
    assert discovery.poll(FOLDERS) == []  # nothing new: nothing reported again
    upload(source, FOLDERS[2], 1)
    (late,) = discovery.poll(FOLDERS)
    assert (late.folder, late.period_key) == (FOLDERS[2], key(1))
    # Every listing names its folder, the delimiter keeps sidecar folders out, and it starts
    # after the folder's last name (a record or signature file, whichever sorted last).
    assert discovery.listed[FOLDERS[2]] == f"{FOLDERS[2]}{key(1)}.rcd_sig"
    assert all(prefix in FOLDERS and after is not None for prefix, after in source.lists)


def test_a_folder_that_cannot_be_listed_keeps_its_place() -> None:
    source = MemorySource()
    discovery = Discovery(source, FOLDERS, after={}, default_after=start_points(), hot_nodes=0)
    upload(source, FOLDERS[1], 0)
    source.broken_folders.add(FOLDERS[1])
    assert discovery.poll(FOLDERS) == []
    assert discovery.list_errors == 1
    source.broken_folders.clear()
    assert [s.folder for s in discovery.poll(FOLDERS)] == [FOLDERS[1]]


def test_hot_folders_rotate_over_those_that_keep_up() -> None:
    source = MemorySource()
    discovery = Discovery(source, FOLDERS, after={}, default_after=start_points(), hot_nodes=2)
    for folder in FOLDERS[:3]:
        upload(source, folder, 0)
    discovery.poll(FOLDERS)  # record0.0.6 lags
    picks = [tuple(discovery.hot()) for _ in range(6)]
    assert all(len(p) == 2 and FOLDERS[3] not in p for p in picks)
    assert {f for p in picks for f in p} == set(FOLDERS[:3])
    upload(source, FOLDERS[3], 0)
    upload(source, FOLDERS[3], 1)
    discovery.poll([FOLDERS[3]])  # now it alone shows the newest period: first among the hot
    assert discovery.hot()[0] == FOLDERS[3]


def test_the_cache_reads_an_object_once_and_never_keeps_a_miss() -> None:
    source = MemorySource()
    cache = CachedSource(source, max_bytes=100)
    source.put("a", b"1" * 10)
    assert cache.read("a") == cache.read("a") == b"1" * 10
    assert source.reads == ["a"]
    with pytest.raises(ObjectNotFoundError):
        cache.read("b")
    source.put("b", b"2")
    assert cache.read("b") == b"2"
    assert source.reads == ["a", "b", "b"]
    for n in range(20):  # more than the bound: the oldest go first
        source.put(f"c{n}", b"3" * 20)
        cache.read(f"c{n}")
    assert cache.held_bytes <= 100
    cache.read("a")
    assert source.reads.count("a") == 2
