"""The address-book state a partition starts from and ends with, as bytes that travel and compare.

Verification depends only on the book in force and the node stakes in force (``verify.stakes``);
how later blocks change the book also depends on the known contents of the book files (a book
arrives as an update and appends, possibly spread over several blocks). All three travel between
the driver and the tasks (and into the progress table) in one compact encoding: ``u32 len +
NodeAddressBook``, ``u32 n``, then per file ``u32 number, u32 len + contents``, files in number
order, then, only once the stream has shown a ``NodeStakeUpdate``, ``u32 len + stakes``
(:meth:`NodeStakes.encode`). Equal states give equal bytes, and a state without stakes encodes (and
fingerprints) as it did before stakes were tracked, so earlier progress rows still match.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Mapping
from dataclasses import dataclass

from hedera_history.errors import CorruptFileError
from hedera_history.verify.address_book import AddressBook, address_book_to_bytes, parse_address_book
from hedera_history.verify.address_book_updates import AddressBookTracker
from hedera_history.verify.stakes import NodeStakes, decode_stakes_or_none

_U32 = struct.Struct(">I")


@dataclass(frozen=True, slots=True)
class BookState:
    book: bytes
    """The book in force, as ``NodeAddressBook`` bytes in canonical form (``address_book_to_bytes``)."""
    contents: tuple[tuple[int, bytes], ...] = ()
    """Book file number -> its contents as far as the stream has shown them, by file number."""
    stakes: bytes = b""
    """The node stakes in force (:meth:`NodeStakes.encode`); empty until a NodeStakeUpdate."""

    @classmethod
    def of(
        cls, book: AddressBook, contents: Mapping[int, bytes] | None = None, stakes: NodeStakes | None = None
    ) -> BookState:
        return cls(
            address_book_to_bytes(book),
            tuple(sorted((contents or {}).items())),
            stakes.encode() if stakes is not None else b"",
        )

    @classmethod
    def of_tracker(cls, tracker: AddressBookTracker) -> BookState:
        return cls.of(tracker.book, tracker.contents, tracker.stakes)

    @property
    def book_fingerprint(self) -> bytes:
        """What verification depends on: SHA-384 of the book in force (and of the stakes in force,
        once there are any)."""
        if not self.stakes:
            return hashlib.sha384(self.book).digest()
        return hashlib.sha384(_U32.pack(len(self.book)) + self.book + self.stakes).digest()

    @property
    def fingerprint(self) -> bytes:
        """SHA-384 of the whole state (book and file contents)."""
        return hashlib.sha384(self.encode()).digest()

    def address_book(self) -> AddressBook:
        return parse_address_book(self.book, "address book in force")

    def node_stakes(self) -> NodeStakes | None:
        return decode_stakes_or_none(self.stakes)

    def tracker(self) -> AddressBookTracker:
        """A tracker that goes on from this state."""
        return AddressBookTracker(self.address_book(), contents=dict(self.contents), stakes=self.node_stakes())

    def encode(self) -> bytes:
        parts = [_U32.pack(len(self.book)), self.book, _U32.pack(len(self.contents))]
        for number, data in self.contents:
            parts += [_U32.pack(number), _U32.pack(len(data)), data]
        if self.stakes:
            parts += [_U32.pack(len(self.stakes)), self.stakes]
        return b"".join(parts)

    @classmethod
    def decode(cls, data: bytes) -> BookState:
        reader = _Reader(data)
        book = reader.take(reader.u32())
        contents = []
        for _ in range(reader.u32()):
            number = reader.u32()
            contents.append((number, reader.take(reader.u32())))
        stakes = reader.take(reader.u32()) if reader.offset < len(data) else b""
        if reader.offset != len(data):
            raise CorruptFileError(f"address-book state: {len(data) - reader.offset} byte(s) after the end")
        return cls(book, tuple(contents), stakes)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.offset = 0

    def u32(self) -> int:
        return int(_U32.unpack(self.take(_U32.size))[0])

    def take(self, size: int) -> bytes:
        end = self.offset + size
        if end > len(self.data):
            raise CorruptFileError(f"address-book state: truncated at byte {self.offset} (wanted {size} more)")
        chunk = self.data[self.offset : end]
        self.offset = end
        return chunk
