"""A period's progress through ingest as one state machine: its stages, the transitions allowed
between them (one table, :data:`PERIOD_TRANSITIONS`), and one method per transition, the only code
that writes the progress cells (their layout: ``pipeline.state_cells``; the diagram: docs/pipeline.md).

Stages, and the ``ingest_progress`` cells that make each:

- ``NEW``: no ``location`` in ``period/<t>`` (no row, or only a released claim cell);
- ``PENDING``: ``period/<t>`` holds ``location``, ``last_attempt`` and ``reason``; ``pending/<t>``
  lists it for the sweep;
- ``CLAIMED``: a live ``claim`` cell (``<owner> <expiry ms>``) in ``period/<t>``: one run verifies
  the period, the others wait for its result; once it starts, ``unconfirmed/<t>`` is the trace a
  run that dies leaves the reconciler. The run writes the next stage's cells under the claim and
  empties the claim cell when its turn ends (:meth:`_Claimable.release`);
- ``PUBLISHED``: ``published`` in ``period/<t>``, no ``pending/<t>``; ``unconfirmed/<t>`` until the
  reconciler sees the block complete;
- ``COMPLETE``: published, no ``unconfirmed/<t>``.

A run reads ``period/<t>`` only, so it sees a complete period as ``PUBLISHED``; the reconciler,
reading ``unconfirmed/<t>``, tells the two apart. Files, not periods, are quarantined: a file that
can never verify is set aside (``quarantine`` table) whatever its period's stage, and the period
goes on from the other nodes' files.

Errata of one consensus time go through the same claim (``errata-claim/<t>``) and a pending mark
of their own (``errata-pending/<t>``): :data:`ERRATA_TRANSITIONS`.

The claim is the one compare-and-set: every other write is idempotent, and a published cell wins
over any pending mark written before or after it. A transition the stage does not allow raises
:class:`~hedera_history.errors.IllegalTransitionError` before anything is written.
"""

from __future__ import annotations

import enum
import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Final

from hedera_history.errors import IllegalTransitionError
from hedera_history.formats.names import parse_timestamp
from hedera_history.pipeline.state import IngestState, now_micros
from hedera_history.pipeline.state_cells import (
    ERRATA_CLAIM,
    ERRATA_PENDING,
    PENDING,
    PERIOD,
    Q_LAST_ATTEMPT,
    Q_LOCATION,
    Q_PERIOD,
    Q_PUBLISHED,
    Q_REASON,
    RECHECK,
    UNCONFIRMED,
    PeriodState,
    Published,
    Unconfirmed,
    location_to_json,
)
from hedera_history.sources.period_files import StreamLocation
from hedera_history.store.keys import hex16

CLAIM_TTL_SECONDS = 30.0
"""How long one run may hold a claim (far above a period's verification time); a run that dies
holding it delays the period by at most this."""
CLAIM_POLL_SECONDS = 0.05
"""The first wait of a run polling for another run's claim; each next wait doubles, up to
:data:`CLAIM_POLL_MAX_SECONDS` (a period's waiting runs read its row a few times a second, not
twenty, while one verifies it)."""
CLAIM_POLL_MAX_SECONDS = 0.2
SETTLE_SECONDS = CLAIM_POLL_MAX_SECONDS
"""How long after an instance deleted a published period's pending mark its runs that find the
period published delete it no more (the longest pause of a waiting run)."""
SHARED_LOOK_SECONDS = CLAIM_POLL_SECONDS / 2
"""How old a read of a period's row, by another thread of the instance, a waiting look may take
instead of reading (less than the first pause, so that a run's next look is never its own last)."""
REASON_LIMIT = 2000


class Stage(enum.StrEnum):
    NEW = "new"
    PENDING = "pending"
    CLAIMED = "claimed"
    PUBLISHED = "published"
    COMPLETE = "complete"


class Transition(enum.StrEnum):
    CLAIM = "claim"
    """Take the claim (compare-and-set): this run verifies, the others wait for its result."""
    DEFER = "defer"
    """Pending with a reason: a later upload or the sweep tries again."""
    VERIFY = "verify"
    """Under the claim, before anything can be published: leave the reconciler a trace."""
    RELEASE = "release"
    """Let the claim go with nothing decided (the run failed): back to the stage before it."""
    PUBLISH = "publish"
    """The block's batch is out: published, off the pending index."""
    SETTLE = "settle"
    """Found published (by another run): a pending mark written meanwhile goes."""
    AWAIT_RECHECK = "await recheck"
    """A late signature failed on a book not certain yet: the sweep checks the period's again."""
    RECHECKED = "rechecked"
    """The late signatures were checked again (or there is nothing published to check)."""
    REPUBLISH = "republish"
    """The reconciler publishes an incomplete block's batch again (one more in the trace's count)."""
    COMPLETE = "complete"
    """The reconciler saw the block complete (or its batch in conflict, alerted): the trace goes."""
    UNTRACK = "untrack"
    """A trace of a period that is pending: the pending retries own it, the trace goes."""
    FORGET = "forget"
    """A pending index entry without its period row: the entry goes."""


