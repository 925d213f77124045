"""Address book changes carried in the stream, and the one tracker that applies them.

The books live in files 0.0.101 and 0.0.102. A successful FileUpdate with contents replaces a
file's contents, a successful FileAppend appends to them; a large book arrives as one update
followed by appends, possibly spread over several blocks. After each block, the contents known
for a file are parsed; when they parse as a usable NodeAddressBook, that book takes effect for
the periods after the block.

Which file is authoritative for keys: 0.0.102, as in the mirror node. Its entries carry the
RSA keys that sign the stream; 0.0.101 carries keys too but exists for clients (endpoints and
certificate hashes). Both are tracked, only 0.0.102 changes the book in force; the latest parsed
0.0.101 book is kept in :attr:`AddressBookTracker.endpoint_book` for reference.

Caveat (shared with the mirror node): contents cut exactly between two entries also parse; such a
book is in force until the next append completes it.

The tracker also keeps the node stakes in force (``NodeStakeUpdate`` transactions, see
:mod:`hedera_history.books.stakes`): they take effect after their block the same way, and
:attr:`AddressBookTracker.consensus_book` is the book in force weighted by them.

Every keeper of books goes through :class:`AddressBookTracker`: the stream verifier
(``verify.stream``, also inside each backfill task) with a block's changes read from its items,
the stream's keeper (``pipeline.address_books``) with the same changes read back from its
``change/`` rows, and a proof's trust chain (``proofs.chain``) with the changes of each proven step,
strictly (an append must follow an update the chain showed). The keepers' states persist in one
encoding (:class:`hedera_history.books.codec.BookState`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.books.address_book import AddressBook
from hedera_history.books.parse import parse_or_none
from hedera_history.books.stakes import NodeStakes, stake_update, weigh
from hedera_history.errors import AddressBookError, CorruptFileError
from hedera_history.formats.parsed_files import RecordFile, RecordItem
from hedera_history.formats.transactions import transaction_body

NODE_DETAILS_FILE = 102
"""0.0.102: node keys and stakes; authoritative for verification."""
ADDRESS_BOOK_FILE = 101
"""0.0.101: the client address book."""
BOOK_FILES = (ADDRESS_BOOK_FILE, NODE_DETAILS_FILE)
_SUCCESS = hapi.ResponseCodeEnum.Value("SUCCESS")


class FileChange(NamedTuple):
    file_num: int
    contents: bytes
    is_append: bool


class BlockChanges(NamedTuple):
    """What one block changes in the state the tracker keeps."""

    files: list[FileChange]
    """Successful changes of the book files, in order (usually none)."""
    stakes: NodeStakes | None
    """The stakes of the block's last successful NodeStakeUpdate (usually none)."""


class AddressBookTracker:
    """The book in force, the known contents of the book files and the node stakes in force,
    advanced block by block."""

    def __init__(
        self,
        book: AddressBook,
        *,
        contents: Mapping[int, bytes] | None = None,
        stakes: NodeStakes | None = None,
        shard: int = 0,
        realm: int = 0,
    ) -> None:
        self.book = book
        self.endpoint_book: AddressBook | None = None
        self.contents: dict[int, bytes] = dict(contents or {})
        """File number -> its contents as far as the stream has shown them (state to persist)."""
        self.stakes = stakes
        """The node stakes in force (None until the stream shows a NodeStakeUpdate)."""
        self.shard = shard
        self.realm = realm

    @property
    def consensus_book(self) -> AddressBook:
        """The book in force with each node's consensus weight (:func:`~hedera_history.books.stakes.weigh`)."""
        return weigh(self.book, self.stakes)

    def apply_block(self, record_file: RecordFile) -> AddressBook | None:
        """Apply the block's book-file and stake transactions; return the new book in force, if it
        changed (new stakes show in :attr:`stakes`)."""
        return self.apply(self.block_changes(record_file), record_file.name)

    def apply(self, changes: BlockChanges, name: str) -> AddressBook | None:
        """Apply one block's changes (from :meth:`block_changes`, now or as recorded then); the new
        book in force, if it changed (new stakes show in :attr:`stakes`)."""
        self.apply_stakes(changes.stakes)
        return self.apply_changes(changes.files, name)

    def block_changes(self, record_file: RecordFile) -> BlockChanges:
        """The block's changes of the book files and its stake update, in one pass over its items."""
        files: list[FileChange] = []
        stakes: NodeStakes | None = None
        for item in record_file.items:
            body = transaction_body(item.transaction_bytes, record_file.name)
            change = book_file_change(body, self.shard, self.realm)
            if change is not None:
                if _succeeded(item, record_file.name):
                    files.append(change)
                continue
            update = stake_update(body)
            if update is not None and _succeeded(item, record_file.name):
                stakes = update
        return BlockChanges(files, stakes)

    def file_changes(self, record_file: RecordFile) -> list[FileChange]:
        """The block's successful changes of the book files, in order (usually none)."""
        return self.block_changes(record_file).files

    def apply_stakes(self, stakes: NodeStakes | None) -> NodeStakes | None:
        """Put ``stakes`` in force (None: no update); the new stakes, if they changed."""
        if stakes is None or stakes == self.stakes:
            return None
        self.stakes = stakes
        return stakes

    def apply_changes(self, changes: Iterable[FileChange], name: str, *, strict: bool = False) -> AddressBook | None:
        """Apply one block's file changes (from :meth:`file_changes`); the new book in force, if it changed.

        An append to contents never seen cannot give a whole book: it is skipped (the stream may
        start in the middle of an update and its appends), or with ``strict`` refused
        (:class:`~hedera_history.errors.AddressBookError`; a proof's chain must show the update).
        """
        touched: set[int] = set()
        for change in changes:
            if change.is_append:
                if change.file_num not in self.contents:
                    if strict:
                        raise AddressBookError(f"appends to 0.0.{change.file_num} before any update of it", file=name)
                    continue
                self.contents[change.file_num] += change.contents
            else:
                self.contents[change.file_num] = change.contents
            touched.add(change.file_num)
        changed: AddressBook | None = None
        for file_num in sorted(touched):
            book = parse_or_none(self.contents[file_num], f"0.0.{file_num} after {name}")
            if book is None:
                continue
            if file_num == NODE_DETAILS_FILE and book != self.book:
                self.book = changed = book
            elif file_num == ADDRESS_BOOK_FILE:
                self.endpoint_book = book
        return changed


def book_file_change(body: hapi.TransactionBody, shard: int = 0, realm: int = 0) -> FileChange | None:
    """The body's change of a book file of ``shard.realm``, or None: another kind, another file, or
    an update of expiry, keys or memo only. Whether the transaction succeeded is the caller's to check."""
    kind = body.WhichOneof("data")
    if kind not in ("fileUpdate", "fileAppend"):
        return None
    operation = body.fileUpdate if kind == "fileUpdate" else body.fileAppend
    file_id = operation.fileID
    if (file_id.shardNum, file_id.realmNum) != (shard, realm) or file_id.fileNum not in BOOK_FILES:
        return None
    if kind == "fileUpdate" and not operation.contents:
        return None
    return FileChange(file_id.fileNum, bytes(operation.contents), kind == "fileAppend")


def _succeeded(item: RecordItem, name: str) -> bool:
    try:
        record = hapi.TransactionRecord.FromString(item.record_bytes)
    except DecodeError as e:
        raise CorruptFileError(f"transaction record does not decode: {e}", file=name) from e
    return bool(record.receipt.status == _SUCCESS)
