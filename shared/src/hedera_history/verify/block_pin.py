"""Numbering a run of periods from a network's block pin, and checking the pin as they verify.

``verify`` and ``load`` number the periods of a folder: with a pin in force the first one's number
is counted back (or on) from the pinned file, found among the folder's periods by name time, and
every result is checked against the pin (:func:`with_pin_checks`): the pinned file must get the
pinned number, else the result carries a :class:`~hedera_history.errors.BlockPinMismatchError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from hedera_history.errors import BlockPinMismatchError, BlockPinOutOfReachError, FormatError
from hedera_history.formats.dispatch import parse_record_file
from hedera_history.formats.parsed_files import RecordFile
from hedera_history.networks.block_numbers import BlockPin, first_number, pin_problem, pinned_index
from hedera_history.verify.period import PeriodFiles
from hedera_history.verify.stream import PeriodResult


class TimedPeriod(PeriodFiles, Protocol):
    @property
    def consensus_ns(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Numbering:
    """How a run of periods is numbered before V6."""

    start_block: int
    """The first period's number (used only when it is before V6)."""
    pin: BlockPin | None = None
    pinned_key: str | None = None
    """The period taken for the pinned file, when it is among the run."""


def numbering_for(
    periods: Sequence[TimedPeriod], *, start_block: int, pin: BlockPin | None, max_decompressed: int | None = None
) -> Numbering:
    """The numbering of ``periods`` (ascending): from ``start_block``, or counted from ``pin``.

    Reads (unverified) the first period's record file, and the one taken for the pinned file to
    check it ends at the pin. When the first file is V6 every file carries its number and nothing
    is counted. BlockPinOutOfReachError when the periods do not reach the pinned file (all start
    after it, or all end before it); BlockPinMismatchError when the file taken for it does not end
    at the pin.
    """
    if pin is None or not periods:
        return Numbering(start_block, pin)
    first = first_record(periods[0], max_decompressed)
    if first is not None and first.version >= 6:
        return Numbering(start_block, pin)
    starts = [period.consensus_ns for period in periods]
    index = pinned_index(starts, pin)
    end = pin.consensus_end_ns
    if index < 0:
        raise BlockPinOutOfReachError(
            f"every period starts after the pinned file (consensus end {end}, block {pin.block_number}) and "
            f"{periods[0].period_key} is before V6: its number cannot be counted from the pin here; "
            "set a start block (--start-block) instead"
        )
    pinned = first_record(periods[index], max_decompressed)
    if pinned is not None and pinned.consensus_end != end:
        if index == len(periods) - 1 and pinned.consensus_end < end:
            raise BlockPinOutOfReachError(
                f"the periods end before the pinned file (consensus end {end}, block {pin.block_number}): their "
                "numbers cannot be counted from the pin here; set a start block (--start-block) instead",
                file=pinned.name,
            )
        raise BlockPinMismatchError(
            f"the period holding the pin's consensus end {end} ends at {pinned.consensus_end}: no file ends "
            f"at the pin, block {pin.block_number} cannot be placed",
            file=pinned.name,
        )
    return Numbering(first_number(starts, pin), pin, periods[index].period_key)


def with_pin_checks(results: Iterable[PeriodResult], numbering: Numbering) -> Iterator[PeriodResult]:
    """``results`` with a BlockPinMismatchError on any that disagrees with the pin (a result that
    already failed keeps its own error)."""
    previous_end: int | None = None
    for result in results:
        record = result.report.record
        checked = result
        if numbering.pin is not None and record is not None and result.block_number is not None:
            problem = pin_problem(
                numbering.pin,
                name=record.name,
                consensus_start=record.consensus_start,
                consensus_end=record.consensus_end,
                number=result.block_number,
                previous_end=previous_end,
                expected_pinned=result.period_key == numbering.pinned_key,
            )
            if problem is not None and result.error is None:
                checked = replace(result, error=problem)
        if record is not None:
            previous_end = record.consensus_end
        yield checked


def first_record(period: PeriodFiles, max_decompressed: int | None = None) -> RecordFile | None:
    """The first readable record copy of ``period`` (unverified), if any."""
    for node in period.nodes():
        fetched = period.record(node)
        if fetched is None:
            continue
        try:
            return parse_record_file(fetched.data, fetched.name, max_decompressed=max_decompressed)
        except FormatError:
            continue
    return None
