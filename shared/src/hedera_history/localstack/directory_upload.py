"""Readying the stack for ``stack upload DIR``: DIR's stream files found, its bootstrap book installed
where the stack has none, and what the history starts from recorded (the stack's bootstrap book in
force from DIR's first period, derived balances from DIR's genesis snapshot where they have not
begun: ``pipeline.history_start``, as ``load`` records it). The command shows what was done, then
uploads the files (:mod:`hedera_history.localstack.upload`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hedera_history.errors import StackError
from hedera_history.localstack.balances import directory_snapshot
from hedera_history.localstack.stack_progress import open_gateway_for
from hedera_history.localstack.stack_state import StackState
from hedera_history.localstack.upload import BookInstall, StreamFile, find_stream_files, install_address_book
from hedera_history.pipeline.history_start import HistoryStart, record_history_start


@dataclass(frozen=True, slots=True)
class ReadyDirectory:
    """A directory the stack is ready to take: its stream files, what was done with its book, and
    what was recorded for the history's start."""

    files: list[StreamFile]
    book: BookInstall
    start: HistoryStart


def ready_directory(state: StackState, directory: Path) -> ReadyDirectory:
    """Find ``directory``'s stream files (none: :class:`StackError`), install its book where the stack
    has none, and record the history's start: the stack's book from the first period, balances
    from the directory's genesis snapshot when they have not begun."""
    files = find_stream_files(directory)
    if not files:
        raise StackError(f"no record, signature or sidecar files under {directory}")
    book = install_address_book(state, directory)
    gateway = open_gateway_for(state)
    try:
        start = record_history_start(
            gateway,
            state.settings(),
            book_file=Path(state.address_book).read_bytes(),
            first_ns=files[0].consensus_ns,
            first_block=state.first_block,
            snapshot=directory_snapshot(directory),
        )
    finally:
        gateway.close()
    return ReadyDirectory(files, book, start)