Edges = Mapping[Transition, frozenset[tuple[Stage, Stage]]]


def _edges(*pairs: tuple[Transition, Stage, Stage]) -> Edges:
    table: dict[Transition, set[tuple[Stage, Stage]]] = {}
    for transition, source, target in pairs:
        table.setdefault(transition, set()).add((source, target))
    return {transition: frozenset(edges) for transition, edges in table.items()}


_T, _S = Transition, Stage
_CLAIMING = (
    (_T.CLAIM, _S.NEW, _S.CLAIMED),
    (_T.CLAIM, _S.PENDING, _S.CLAIMED),
    (_T.DEFER, _S.NEW, _S.PENDING),
    (_T.DEFER, _S.PENDING, _S.PENDING),
    (_T.DEFER, _S.CLAIMED, _S.PENDING),
    (_T.RELEASE, _S.CLAIMED, _S.NEW),
    (_T.RELEASE, _S.CLAIMED, _S.PENDING),
)
"""The steps a period and an errata time share: the claim, a pending mark, a run that failed."""

PERIOD_TRANSITIONS: Final[Edges] = _edges(
    *_CLAIMING,
    (_T.VERIFY, _S.CLAIMED, _S.CLAIMED),
    (_T.PUBLISH, _S.CLAIMED, _S.PUBLISHED),
    (_T.SETTLE, _S.CLAIMED, _S.PUBLISHED),
    (_T.SETTLE, _S.PUBLISHED, _S.PUBLISHED),
    (_T.AWAIT_RECHECK, _S.PUBLISHED, _S.PUBLISHED),
    (_T.RECHECKED, _S.NEW, _S.NEW),
    (_T.RECHECKED, _S.PENDING, _S.PENDING),
    (_T.RECHECKED, _S.PUBLISHED, _S.PUBLISHED),
    (_T.REPUBLISH, _S.PUBLISHED, _S.PUBLISHED),
    (_T.COMPLETE, _S.PUBLISHED, _S.COMPLETE),
    (_T.UNTRACK, _S.PENDING, _S.PENDING),
    (_T.FORGET, _S.PENDING, _S.NEW),
)
"""Every step a period's progress may take: transition -> the (from, to) stages it allows."""

ERRATA_TRANSITIONS: Final[Edges] = _edges(*_CLAIMING, (_T.COMPLETE, _S.CLAIMED, _S.COMPLETE))
"""An errata time: judged under its claim, pending until its authorities hold, complete once
applied (or refused, or applied before)."""


@dataclass
class _Claimable:
    """One run's view of one progress row and the claim on it."""

    state: IngestState
    consensus_ns: int
    stage: Stage = Stage.NEW
    _owner: str = field(default="", repr=False)
    _before_claim: Stage = field(default=Stage.NEW, repr=False)

    transitions: ClassVar[Edges] = PERIOD_TRANSITIONS
    claim_row: ClassVar[bytes] = PERIOD
    what: ClassVar[str] = "period"

    def _check(self, transition: Transition, target: Stage) -> None:
        if (self.stage, target) not in self.transitions.get(transition, frozenset()):
            raise IllegalTransitionError(
                f"{self.what} {self.consensus_ns}: {transition.value} is not allowed from {self.stage.value}"
                + (f" to {target.value}" if target is not self.stage else "")
            )

    def claim(self, ttl_seconds: float = CLAIM_TTL_SECONDS) -> bool:
        """CLAIM: take the claim if nobody holds a live one (False: another run does)."""
        self._check(Transition.CLAIM, Stage.CLAIMED)
        return self._take_claim(self.state.claim_cell(self.claim_row + hex16(self.consensus_ns)), ttl_seconds)

    def _take_claim(self, current: bytes | None, ttl_seconds: float) -> bool:
        """Compare and set the claim cell from ``current``, its value as read (None: never claimed)."""
        owner = uuid.uuid4().hex
        key = self.claim_row + hex16(self.consensus_ns)
        if current and claim_live(current):
            return False
        expiry = time.time_ns() // 1_000_000 + int(ttl_seconds * 1000)
        if not self.state.set_claim(key, current, f"{owner} {expiry}".encode()):
            return False
        self._owner, self._before_claim, self.stage = owner, self.stage, Stage.CLAIMED
        return True

    def release(self) -> None:
        """End this run's claim, once its turn is over (its own file's part done too): when it
        decided nothing (it failed), RELEASE back to the stage before the claim; then the claim
        cell is emptied. A no-op for a run that holds no claim."""
        if not self._owner:
            return
        if self.stage is Stage.CLAIMED:
            self._check(Transition.RELEASE, self._before_claim)
            self.stage = self._before_claim
        self._let_go()
        self._owner = ""

    def _let_go(self) -> None:
        """Empty the claim cell if it is still this run's (an expired claim may be another's now)."""
        key = self.claim_row + hex16(self.consensus_ns)
        current = self.state.claim_cell(key)
        if current and current.split(b" ", 1)[0] == self._owner.encode():
            self.state.set_claim(key, current, b"")


