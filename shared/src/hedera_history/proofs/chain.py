"""The book and stakes in force as a proof's trust chain advances, step by step.

A step is a proven block whose items change file 0.0.102 (a successful FileUpdate replaces its
contents, a FileAppend appends to them) or the node stakes (a successful NodeStakeUpdate). The
rules of those changes are ``books.updates``'s, the tracker every keeper of books shares: which item
changes 0.0.102 (:func:`~hedera_history.books.updates.book_file_change`), and how a block's changes
put a book and stakes in force (:class:`~hedera_history.books.updates.AddressBookTracker`). The chain
applies them strictly, on top: an append needs an update the chain showed, and a step must change
the book's contents or the stakes in force. The verifier runs this; the builders run it too, to
pick the signatures the verifier will weigh.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.books.address_book import AddressBook
from hedera_history.books.stakes import NodeStakes, stake_update
from hedera_history.books.updates import NODE_DETAILS_FILE, AddressBookTracker, FileChange, book_file_change
from hedera_history.errors import AddressBookError, CorruptFileError, ProofBookError, ProofFormatError
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.formats.transactions import transaction_body

_SUCCESS = hapi.ResponseCodeEnum.Value("SUCCESS")


@dataclass(frozen=True, slots=True)
class ChainChange:
    """What one item does to the chain's state: new 0.0.102 contents or appended bytes, or stakes."""

    file: FileChange | None = None
    stakes: NodeStakes | None = None


def chain_change(item: RecordItem, name: str = "") -> ChainChange | None:
    """The item's effect on the book or stakes, or None (another kind, another file, or failed)."""
    try:
        body = transaction_body(item.transaction_bytes, name)
        record = hapi.TransactionRecord.FromString(item.record_bytes)
    except CorruptFileError as e:
        raise ProofFormatError(f"a chain item does not decode: {e.reason}") from e
    except DecodeError as e:
        raise ProofFormatError(f"a chain item's record does not decode: {e}") from e
    if record.receipt.status != _SUCCESS:
        return None
    change = book_file_change(body)
    if change is not None:
        # 0.0.101 changes no key a proof weighs.
        return ChainChange(file=change) if change.file_num == NODE_DETAILS_FILE else None
    stakes = stake_update(body)
    return None if stakes is None else ChainChange(stakes=stakes)


class BookChain:
    """The verifier's state: the book, the 0.0.102 contents and the stakes in force (a tracker's)."""

    def __init__(self, book: AddressBook) -> None:
        self.tracker = AddressBookTracker(book)
        self.last_consensus_ns = 0
        self.last_block_number: int | None = None
        self.book_updates = 0
        self.stake_updates = 0

    @property
    def book(self) -> AddressBook:
        return self.tracker.book

    @property
    def stakes(self) -> NodeStakes | None:
        return self.tracker.stakes

    @property
    def contents(self) -> bytes | None:
        return self.tracker.contents.get(NODE_DETAILS_FILE)

    @property
    def consensus_book(self) -> AddressBook:
        """The book in force weighted by the stakes in force (``books.stakes.weigh``)."""
        return self.tracker.consensus_book

    def check_after(self, items: Sequence[RecordItem], block_number: int | None, what: str) -> None:
        """``items`` (proven) come after everything the chain has applied."""
        first = min(item.consensus_ns for item in items)
        if first <= self.last_consensus_ns:
            raise ProofBookError(
                f"{what}: its items start at {first}, not after the last chain step ({self.last_consensus_ns})"
            )
        if block_number is not None and self.last_block_number is not None and block_number <= self.last_block_number:
            raise ProofBookError(
                f"{what}: block {block_number} does not come after the last chain step's block {self.last_block_number}"
            )

    def apply_step(self, items: Sequence[RecordItem], block_number: int | None, what: str) -> None:
        """Apply one proven step; ProofBookError when it changes nothing or cannot apply."""
        self.check_after(items, block_number, what)
        files: list[FileChange] = []
        stakes: NodeStakes | None = None
        for item in items:
            change = chain_change(item, what)
            if change is None:
                continue
            if change.file is not None:
                files.append(change.file)
            else:
                stakes = change.stakes
        if self.tracker.apply_stakes(stakes) is not None:
            self.stake_updates += 1
        elif not files:
            raise ProofBookError(f"{what}: changes neither the book nor the stakes in force")
        try:
            changed = self.tracker.apply_changes(files, what, strict=True)
        except AddressBookError as e:
            raise ProofBookError(f"{what}: {e.reason} in the chain") from e
        if changed is not None:
            self.book_updates += 1
        self.last_consensus_ns = max(item.consensus_ns for item in items)
        if block_number is not None:
            self.last_block_number = block_number
