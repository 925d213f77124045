"""Chain links between blocks known only by their edges: inside a task between a stretch of blocks
already stored and a stretch verified now, on the driver between neighbouring partitions, and
between the range and the history already stored on either side of it.

The link rule is the verifier's own (:func:`hedera_history.verify.chain.check_link`), applied to a
hash-only stand-in of the later block; on top of it the block numbers must follow each other (or
repeat, for the second file of a duplicate block).
Failed periods between two blocks make their link unverifiable, as in ``verify_stream``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from hedera_history.backfill.partition_messages import BlockEdge, PartitionSummary, PeriodFailure
from hedera_history.errors import BrokenChainError
from hedera_history.formats.parsed_files import RecordFile
from hedera_history.store.reader import HistoryReader
from hedera_history.verify.chain import ChainLink, check_link

BROKEN_CHAIN = BrokenChainError("").kind


class BoundaryStatus(Enum):
    OK = "ok"
    UNVERIFIABLE = "unverifiable"
    BROKEN = "broken"


@dataclass(frozen=True, slots=True)
class BoundaryCheck:
    """The link from the last block of one partition to the first block of a later one."""

    previous_partition: int
    partition: int
    previous: str
    """The earlier block's file name."""
    current: str
    status: BoundaryStatus
    reason: str = ""
    block_number: int | None = None
    """The later block's number: the block whose link this is."""

    @property
    def ok(self) -> bool:
        return self.status is BoundaryStatus.OK


def link_edges(previous: BlockEdge, current: BlockEdge) -> ChainLink:
    """The link from ``previous`` to ``current``; BrokenChainError when it is broken."""
    link = check_link(
        previous.hash,
        _hash_only_record(current),
        previous_version=previous.version,
        previous_name=previous.name,
    )
    # A number may stand on two files (mainnet's 44029066, ``store.duplicates``): the second names
    # the first, which ``check_link`` has just verified.
    if current.number not in (previous.number, previous.number + 1):
        raise BrokenChainError(
            f"block numbers jump from {previous.number} to {current.number}",
            file=f"{previous.name} -> {current.name}",
        )
    return link


def broken_links(problems: Sequence[PeriodFailure], boundaries: Sequence[BoundaryCheck]) -> dict[int, str]:
    """Block number -> why its link is broken: breaks found inside partitions and between them."""
    found = {p.block_number: p.reason for p in problems if p.kind == BROKEN_CHAIN and p.block_number is not None}
    for check in boundaries:
        if check.status is BoundaryStatus.BROKEN and check.block_number is not None:
            found[check.block_number] = check.reason
    return found


def check_boundaries(summaries: Sequence[PartitionSummary]) -> list[BoundaryCheck]:
    """One check per pair of neighbouring partitions that both hold a block (in partition order);
    a partition where every period failed is passed over, and the link across it is unverifiable."""
    checks: list[BoundaryCheck] = []
    previous: PartitionSummary | None = None
    failed_between = 0
    for summary in sorted(summaries, key=lambda s: s.index):
        if summary.first is None or summary.last is None:
            failed_between += summary.leading_failures
            continue
        if previous is not None and previous.last is not None:
            checks.append(_check(previous, summary, failed_between + summary.leading_failures))
        previous, failed_between = summary, summary.trailing_failures
    return checks


def check_stored_neighbours(summaries: Sequence[PartitionSummary], reader: HistoryReader) -> list[BoundaryCheck]:
    """Links from the complete block stored just before the range to its first block, and from its
    last block to the complete block stored just after it, where those exist (partition ``-1``
    names the stored history)."""
    with_blocks = [s for s in sorted(summaries, key=lambda s: s.index) if s.first is not None and s.last is not None]
    if not with_blocks:
        return []
    first, last = with_blocks[0], with_blocks[-1]
    assert first.first is not None and last.last is not None
    checks: list[BoundaryCheck] = []
    before = reader.get_block(first.first.number - 1) if first.first.number > 0 else None
    if before is not None:
        checks.append(_linked(-1, first.index, BlockEdge.of_stored(before), first.first, first.leading_failures))
    after = reader.get_block(last.last.number + 1)
    if after is not None:
        checks.append(_linked(last.index, -1, last.last, BlockEdge.of_stored(after), last.trailing_failures))
    return checks


def _check(previous: PartitionSummary, current: PartitionSummary, failed_between: int) -> BoundaryCheck:
    assert previous.last is not None and current.first is not None
    return _linked(previous.index, current.index, previous.last, current.first, failed_between)


def _linked(
    previous_partition: int, partition: int, before: BlockEdge, after: BlockEdge, failed_between: int
) -> BoundaryCheck:
    if failed_between:
        return BoundaryCheck(
            previous_partition,
            partition,
            before.name,
            after.name,
            BoundaryStatus.UNVERIFIABLE,
            f"{failed_between} period(s) between them did not verify; the link cannot be checked",
            after.number,
        )
    try:
        link = link_edges(before, after)
    except BrokenChainError as e:
        return BoundaryCheck(
            previous_partition, partition, before.name, after.name, BoundaryStatus.BROKEN, str(e), after.number
        )
    status = BoundaryStatus.OK if link.ok else BoundaryStatus.UNVERIFIABLE
    return BoundaryCheck(previous_partition, partition, before.name, after.name, status, link.reason, after.number)


def _hash_only_record(edge: BlockEdge) -> RecordFile:
    """A record file that carries only what a link looks at: version, name and its previous hash."""
    running = edge.version >= 5
    return RecordFile(
        name=edge.name,
        version=edge.version,
        hapi_version=(0, 0, 0),
        items=(),
        file_hash=b"",
        metadata_hash=None,
        start_running_hash=edge.previous_hash if running else None,
        end_running_hash=None,
        computed_end_running_hash=None,
        previous_file_hash=None if running else edge.previous_hash,
        block_number=edge.number,
    )
