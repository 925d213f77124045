"""A network file's content as of a time, from the file index (``store.file_index``): its newest
FileUpdate at or before the time and the FileAppends after it, concatenated in consensus order (an
update replaces the content, an append adds to it). One ReadRows of the file's ``entity/`` range
from the time, newest first, and one read of the transactions the rows point at."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hedera_history.errors import CorruptFileError, RowDecodeError
from hedera_history.formats.transactions import transaction_body
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import entity_changes


@dataclass(frozen=True, slots=True)
class FileContent:
    content: bytes
    consensus_ns: int
    """When the content was last changed (the newest update or append used)."""


def file_content(
    reader: HistoryReader, file: str, at_ns: int | None, *, since_ns: int = 0
) -> tuple[FileContent | None, tuple[RowDecodeError, ...]]:
    """The content of ``file`` as of ``at_ns`` (None: now); None when history holds no update of it
    by then, or its last change is before ``since_ns``."""
    changes = entity_changes(reader, file, at_ns)
    pieces: list[bytes] = []
    for transaction in changes.transactions:  # newest first
        try:
            body: Any = transaction_body(transaction.transaction_bytes)
        except CorruptFileError:
            continue
        case = body.WhichOneof("data")
        if case == "fileAppend":
            pieces.append(bytes(body.fileAppend.contents))
        elif case == "fileUpdate" and body.fileUpdate.contents:  # empty: the content stays
            pieces.append(bytes(body.fileUpdate.contents))
            newest = changes.transactions[0].consensus_ns
            if newest < since_ns:
                return None, changes.errors
            return FileContent(b"".join(reversed(pieces)), newest), changes.errors
    return None, changes.errors