@dataclass
class PeriodProgress(_Claimable):
    """A period's progress as one run knows it, and the only way that run changes it."""

    period_key: str = ""
    location: StreamLocation | None = None
    published: Published | None = None
    """The published cell, once read (``PUBLISHED`` or, under a claim, found published meanwhile)."""
    reason: str = ""
    _claim_read: bytes | None = field(default=None, repr=False)
    """The claim cell as :meth:`refresh` read it (None: never claimed)."""

    @classmethod
    def of(cls, state: IngestState, period_key: str, location: StreamLocation | None, stage: Stage) -> PeriodProgress:
        """A period whose stage the caller knows (from the pending index or a trace)."""
        return cls(state, parse_timestamp(period_key), stage, period_key=period_key, location=location)

    def refresh(self, *, shared: bool = False) -> PeriodProgress:
        """Read the period's row. Under this run's claim the stage stays ``CLAIMED`` (``published``
        says whether another run published the period before the claim was taken). ``shared``: a
        read another thread of this instance began less than :data:`SHARED_LOOK_SECONDS` ago will
        do (a look while waiting; never under the claim)."""
        max_age = SHARED_LOOK_SECONDS if shared and self.stage is not Stage.CLAIMED else 0.0
        known, self._claim_read = self.state.period_and_claim(self.consensus_ns, max_age=max_age)
        self.published = known.published if known is not None else None
        self.reason = known.reason if known is not None else ""
        if self.stage is not Stage.CLAIMED:
            self.stage = stage_of(known)
        return self

    def claim_as_refreshed(self, ttl_seconds: float = CLAIM_TTL_SECONDS) -> bool:
        """CLAIM, judged on the claim cell the last :meth:`refresh` read (the row holds it) instead
        of reading it again; the compare-and-set fails if it changed since."""
        self._check(Transition.CLAIM, Stage.CLAIMED)
        return self._take_claim(self._claim_read, ttl_seconds)

    def defer(self, reason: str) -> None:
        """DEFER: pending for ``reason``."""
        self._check(Transition.DEFER, Stage.PENDING)
        location = self._location()
        stamp = now_micros()
        cells = [
            (Q_LOCATION, location_to_json(location)),
            (Q_LAST_ATTEMPT, str(stamp).encode()),
            (Q_REASON, reason.encode()[:REASON_LIMIT]),
        ]
        self.state.put(PERIOD + hex16(self.consensus_ns), cells, stamp)
        self.state.put(PENDING + hex16(self.consensus_ns), [(Q_PERIOD, self.period_key.encode())], stamp)
        self.reason = reason
        self.stage = Stage.PENDING

    def start_verifying(self) -> None:
        """VERIFY: the reconciler's trace, before anything can be published, so that a run that
        dies from here on leaves one."""
        self._check(Transition.VERIFY, Stage.CLAIMED)
        self._write_trace(republished=0)

    def publish(self, published: Published) -> None:
        """PUBLISH: the block's batch is out; off the pending index."""
        self._check(Transition.PUBLISH, Stage.PUBLISHED)
        cells = [(Q_LOCATION, location_to_json(self._location())), (Q_PUBLISHED, published.to_json())]
        self.state.put(PERIOD + hex16(self.consensus_ns), cells, now_micros())
        self.state.delete(PENDING + hex16(self.consensus_ns))
        self.published = published
        self.stage = Stage.PUBLISHED

    def settle(self) -> Published:
        """SETTLE: found published; a pending mark written meanwhile goes. The runs a publication
        wakes settle together: one delete of the mark an instance within :data:`SETTLE_SECONDS`
        (a mark written after it by another instance, a run that lost its claim, goes with the
        next run's settle or the sweep's)."""
        self._check(Transition.SETTLE, Stage.PUBLISHED)
        if self.published is None:
            raise IllegalTransitionError(f"period {self.period_key}: settle before its published cell was read")
        self.state.delete_unless_deleted(PENDING + hex16(self.consensus_ns), SETTLE_SECONDS)
        self.stage = Stage.PUBLISHED
        return self.published

    def await_recheck(self, block_number: int) -> None:
        """AWAIT_RECHECK: the sweep verifies the period's signatures again once the book is certain."""
        self._check(Transition.AWAIT_RECHECK, Stage.PUBLISHED)
        payload = json.dumps({"period": self.period_key, "block": block_number}).encode()
        self.state.put(RECHECK + hex16(self.consensus_ns), [(Q_PERIOD, payload)], now_micros())

    def rechecked(self) -> None:
        """RECHECKED: the recheck mark goes."""
        self._check(Transition.RECHECKED, self.stage)
        self.state.delete(RECHECK + hex16(self.consensus_ns))

    def republish(self, republished: int) -> None:
        """REPUBLISH: counted in the trace before trying, so a republish that fails waits as long
        as one that did not help."""
        self._check(Transition.REPUBLISH, Stage.PUBLISHED)
        self._write_trace(republished=republished)

    def complete(self) -> None:
        """COMPLETE: the reconciler watches the period no more."""
        self._check(Transition.COMPLETE, Stage.COMPLETE)
        self.state.delete(UNCONFIRMED + hex16(self.consensus_ns))
        self.stage = Stage.COMPLETE

    def untrack(self) -> None:
        """UNTRACK: a pending period's trace goes (the pending retries own the period)."""
        self._check(Transition.UNTRACK, Stage.PENDING)
        self.state.delete(UNCONFIRMED + hex16(self.consensus_ns))

    def forget(self) -> None:
        """FORGET: a pending index entry whose period row holds no location goes."""
        self._check(Transition.FORGET, Stage.NEW)
        self.state.delete(PENDING + hex16(self.consensus_ns))
        self.stage = Stage.NEW

    def _write_trace(self, *, republished: int) -> None:
        payload = Unconfirmed(self.consensus_ns, self.period_key, self._location(), republished, 0).to_json()
        self.state.put(UNCONFIRMED + hex16(self.consensus_ns), [(Q_PERIOD, payload)], now_micros())

    def _location(self) -> StreamLocation:
        if self.location is None:
            raise IllegalTransitionError(f"period {self.period_key}: no location to record")
        return self.location


