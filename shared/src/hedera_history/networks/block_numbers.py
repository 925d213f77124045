"""Block numbers before V6, counted from a pinned record file as the mirror node numbers them.

Record files before V6 carry no block number. The mirror node numbers them one after another and
then shifts every number so that the file with a known consensus end gets a known number
(``migration/BlockNumberMigration.java``). So a file's number is the pin's number plus its
distance from the pinned file (negative before it), and a genesis backfill and a stream started
mid-history agree. Pure: the callers count the files (by listing) and read the records.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from hedera_history.errors import BlockPinMismatchError, BlockPinOutOfReachError, ConfigError


@dataclass(frozen=True, slots=True)
class BlockPin:
    """The record file whose consensus end is ``consensus_end_ns`` is block ``block_number``."""

    consensus_end_ns: int
    block_number: int

    def __post_init__(self) -> None:
        if self.consensus_end_ns <= 0 or self.block_number < 0:
            raise ConfigError(f"bad block pin {self.consensus_end_ns}:{self.block_number}")

    @classmethod
    def parse(cls, text: str) -> BlockPin | None:
        """``CONSENSUS_END_NS:BLOCK_NUMBER``; None for an empty text."""
        if not text.strip():
            return None
        end, sep, number = text.strip().partition(":")
        if not sep or not end.isdigit() or not number.isdigit():
            raise ConfigError(f"a block pin is CONSENSUS_END_NS:BLOCK_NUMBER, got {text!r}")
        return cls(int(end), int(number))

    def __str__(self) -> str:
        return f"{self.consensus_end_ns}:{self.block_number}"


def number_from_pin(pin: BlockPin, distance: int) -> int:
    """The number of the file ``distance`` files after the pinned one (before it when negative)."""
    number = pin.block_number + distance
    if number < 0:
        raise BlockPinOutOfReachError(
            f"a file {-distance} files before the pinned block {pin.block_number} would have a negative number"
        )
    return number


def pinned_index(period_starts: Sequence[int], pin: BlockPin) -> int:
    """Index of the period holding the pinned file among ascending period start times (name times):
    the last one starting at or before the pin's consensus end; -1 when all start after it."""
    return bisect.bisect_right(period_starts, pin.consensus_end_ns) - 1


def first_number(period_starts: Sequence[int], pin: BlockPin, *, periods_after: int = 0) -> int:
    """The first period's number, for ascending period start times followed by ``periods_after``
    more periods (listed beyond them, up to the pin) when the pinned file is not among them."""
    index = pinned_index(period_starts, pin)
    if index < 0:
        raise BlockPinOutOfReachError(
            f"every period starts after the pinned file (consensus end {pin.consensus_end_ns}): "
            "the periods between it and them were not counted"
        )
    if index == len(period_starts) - 1:
        index += periods_after
    return number_from_pin(pin, -index)


def start_block_after_pin(pin: BlockPin, periods_between: int) -> int:
    """The number of the first period after the pinned file, when ``periods_between`` periods start
    after the pin's consensus end and before it."""
    return number_from_pin(pin, periods_between + 1)


def pin_problem(
    pin: BlockPin | None,
    *,
    name: str,
    consensus_start: int,
    consensus_end: int,
    number: int,
    previous_end: int | None,
    expected_pinned: bool = False,
) -> BlockPinMismatchError | None:
    """What is wrong with a record file numbered ``number`` given the pin, if anything.

    - The file ending at the pin must be the pinned block (never renumbered silently).
    - No file may straddle the pin, and the pin may not fall between the previous file and this
      one: then the file that ends there is missing or another file holds its time.
    - ``expected_pinned``: the numbering took this file for the pinned one (from its name time), so
      it must end at the pin.
    """
    if pin is None:
        return None
    end = pin.consensus_end_ns
    if expected_pinned and consensus_end != end:
        return BlockPinMismatchError(
            f"numbered as the pinned block {pin.block_number}, but it ends at {consensus_end}, not at the pin "
            f"({end}): the files at hand do not reach the pinned file (set a start block instead)",
            file=name,
        )
    if consensus_end == end:
        return _pinned_number_problem(pin, name, number)
    return _pin_gap_problem(pin, name, consensus_start, consensus_end, previous_end)


def _pinned_number_problem(pin: BlockPin, name: str, number: int) -> BlockPinMismatchError | None:
    """The file ending at the pin must carry the pinned number."""
    if number == pin.block_number:
        return None
    return BlockPinMismatchError(
        f"the file ending at the pin ({pin.consensus_end_ns}) is block {number}, "
        f"the network pins it to {pin.block_number}",
        file=name,
    )


def _pin_gap_problem(
    pin: BlockPin, name: str, consensus_start: int, consensus_end: int, previous_end: int | None
) -> BlockPinMismatchError | None:
    """A file not ending at the pin may neither straddle it nor follow a gap the pin falls in."""
    end = pin.consensus_end_ns
    if consensus_start <= end < consensus_end:
        return BlockPinMismatchError(
            f"the pin's consensus end {end} falls inside this file ({consensus_start}..{consensus_end}), "
            "no file ends there",
            file=name,
        )
    if previous_end is not None and previous_end < end < consensus_start:
        return BlockPinMismatchError(
            f"no file ends at the pin ({end}): the file before ends at {previous_end}, this one starts at "
            f"{consensus_start}",
            file=name,
        )
    return None
