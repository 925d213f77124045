"""The stored encodings of books and of the state that advances them.

- A book: canonical ``NodeAddressBook`` bytes (:func:`~hedera_history.books.parse.address_book_to_bytes`),
  in the stream keeper's ``book/`` rows and inside every state below.
- Node stakes: :meth:`~hedera_history.books.stakes.NodeStakes.encode` (``stakes/`` rows).
- A tracker's state (:class:`BookState`): the book in force, the known contents of the book files
  and the stakes in force, ``u32 len + NodeAddressBook``, ``u32 n``, then per file ``u32 number,
  u32 len + contents``, files in number order, then, only once the stream has shown a
  ``NodeStakeUpdate``, ``u32 len + stakes``. Equal states give equal bytes, and a state without
  stakes encodes (and fingerprints) as it did before stakes were tracked, so earlier backfill
  progress rows still match. The backfill's driver, tasks and progress rows carry it, and so does
  the stream keeper's ``keeper`` cell (:func:`encode_keeper_state`).
- The keeper cell: JSON ``{"applied": block, "state": hex of BookState}``. Keepers before this
  encoding wrote the state's parts as JSON fields (``book``, ``contents``, ``stakes`` in hex);
  :func:`decode_keeper_state` still reads that form, nothing writes it.
- A block's recorded changes (``change/`` rows, :func:`encode_recorded_changes`): JSON
  ``{"effective_ns", "name", "changes": [[file, hex contents, is_append], ...], "stakes": hex or
  null}``; rows from before stakes were tracked lack ``stakes``.

Proofs carry the book in a form of their own, half the size (:mod:`hedera_history.books.packed`).
"""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from hedera_history.books.address_book import AddressBook
from hedera_history.books.parse import address_book_to_bytes, parse_address_book
from hedera_history.books.stakes import NodeStakes, decode_stakes_or_none
from hedera_history.books.updates import AddressBookTracker, BlockChanges, FileChange
from hedera_history.errors import AddressBookError, CorruptFileError, RowDecodeError

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


def encode_keeper_state(applied: int, state: BookState) -> bytes:
    """The stream keeper's cell: the last block applied and the state after it."""
    return json.dumps({"applied": applied, "state": state.encode().hex()}, sort_keys=True).encode()


def decode_keeper_state(raw: bytes) -> tuple[int, BookState]:
    """The keeper cell in either form (see the module docstring); RowDecodeError when unreadable."""
    try:
        data = json.loads(raw)
        applied = int(data["applied"])
        if "state" in data:
            return applied, BookState.decode(bytes.fromhex(data["state"]))
        book = bytes.fromhex(data["book"])  # written canonical (address_book_to_bytes)
        contents = {int(k): bytes.fromhex(v) for k, v in data["contents"].items()}
        stakes = bytes.fromhex(data.get("stakes") or "")
        return applied, BookState(book, tuple(sorted(contents.items())), stakes)
    except (ValueError, KeyError, TypeError, CorruptFileError) as e:
        raise RowDecodeError(f"address book keeper state unreadable: {e}") from e


class RecordedChanges(NamedTuple):
    """One block's changes as its ``change/`` row holds them."""

    effective_ns: int
    """When what they put in force takes effect: the block's consensus end + 1."""
    name: str
    """The block's record file name (for messages)."""
    changes: BlockChanges


def encode_recorded_changes(effective_ns: int, name: str, changes: BlockChanges) -> bytes:
    return json.dumps(
        {
            "effective_ns": effective_ns,
            "name": name,
            "changes": [[c.file_num, c.contents.hex(), c.is_append] for c in changes.files],
            "stakes": changes.stakes.encode().hex() if changes.stakes is not None else None,
        }
    ).encode()


def decode_recorded_changes(raw: bytes) -> RecordedChanges:
    """A ``change/`` row's value; RowDecodeError when unreadable."""
    try:
        data = json.loads(raw)
        files = [FileChange(int(f), bytes.fromhex(c), bool(a)) for f, c, a in data["changes"]]
        stakes = decode_stakes_or_none(bytes.fromhex(data.get("stakes") or ""))
        return RecordedChanges(int(data["effective_ns"]), str(data["name"]), BlockChanges(files, stakes))
    except (ValueError, KeyError, TypeError, CorruptFileError, AddressBookError) as e:
        raise RowDecodeError(f"address book change row unreadable: {e}") from e


def decode_stakes_row(raw: bytes) -> NodeStakes:
    """A ``stakes/`` row's value; RowDecodeError when unreadable."""
    try:
        return NodeStakes.decode(raw)
    except (CorruptFileError, AddressBookError) as e:
        raise RowDecodeError(f"node stakes row unreadable: {e}") from e
