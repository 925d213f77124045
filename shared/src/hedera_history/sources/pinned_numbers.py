"""The block number of a listed range's first period before V6, counted from the network's pin.

With a pin in force (``HEDERA_HISTORY_BLOCK_PIN``, filled in by the mainnet and testnet presets)
the numbers are the mirror node's wherever the range lies. The backfill numbers its range so; the
stream numbers the first pre-V6 block of a deployment so (a range of that one period).

- the pinned file inside the range: the first period is the pin's number minus its distance;
- the range before the pin: the periods from the range's end up to the pin are listed and counted;
- the range after the pin: the periods between the pin and the range's start are listed and
  counted, unless the range's first file is V6 (V6 files carry their own numbers; nothing to count).

Cost: at most one more listing of every node folder, over the gap between the range and the pin
(for mainnet's pin of 2022-06-29, a 2019 range lists about three years: tens of millions of periods;
set a start block to skip it). The pinned period's record file is read (one copy, unverified) to
check it ends at the pin and, from V6 on, states the pinned number: a mismatch is a
BlockPinMismatchError before anything is written, never a silent renumbering.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hedera_history.books.address_book import AddressBook
from hedera_history.errors import BlockPinMismatchError, SourceError
from hedera_history.formats.parsed_files import RecordFile
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.networks.block_numbers import BlockPin, first_number, pinned_index, start_block_after_pin
from hedera_history.sources.base import ObjectSource
from hedera_history.sources.period_files import SourcePeriod, StreamLocation
from hedera_history.sources.period_listing import ListedPeriod, list_periods
from hedera_history.verify.block_pin import Numbering, first_record

PIN_LOOKBACK_NS = 3_600 * 1_000_000_000
"""How far before the pin's consensus end the pinned period is looked for when the range is after it
(a record file spans a few seconds)."""


@dataclass(frozen=True, slots=True)
class StreamAccess:
    """Where the range's stream is listed and read: the bucket, the nodes' folders, the book that
    names them, and the bound on a decompressed file."""

    source: ObjectSource
    location: StreamLocation
    nodes: Sequence[NodeIdentity]
    book: AddressBook
    max_decompressed: int | None = None

    def periods(self, start_ns: int, end_ns: int) -> list[ListedPeriod]:
        return list(list_periods(self.source, self.location, self.nodes, start_ns, end_ns))

    def record(self, period: ListedPeriod) -> RecordFile:
        return read_record(self.source, self.location, period, self.book, self.max_decompressed)


def range_numbering(
    listed: Sequence[ListedPeriod],
    *,
    pin: BlockPin | None,
    start_block: int,
    start_ns: int,
    end_ns: int,
    stream: StreamAccess,
) -> Numbering:
    """How ``listed`` (the range's periods, ascending) is numbered: its first period's number if
    before V6, and which of them is the pinned file, if one is."""
    if pin is None or not listed:
        return Numbering(start_block, pin)
    starts = [period.consensus_ns for period in listed]
    index = pinned_index(starts, pin)
    end = pin.consensus_end_ns
    if index < 0:
        first = stream.record(listed[0])
        if first.version >= 6:
            return Numbering(start_block, pin)
        between = stream.periods(end + 1, start_ns)
        near = stream.periods(max(0, end - PIN_LOOKBACK_NS), end + 1)
        if not near:
            raise BlockPinMismatchError(
                f"no period starts in the hour before the pin's consensus end {end}: the pinned file is not there"
            )
        check_pinned(stream.record(near[-1]), pin)
        return Numbering(start_block_after_pin(pin, len(between)), pin)
    beyond: list[ListedPeriod] = []
    if index == len(listed) - 1 and end_ns <= end:
        beyond = stream.periods(end_ns, end + 1)
    pinned = beyond[-1] if beyond else listed[index]
    check_pinned(stream.record(pinned), pin)
    inside = None if beyond else pinned.period_key
    return Numbering(first_number(starts, pin, periods_after=len(beyond)), pin, inside)


def check_pinned(record: RecordFile, pin: BlockPin) -> None:
    """BlockPinMismatchError unless ``record`` ends at the pin (and, from V6 on, states its number)."""
    if record.consensus_end != pin.consensus_end_ns:
        raise BlockPinMismatchError(
            f"the period the listing puts at the pin ends at {record.consensus_end}, not at the pin's "
            f"{pin.consensus_end_ns}: block {pin.block_number} cannot be placed",
            file=record.name,
        )
    if record.block_number is not None and record.block_number != pin.block_number:
        raise BlockPinMismatchError(
            f"the file ending at the pin states block {record.block_number}, the network pins it to {pin.block_number}",
            file=record.name,
        )


def read_record(
    source: ObjectSource,
    location: StreamLocation,
    period: ListedPeriod,
    book: AddressBook,
    max_decompressed: int | None = None,
) -> RecordFile:
    """The period's record file from the first node with a readable copy (unverified)."""
    record = first_record(SourcePeriod.for_book(source, location, period.period_key, book), max_decompressed)
    if record is None:
        raise SourceError("no node holds a readable record file for the period", file=period.period_key)
    return record
