"""Readying the stack for ``stack upload DIR``: DIR's stream files found, its bootstrap book installed
where the stack has none, derived balances seeded from its genesis snapshot where they have not begun.
The command shows what was done, then uploads the files (:mod:`hedera_history.localstack.upload`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hedera_history.errors import StackError
from hedera_history.localstack.balances import SnapshotLoad, load_directory_snapshot
from hedera_history.localstack.stack_state import StackState
from hedera_history.localstack.upload import BookInstall, StreamFile, find_stream_files, install_address_book


@dataclass(frozen=True, slots=True)
class ReadyDirectory:
    """A directory the stack is ready to take: its stream files, and what was done with its book and balances."""

    files: list[StreamFile]
    book: BookInstall
    balances: SnapshotLoad


def ready_directory(state: StackState, directory: Path) -> ReadyDirectory:
    """Find ``directory``'s stream files (none: :class:`StackError`), install its book where the stack
    has none, and seed derived balances from its genesis snapshot when they have not begun."""
    files = find_stream_files(directory)
    if not files:
        raise StackError(f"no record, signature or sidecar files under {directory}")
    book = install_address_book(state, directory)
    return ReadyDirectory(files, book, load_directory_snapshot(state, directory))
