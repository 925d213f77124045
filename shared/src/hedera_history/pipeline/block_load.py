"""Verify the block files of a directory and write the verified blocks (``hedera-history load``).

Each run of block files (one folder's chain, :func:`~hedera_history.sources.local_blocks.find_block_runs`)
is verified in order (:func:`~hedera_history.verify.blocks.verify_blocks`): wrapped record blocks
with the address book in force, native blocks with their TSS proofs against the ledger
(:class:`~hedera_history.verify.block_tss.LedgerTssCheck`: block 0's publication, pinned by the
configured ledger id). Every verified block becomes a
:class:`~hedera_history.block.VerifiedBlock` (:func:`~hedera_history.verify.block_verified.verified_block`)
and is written by the same :class:`~hedera_history.store.writer.BlockWriter` as record files, under
the number its header gives: record files and blocks share one numbering. A block that does not
verify is reported with its typed reason and never written; one whose footer does not link to the
block before it is a chain problem and not written either.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from fractions import Fraction

from hedera_history.block import VerifiedBlock
from hedera_history.books.address_book import AddressBook
from hedera_history.collector import task_collector
from hedera_history.config import Settings
from hedera_history.derived.applier import BalanceApplier
from hedera_history.derived.genesis_state import genesis_snapshot
from hedera_history.errors import BrokenChainError, HistoryError
from hedera_history.formats.block import BlockFile, parse_block
from hedera_history.pipeline.history_start import SnapshotLoad, record_history_start
from hedera_history.pipeline.load_conflicts import ConflictGuard
from hedera_history.pipeline.local_load import LoadProgress, LoadReport, StartFiles
from hedera_history.sources.ledger_trust import ledger_tss_check
from hedera_history.store.gateway import BigtableGateway
from hedera_history.store.original_blocks import original_block
from hedera_history.store.reader import HistoryReader
from hedera_history.store.writer import BlockWriter
from hedera_history.verify.block_verified import verified_block
from hedera_history.verify.blocks import BlockCheckOptions, BlockReport, BlockSource, verify_blocks


def stored_block_zero(gateway: BigtableGateway) -> BlockFile | None:
    """Block 0 as a load stored it before, when it is a native block: its ledger id publication is
    the trust root of later native blocks loaded without it."""
    content = original_block(HistoryReader(gateway), 0)
    if content is None:
        return None
    block = parse_block(content, "block 0 (stored)")
    return None if block.wrapped else block


def verified_blocks(
    runs: Iterable[Sequence[BlockSource]],
    book: AddressBook | None,
    report: LoadReport,
    *,
    ratio: Fraction,
    settings: Settings,
    progress: LoadProgress | None = None,
    block_zero: BlockFile | None = None,
) -> Iterator[VerifiedBlock]:
    """The verified blocks of every run, in order; each other block counted in ``report``.
    ``block_zero``: the ledger's block 0 as stored before, for runs that do not begin with it."""
    for run in runs:
        tss = ledger_tss_check(settings)
        tss.block_zero = block_zero
        options = BlockCheckOptions(ratio=ratio, tss=tss, max_decompressed=settings.max_decompressed_bytes)
        for checked in verify_blocks(run, book, options):
            block = _verified(checked, report, settings)
            if progress is not None:
                progress.period_done(report)
            if block is not None:
                yield block


def load_block_runs(
    runs: Sequence[Sequence[BlockSource]],
    book: AddressBook | None,
    *,
    ratio: Fraction,
    settings: Settings,
    gateway: BigtableGateway,
    report: LoadReport | None = None,
    progress: LoadProgress | None = None,
    start: StartFiles | None = None,
) -> LoadReport:
    """Verify every run of block files and write each verified block; counted into ``report``.

    With ``start`` (a folder of blocks alone), the history's start is recorded from it at the
    first block written, as for record files; without a snapshot in the folder, a wrapped genesis
    block's initial account state changes are the opening balances. Once a start is recorded (here
    or by the record files loaded before), derived balances take in the blocks written. The native
    blocks of a run that does not begin with block 0 are checked against the block 0 a load stored
    before, if any. A block whose number is stored with another block ends the load as
    :func:`~hedera_history.pipeline.local_load.load_periods` does (ConflictingBlockError)."""
    report = report if report is not None else LoadReport()
    sent: list[VerifiedBlock] = []
    guard = ConflictGuard(gateway, settings)
    block_zero = stored_block_zero(gateway) if any(run and run[0].number != 0 for run in runs) else None
    blocks = verified_blocks(
        runs, book, report, ratio=ratio, settings=settings, progress=progress, block_zero=block_zero
    )
    written_numbers = []
    with task_collector():
        for written in BlockWriter(gateway, settings).iter_write(_kept_first(guard.admitted(blocks), sent)):
            if written.complete:
                report.written += 1
                written_numbers.append(written.block_number)
            else:
                report.not_written.append(f"block {written.block_number}: {written.error}")
            if progress is not None:
                progress.block_written(report)
    if start is not None and written_numbers:
        opening = genesis_snapshot(sent[0]) if start.snapshot is None else None
        history_start = record_history_start(
            gateway,
            settings,
            book_file=start.book_file,
            first_ns=sent[0].record.consensus_start,
            first_block=min(written_numbers),
            snapshot=start.snapshot or opening,
        )
        if opening is not None and history_start.balances is SnapshotLoad.LOADED:
            history_start = replace(history_start, balances=SnapshotLoad.GENESIS_BLOCK)
        report.history_start = history_start
    if report.history_start is not None and written_numbers:
        report.balances_applied += len(BalanceApplier(gateway, settings).run().applied)
    guard.raise_refused()
    return report


def _kept_first(blocks: Iterator[VerifiedBlock], kept: list[VerifiedBlock]) -> Iterator[VerifiedBlock]:
    """``blocks`` as they come, the first one kept in ``kept``."""
    for block in blocks:
        if not kept:
            kept.append(block)
        yield block


def _verified(checked: BlockReport, report: LoadReport, settings: Settings) -> VerifiedBlock | None:
    try:
        block = verified_block(checked, accept_unsigned=settings.unsigned_blocks)
    except HistoryError as e:
        number = checked.block.number if checked.block is not None else None
        where = f"block {number} ({checked.name})" if number is not None else checked.name
        if isinstance(e, BrokenChainError):
            report.chain_problems.append(f"{where} not written: {e}")
        else:
            report.not_verified.append(f"{where}: {e.kind}: {e}")
        return None
    report.verified += 1
    return block
