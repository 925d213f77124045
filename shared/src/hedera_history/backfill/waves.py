"""Address-book changes across partitions: which partitions must run again, and from which state.

All partitions run at once, each from an assumed address-book state (the bootstrap book, or a
checkpoint left by an earlier run). Only the first partition's assumption is known to be right.
After a wave the driver walks the partitions in order, carrying the state known to be in force:

- a partition that ran from that state is confirmed, and its end state is carried on;
- one that ran from another book must run again from the known state (its blocks are verified
  again: their progress rows name the outdated book). If none of its blocks changed the book
  files, its end state is the state it was given, so the walk goes on; if some did, the states
  after it are unknown until it has run again, and the walk stops there for this wave.

A partition that ran from the right book but different book-file contents (no book known yet for
a file the true state knows) stands when none of its blocks touched the book files and it knew
every file the true state knows: an append to a file it did not know would have been ignored.

Node stakes (``NodeStakeUpdate``, once a day on the network) are part of the state but do not stop
the walk: each update replaces the whole table, so a partition that updated them but not the book
files is guessed to end with its own last update whatever it started from, and the partitions
after it run again from that guess in the same wave (the next walk confirms or corrects it). A
range over many days thus needs about two waves more, not one per day.

A run from a state the walk has not confirmed (a guess) writes only the blocks every book node
signed, which stand whatever the nodes weigh, and defers the others: another weighting could refuse
them, and history is never taken back. A partition that deferred blocks runs again once the walk
reaches it without a guess (``PartitionRun.confirmed``), and then writes them.

Each wave confirms at least the first unconfirmed partition, so the runs end; without a book
or stake change in the range there is one wave.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from hedera_history.backfill.partition_messages import PartitionPlan, PartitionRun, PartitionSummary
from hedera_history.books.codec import BookState


def partitions_to_rerun(
    plans: Sequence[PartitionPlan], summaries: Mapping[int, PartitionSummary], bootstrap: BookState
) -> list[PartitionRun]:
    """The partitions whose assumed start turned out wrong, with the state known to be in force."""
    known = bootstrap
    certain = True
    reruns: list[PartitionRun] = []
    for plan in plans:
        summary = summaries[plan.index]
        if ran_from(summary, known):
            if summary.deferred:
                reruns.append(PartitionRun(plan, known, confirmed=certain))  # to write what it deferred
            known = summary.end if summary.book_files_touched else _restaked(known, summary)
            continue
        reruns.append(PartitionRun(plan, known, confirmed=certain))
        if summary.book_files_touched:
            break
        # Stakes are replaced whole, so the partition's own last update is a good guess of its end
        # from any start: the walk goes on with it instead of one wave per (daily) stake update.
        # The next walk confirms or corrects each guess.
        known, certain = _restaked(known, summary), certain and not summary.stakes_updated
    return reruns


def _restaked(known: BookState, summary: PartitionSummary) -> BookState:
    return replace(known, stakes=summary.end.stakes) if summary.stakes_updated else known


def ran_from(summary: PartitionSummary, state: BookState) -> bool:
    """Whether the partition's outcome is the one it would have had starting from ``state``."""
    start = summary.start
    if start.book_fingerprint != state.book_fingerprint:
        return False
    if start.fingerprint == state.fingerprint:
        return True
    known_files = {number for number, _ in start.contents}
    return not summary.book_files_touched and known_files >= {number for number, _ in state.contents}