@dataclass
class ErrataProgress(_Claimable):
    """The progress of the errata of one consensus time (``errata_path``: its errata file)."""

    errata_path: str = ""

    transitions: ClassVar[Edges] = ERRATA_TRANSITIONS
    claim_row: ClassVar[bytes] = ERRATA_CLAIM
    what: ClassVar[str] = "errata time"

    def defer(self, reason: str) -> None:
        """DEFER: pending (more node stake, the errata file or its block may come)."""
        self._check(Transition.DEFER, Stage.PENDING)
        cells = [(Q_LOCATION, self.errata_path.encode()), (Q_REASON, reason.encode()[:REASON_LIMIT])]
        self.state.put(ERRATA_PENDING + hex16(self.consensus_ns), cells, now_micros())
        self.stage = Stage.PENDING

    def complete(self) -> None:
        """COMPLETE: judged for good (applied, refused or applied before): off the pending list."""
        self._check(Transition.COMPLETE, Stage.COMPLETE)
        self.state.delete(ERRATA_PENDING + hex16(self.consensus_ns))
        self.stage = Stage.COMPLETE


def stage_of(known: PeriodState | None) -> Stage:
    """A period's stage as its ``period/<t>`` row shows it (a complete one shows as published)."""
    if known is not None and known.published is not None:
        return Stage.PUBLISHED
    if known is not None and known.location is not None:
        return Stage.PENDING
    return Stage.NEW


def wait_for_claim(progress: _Claimable, give_up: float) -> bool:
    """Poll for the claim until the monotonic time ``give_up`` (False: another run kept it)."""
    delay = CLAIM_POLL_SECONDS
    while not progress.claim():
        if time.monotonic() > give_up:
            return False
        delay = poll_pause(delay)
    return True


def poll_pause(delay: float) -> float:
    """Sleep ``delay`` seconds between two looks at another run's claim; the next pause."""
    time.sleep(delay)
    return min(delay * 2, CLAIM_POLL_MAX_SECONDS)


def claim_live(value: bytes) -> bool:
    """Whether a ``<owner> <expiry ms>`` claim value has not expired."""
    try:
        return int(value.rsplit(b" ", 1)[1]) > time.time_ns() // 1_000_000
    except (IndexError, ValueError):
        return False
