"""When the follower goes back to record files after blocks stalled (``follow.record_fallback``), on
a generated record stream with the store and the bucket faked: only after the interval without a
block, only for a record file of a later period that links to the last one stored, never with a
block stored after it, never with the interval 0."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import pytest
from hedera_history.config import Settings
from hedera_history.follow.record_fallback import RecordFallback, RecordsGoOn
from hedera_history.formats.block_record_file import BLOCK_FILE_VERSION
from hedera_history.gen.config_and_output import GeneratedStream, GeneratorConfig
from hedera_history.gen.stream import generate_stream
from hedera_history.sources.base import ObjectInfo
from hedera_history.store.decode import StoredBlock
from hedera_history.store.reader import HistoryReader

FOLDER = "recordstreams/record0.0.3/"
INTERVAL = 8.0


@pytest.fixture(scope="module")
def stream() -> GeneratedStream:
    return generate_stream(GeneratorConfig(nodes=1, periods=3, transactions=2, sidecars=False, rotate_key=False))


@dataclass
class Stored:
    """What the follower's reader answers: blocks by number (a record file's fields) and which are complete."""

    blocks: dict[int, Any] = field(default_factory=dict)
    complete: set[int] = field(default_factory=set)
    reads: int = 0

    def get_block(self, number: int) -> Any:
        self.reads += 1
        return self.blocks.get(number)

    def complete_blocks(self, numbers: list[int]) -> set[int]:
        return self.complete & set(numbers)


@dataclass
class Bucket:
    objects: dict[str, bytes] = field(default_factory=dict)

    def list(
        self, prefix: str, *, delimiter: str | None = None, start_after: str | None = None
    ) -> Iterator[ObjectInfo]:
        for name in sorted(self.objects):
            if name.startswith(prefix) and (start_after is None or name > start_after):
                yield ObjectInfo(name, len(self.objects[name]), "1", None)

    def read(self, name: str, **_: Any) -> bytes:
        return self.objects[name]


@dataclass(frozen=True)
class StoredRecord:
    """The fields of a stored block the fallback reads."""

    number: int
    version: int
    name: str
    end_running_hash: bytes | None
    file_hash: bytes
    wrapped_envelope: bytes | None = None

    following_hash = StoredBlock.following_hash


def record_block(stream: GeneratedStream, index: int, *, number: int | None = None, version: int = 6) -> StoredRecord:
    """Period ``index`` of ``stream`` as stored (as block ``number``, its own by default)."""
    period = stream.periods[index]
    at = period.block_number if number is None else number
    return StoredRecord(at, version, period.record_name.name, period.end_running_hash, period.file_hash)


def fallback(stored: Stored, bucket: Bucket, interval: float = INTERVAL) -> RecordFallback:
    settings = Settings(follow_block_fallback_seconds=interval)
    return RecordFallback(cast(HistoryReader, stored), cast(Any, bucket), settings, now=0.0)


def with_period(stream: GeneratedStream, index: int) -> dict[str, bytes]:
    """The node's files of period ``index`` as uploaded."""
    key = stream.periods[index].record_name.period_key
    return {name: data for name, data in stream.objects.items() if name.startswith(FOLDER + key)}


def test_goes_back_after_the_interval_to_a_later_record_file_that_links(stream: GeneratedStream) -> None:
    stored = Stored({0: record_block(stream, 0)})
    bucket = Bucket(with_period(stream, 0) | with_period(stream, 1))
    deciding = fallback(stored, bucket)
    assert deciding.check(1, [FOLDER], 0.0) is None  # the wait begins
    assert deciding.check(1, [FOLDER], INTERVAL - 0.1) is None and stored.reads == 0
    found = deciding.check(1, [FOLDER], INTERVAL)
    assert found == RecordsGoOn(1, 0, FOLDER + stream.periods[1].record_name.name, INTERVAL)


def test_a_block_that_advances_starts_the_wait_again(stream: GeneratedStream) -> None:
    stored = Stored({0: record_block(stream, 0), 1: record_block(stream, 1)})
    deciding = fallback(stored, Bucket(with_period(stream, 2)))
    deciding.check(1, [FOLDER], 0.0)
    assert deciding.check(2, [FOLDER], INTERVAL) is None and stored.reads == 0
    assert deciding.check(2, [FOLDER], 2 * INTERVAL) is not None


def test_a_record_file_that_does_not_link_keeps_it_on_blocks(
    stream: GeneratedStream, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="hedera_history.follow.record_fallback")
    stored = Stored({1: record_block(stream, 0, number=1)})  # period 2, found next, links to period 1, not 0
    bucket = Bucket(with_period(stream, 0) | with_period(stream, 2))
    deciding = fallback(stored, bucket)
    deciding.check(2, [FOLDER], 0.0)
    assert deciding.check(2, [FOLDER], INTERVAL) is None
    assert deciding.check(2, [FOLDER], 2 * INTERVAL) is None
    stays = [r for r in caplog.records if r.getMessage() == "follower stays on blocks"]
    assert len(stays) == 1 and "previous hash" in stays[0].__dict__["fields"]["reason"]


@pytest.mark.parametrize("stored_after", ["a block-stream block", "the block waited for"])
def test_a_block_stored_after_the_last_record_file_keeps_it_on_blocks(
    stream: GeneratedStream, stored_after: str
) -> None:
    stored = Stored({0: record_block(stream, 0)})
    if stored_after == "a block-stream block":
        stored.blocks[1] = record_block(stream, 1, version=BLOCK_FILE_VERSION)
        waited = 2
    else:
        stored.complete = {1}
        waited = 1
    deciding = fallback(stored, Bucket(with_period(stream, 1) | with_period(stream, 2)))
    deciding.check(waited, [FOLDER], 0.0)
    assert deciding.check(waited, [FOLDER], INTERVAL) is None


def test_an_interval_of_zero_never_goes_back(stream: GeneratedStream) -> None:
    stored = Stored({0: record_block(stream, 0)})
    deciding = fallback(stored, Bucket(with_period(stream, 1)), interval=0.0)
    deciding.check(1, [FOLDER], 0.0)
    assert deciding.check(1, [FOLDER], 1000.0) is None and stored.reads == 0


def test_a_folder_whose_first_record_file_does_not_link_passes_to_the_next(stream: GeneratedStream) -> None:
    other = "recordstreams/record0.0.4/"
    moved = {other + name.removeprefix(FOLDER): data for name, data in with_period(stream, 1).items()}
    stored = Stored({0: record_block(stream, 0)})
    deciding = fallback(stored, Bucket(with_period(stream, 2) | moved))  # the first folder lacks period 1
    deciding.check(1, [FOLDER, other], 0.0)
    found = deciding.check(1, [FOLDER, other], INTERVAL)
    assert found is not None and found.record_file == other + stream.periods[1].record_name.name
