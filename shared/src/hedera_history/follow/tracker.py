"""When each discovered period is handed to ingest, and what the follower's position is.

Rules (times are the follower's monotonic clock, seconds):

- A period becomes known when one of its signature files is listed. It is handed to
  ``ingest_period`` ``settle`` seconds later (1 s: by then most nodes have uploaded, so the first
  attempt usually finds consensus and reads the signatures once).
- A period that ends pending (no consensus yet, a file missing, a transient error) is tried again
  with backoff (1, 2, 4 ... 30 s), and at once when another of its signature files is listed
  (the likeliest reason it would verify now).
- After ``give_up`` seconds (300) from first sight it is *given up*: reported (the follower logs
  the ERROR event ``period without consensus`` and counts it), left pending in the state table for
  the sweep, and the position moves past it. Never silently skipped.
- A signature file of a period already finished (published, or given up), or behind the position
  (a lagging node's file, or one listed again after a restart), is a *late file*: handed to
  ``ingest_object`` exactly as its upload would be (a late signature is verified and its cell added;
  a given-up period gets another chance; a published one costs one read). If that leaves a period
  the follower did not know pending, it is tracked from then on like any other.

The position (``follow.position``): the newest period such that every known period up to it is
finished. A period found behind it later (a folder that lagged by minutes holds the only files of
a period) moves the reported position back to just before that period until it finishes.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field

from hedera_history.follow.discovery import Sighting
from hedera_history.formats.names import format_timestamp
from hedera_history.pipeline.ingest import Outcome

FIRST_BACKOFF_SECONDS = 1.0
MAX_BACKOFF_SECONDS = 30.0
FINISHED_OUTCOMES = frozenset({Outcome.PUBLISHED, Outcome.ALREADY_PUBLISHED, Outcome.SIGNATURE_ADDED})


class Status(enum.StrEnum):
    SETTLING = "settling"
    RUNNING = "running"
    PENDING = "pending"
    PUBLISHED = "published"
    GIVEN_UP = "given up"


@dataclass
class TrackedPeriod:
    period_key: str
    consensus_ns: int
    first_seen: float
    due: float
    status: Status = Status.SETTLING
    attempts: int = 0
    reason: str = ""
    signatures: set[str] = field(default_factory=set)
    listed_while_running: list[str] = field(default_factory=list)
    """Signature files listed while an attempt ran: it may not have read them."""
    listed_since_first_attempt: list[str] = field(default_factory=list)
    """Signature files listed after the first attempt began: a run that published the period
    meanwhile (a held period released by the run publishing the block before it, an upload's run)
    may not have read them."""
    resumed: bool = False
    """Known to a follower before this one (listed again after a restart): when it turns out
    published, whoever published it may not have read every signature listed."""

    @property
    def finished(self) -> bool:
        return self.status in (Status.PUBLISHED, Status.GIVEN_UP)


@dataclass(frozen=True, slots=True)
class GivenUp:
    period_key: str
    consensus_ns: int
    attempts: int
    reason: str
    waited_seconds: float


def backoff_seconds(attempts: int) -> float:
    """Wait before attempt ``attempts + 1`` of a pending period: 1, 2, 4 ... at most 30 s."""
    return float(min(MAX_BACKOFF_SECONDS, FIRST_BACKOFF_SECONDS * 2 ** max(0, attempts - 1)))


def just_before(consensus_ns: int) -> tuple[str, int]:
    """A position that puts the period starting at ``consensus_ns`` after it (its name sorts after
    the position's ``<key>~``, as names of one length compare digit by digit)."""
    return format_timestamp(consensus_ns - 1), consensus_ns - 1


class Tracker:
    def __init__(self, floor_key: str, floor_ns: int, *, settle_seconds: float, give_up_seconds: float) -> None:
        self.floor_key = floor_key
        self.floor_ns = floor_ns
        self.settle_seconds = settle_seconds
        self.give_up_seconds = give_up_seconds
        self._periods: dict[str, TrackedPeriod] = {}
        self._given_up_keys: set[str] = set()
        self.handed_off = 0
        self.published = 0
        self.given_up: list[GivenUp] = []
        self.late_files = 0
        self.resumed_through_ns = -1
        """Periods up to this time were listed by a follower before this one (see ``resumed``)."""

    # ---- what the listing saw --------------------------------------------------------------------

    def saw(self, sighting: Sighting, now: float) -> bool:
        """Take a listed signature file; True when it is a late file (hand it to ``ingest_object``)."""
        period = self._periods.get(sighting.period_key)
        if period is None:
            if sighting.consensus_ns <= self.floor_ns or sighting.period_key in self._given_up_keys:
                self.late_files += 1
                return True
            period = TrackedPeriod(
                sighting.period_key,
                sighting.consensus_ns,
                now,
                now + self.settle_seconds,
                signatures={sighting.name},
                resumed=sighting.consensus_ns <= self.resumed_through_ns,
            )
            self._periods[sighting.period_key] = period
            return False
        if sighting.name in period.signatures:
            return False
        period.signatures.add(sighting.name)
        if period.finished:
            self.late_files += 1
            return True
        if period.status is not Status.SETTLING:
            period.listed_since_first_attempt.append(sighting.name)
        if period.status is Status.PENDING:
            period.due = now  # a new signature: the likeliest reason it verifies now
        elif period.status is Status.RUNNING:
            period.listed_while_running.append(sighting.name)
        return False

    def adopt(self, sighting: Sighting, now: float, reason: str) -> None:
        """A late file's period that ingest left pending and this follower does not track: track it
        (retries, give-up report), the position stepping back before it until it finishes."""
        if sighting.period_key in self._periods or sighting.period_key in self._given_up_keys:
            return
        self._periods[sighting.period_key] = TrackedPeriod(
            sighting.period_key,
            sighting.consensus_ns,
            now,
            now + backoff_seconds(1),
            Status.PENDING,
            attempts=1,
            reason=reason,
            signatures={sighting.name},
        )

    # ---- hand-off --------------------------------------------------------------------------------

    def due(self, now: float, limit: int | None = None) -> list[TrackedPeriod]:
        """Periods to hand to ingest now, oldest first (they are marked running)."""
        ready = self._ready(now)[:limit]
        for period in ready:
            period.status = Status.RUNNING
            self.handed_off += 1
        return ready

    def first_due(self, now: float) -> TrackedPeriod | None:
        """The oldest period :meth:`due` would hand over now, left as it is."""
        return next(iter(self._ready(now)), None)

    def _ready(self, now: float) -> list[TrackedPeriod]:
        return sorted(
            (p for p in self._periods.values() if p.status in (Status.SETTLING, Status.PENDING) and p.due <= now),
            key=lambda p: p.consensus_ns,
        )

    def finished(self, period_key: str, outcome: Outcome | None, reason: str, now: float) -> list[str]:
        """Record an attempt's result (``outcome`` None: it raised). For a period now published,
        returns the signature files whoever published it may not have read (late files): those
        listed while this attempt ran when it published; when another run did, those listed since
        the first attempt began (every one listed, for a period known before a restart)."""
        period = self._periods[period_key]
        late, period.listed_while_running = period.listed_while_running, []
        period.attempts += 1
        period.reason = reason
        if outcome in FINISHED_OUTCOMES:
            if outcome is not Outcome.PUBLISHED:
                late = sorted(period.signatures) if period.resumed else period.listed_since_first_attempt
            period.status = Status.PUBLISHED
            self.published += 1
            self.late_files += len(late)
            return list(late)
        if now - period.first_seen >= self.give_up_seconds:
            period.status = Status.GIVEN_UP
            self._given_up_keys.add(period_key)
            self.given_up.append(
                GivenUp(period_key, period.consensus_ns, period.attempts, reason, now - period.first_seen)
            )
            return []
        period.status = Status.PENDING
        period.due = now if late else now + backoff_seconds(period.attempts)
        return []

    # ---- position --------------------------------------------------------------------------------

    def advance(self) -> None:
        """Move the floor over the finished periods at the front; forget them."""
        for period in sorted(self._periods.values(), key=lambda p: p.consensus_ns):
            if not period.finished:
                return
            if period.consensus_ns > self.floor_ns:
                self.floor_key, self.floor_ns = period.period_key, period.consensus_ns
            del self._periods[period.period_key]

    def position(self) -> tuple[str, int]:
        """(period key, consensus ns) up to which every known period is finished."""
        unfinished = [p.consensus_ns for p in self._periods.values() if not p.finished]
        oldest = min(unfinished, default=None)
        if oldest is not None and oldest <= self.floor_ns:
            return just_before(oldest)
        return self.floor_key, self.floor_ns

    @property
    def unfinished(self) -> int:
        return sum(1 for p in self._periods.values() if not p.finished)

    @property
    def running(self) -> int:
        return sum(1 for p in self._periods.values() if p.status is Status.RUNNING)

    def periods(self) -> Iterable[TrackedPeriod]:
        return list(self._periods.values())


__all__ = [
    "FINISHED_OUTCOMES",
    "GivenUp",
    "Status",
    "TrackedPeriod",
    "Tracker",
    "backoff_seconds",
    "just_before",
]
