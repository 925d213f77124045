"""The book and stakes in force as a proof's trust chain advances, step by step.

A step is a proven block whose items change file 0.0.102 (a successful FileUpdate replaces its
contents, a FileAppend appends to them) or the node stakes (a successful NodeStakeUpdate). After
each step the contents of 0.0.102 are parsed; when they make a usable book other than the one in
force, it is in force for what follows (as ``books.updates`` does block by block).
The verifier runs this; the builders run it too, to pick the signatures the verifier will weigh.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.books.address_book import AddressBook
from hedera_history.books.parse import parse_address_book
from hedera_history.books.stakes import NodeStakes, stake_update, weigh
from hedera_history.books.updates import NODE_DETAILS_FILE
from hedera_history.errors import AddressBookError, CorruptFileError, ProofBookError, ProofFormatError
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.formats.transactions import transaction_body

_SUCCESS = hapi.ResponseCodeEnum.Value("SUCCESS")


@dataclass(frozen=True, slots=True)
class ChainChange:
    """What one item does to the chain's state: new 0.0.102 contents or appended bytes, or stakes."""

    contents: bytes | None = None
    is_append: bool = False
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
    kind = body.WhichOneof("data")
    if kind in ("fileUpdate", "fileAppend"):
        operation = body.fileUpdate if kind == "fileUpdate" else body.fileAppend
        file_id = operation.fileID
        if (file_id.shardNum, file_id.realmNum, file_id.fileNum) != (0, 0, NODE_DETAILS_FILE):
            return None
        if kind == "fileUpdate" and not operation.contents:
            return None  # expiry, keys or memo only
        return ChainChange(contents=bytes(operation.contents), is_append=kind == "fileAppend")
    stakes = stake_update(body)
    return None if stakes is None else ChainChange(stakes=stakes)


class BookChain:
    """The verifier's state: the book, the 0.0.102 contents and the stakes in force."""

    def __init__(self, book: AddressBook) -> None:
        self.book = book
        self.stakes: NodeStakes | None = None
        self.contents: bytes | None = None
        self.last_consensus_ns = 0
        self.last_block_number: int | None = None
        self.book_updates = 0
        self.stake_updates = 0

    @property
    def consensus_book(self) -> AddressBook:
        """The book in force weighted by the stakes in force (``books.stakes.weigh``)."""
        return weigh(self.book, self.stakes)

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
        changed = False
        stakes: NodeStakes | None = None
        for item in items:
            change = chain_change(item, what)
            if change is None:
                continue
            if change.stakes is not None:
                stakes = change.stakes
            elif change.is_append:
                if self.contents is None:
                    raise ProofBookError(f"{what}: appends to 0.0.102 before any update of it in the chain")
                self.contents += change.contents or b""
                changed = True
            else:
                self.contents = change.contents
                changed = True
        if stakes is not None and stakes != self.stakes:
            self.stakes = stakes
            self.stake_updates += 1
        elif not changed:
            raise ProofBookError(f"{what}: changes neither the book nor the stakes in force")
        if changed and self.contents is not None:
            try:
                book = parse_address_book(self.contents, f"0.0.{NODE_DETAILS_FILE} after {what}")
            except AddressBookError:
                book = None  # not whole yet: an append to come completes it
            if book is not None and book != self.book:
                self.book = book
                self.book_updates += 1
        self.last_consensus_ns = max(item.consensus_ns for item in items)
        if block_number is not None:
            self.last_block_number = block_number
