"""Verify a sequence of periods in order, reporting each, never stopping at a bad one.

- The book in force advances with the stream: a book completed in a block is used from the next
  period on (:class:`~hedera_history.books.updates.AddressBookTracker`); so do the
  node stakes that weigh each node's signature (``NodeStakeUpdate``, :mod:`hedera_history.books.stakes`).
- Block numbers: V6 files carry theirs; earlier files get the previous period's number + 1 (a
  period that failed still takes its number: it is a block we could not verify, not a gap), the
  first ``start_block``.
- Chain links are checked between consecutive verified blocks. After a failed period the chain
  goes on from the last good block; the next link is checked against it, and when it does not
  match it is reported as unverifiable (the failed period lies between), not as broken.
- A verified block whose link is broken is never a block of the history: it is reported as failed
  (``report.block`` None, the ``BrokenChainError`` as error, ``report.record`` the file), its book
  updates are not applied, and the chain goes on from the last good block, so the next link is
  unverifiable rather than broken (one break does not fail every later period). Which side of the
  break is wrong cannot be told from the files: the later one is refused, the earlier one is
  already history.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction

from hedera_history.block import VerifiedBlock
from hedera_history.books.address_book import AddressBook
from hedera_history.books.stakes import NodeStakes
from hedera_history.books.updates import AddressBookTracker
from hedera_history.errors import BrokenChainError, CorruptFileError, HistoryError
from hedera_history.verify.chain import ChainLink, LinkStatus, block_number_for, check_link
from hedera_history.verify.consensus import DEFAULT_RATIO
from hedera_history.verify.period import PeriodFiles, PeriodReport, check_period


@dataclass(frozen=True, slots=True)
class PeriodResult:
    report: PeriodReport
    block_number: int | None
    """The verified block's number; for a failed period the number it would have had, if known."""
    link: ChainLink | None
    """The link to the previous verified block (None for the first block, or a failed period)."""
    error: HistoryError | None
    """The period's error, or a broken link, or an unreadable book update."""
    new_book: AddressBook | None = None
    """The book this block put in force for later periods."""
    new_stakes: NodeStakes | None = None
    """The node stakes this block put in force for later periods."""

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def period_key(self) -> str:
        return self.report.period_key


def verify_stream(
    periods: Iterable[PeriodFiles],
    book: AddressBook,
    *,
    ratio: Fraction = DEFAULT_RATIO,
    start_block: int = 0,
    sidecars: bool = True,
    max_decompressed: int | None = None,
    tracker: AddressBookTracker | None = None,
) -> Iterator[PeriodResult]:
    """One result per period, in the order given (which must be consensus-time order)."""
    books = tracker or AddressBookTracker(book)
    last_block: VerifiedBlock | None = None
    last_number: int | None = None
    failed_since: list[str] = []
    for files in periods:
        expected = start_block if last_number is None else last_number + 1
        report = check_period(
            files,
            books.consensus_book,
            ratio=ratio,
            block_number=expected,
            sidecars=sidecars,
            max_decompressed=max_decompressed,
        )
        if report.block is None:
            record = report.record
            last_number = block_number_for(record, last_number, start_block) if record else expected
            failed_since.append(report.period_key)
            yield PeriodResult(report, last_number, None, report.error)
            continue

        block = report.block
        link: ChainLink | None = None
        error: HistoryError | None = None
        if last_block is not None:
            try:
                link = check_link(last_block.record, block.record)
            except BrokenChainError as e:
                if not failed_since:
                    last_number = block.block_number
                    failed_since.append(report.period_key)
                    refused = PeriodReport(report.period_key, report.consensus, None, e, block.record)
                    yield PeriodResult(refused, block.block_number, None, e)
                    continue
                link = _after_failures(last_block.record.name, block.record.name, failed_since)
        elif failed_since:
            link = _after_failures("nothing verified", block.record.name, failed_since)
        new_book: AddressBook | None = None
        stakes_before = books.stakes
        try:
            new_book = books.apply_block(block.record)
        except CorruptFileError as e:
            error = error or e
        new_stakes = books.stakes if books.stakes != stakes_before else None
        last_block, last_number, failed_since = block, block.block_number, []
        yield PeriodResult(report, block.block_number, link, error, new_book, new_stakes)


def _after_failures(previous: str, current: str, failed: list[str]) -> ChainLink:
    shown = ", ".join(failed[:3]) + (f" and {len(failed) - 3} more" if len(failed) > 3 else "")
    return ChainLink(
        previous,
        current,
        LinkStatus.UNVERIFIABLE,
        f"{len(failed)} period(s) before it did not verify ({shown}); the link cannot be checked",
    )
