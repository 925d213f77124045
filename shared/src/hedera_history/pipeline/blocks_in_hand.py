"""Blocks in hand: which uploaded blocks an ingest call is working on, so that consecutive blocks
are verified at the same time and still published in chain order.

A block carries its own proof; only its link to the stored chain orders it after the block before
it. So the call for an uploaded block N whose predecessor is not stored yet need not give up when
another call has N-1 in hand (is verifying or publishing it): it verifies N meanwhile, then waits
for N-1's link and publishes N as soon as it is stored. A call whose block N-1 nobody has in hand
leaves N pending, as before: the call that publishes N-1 takes it on from the bucket.

Each call marks its block in hand (the ``claim`` cell of ``block-in-hand/<hex16 number>`` in
``ingest_progress``: ``<owner> <expiry ms>``, ``IN_HAND_SECONDS``) before it reads the file, and
empties the mark when it is done with it. The call that publishes N-1 looks at N before it takes it
on from the bucket: N in hand by another call is left to that call (which goes on with the blocks
after N), unless the mark empties or lapses without N's link stored (that call left N pending, or
died): then it takes N on itself. Nothing is skipped: a mark only ever delays a block by its
lifetime, and a waiting call that finds no link leaves its block pending as before.
"""

from __future__ import annotations

import logging
import time
import uuid

from hedera_history.errors import StoreError
from hedera_history.logs import event
from hedera_history.pipeline.ingest_context import logger
from hedera_history.pipeline.period_state import claim_live
from hedera_history.pipeline.state import IngestState
from hedera_history.pipeline.state_cells import Link
from hedera_history.store.keys import hex16

IN_HAND = b"block-in-hand/"
IN_HAND_SECONDS = 30.0
"""How long a mark holds without being emptied (a call that dies holds its block that long at most)."""
LINK_POLL_SECONDS = 0.05


class BlocksInHand:
    """One call's marks on the blocks it works on, and its look at the other calls'."""

    def __init__(self, state: IngestState, *, seconds: float = IN_HAND_SECONDS) -> None:
        self._state = state
        self._seconds = seconds
        self._owner = uuid.uuid4().hex
        self._marks: dict[int, bytes] = {}

    def take(self, number: int) -> None:
        """Mark block ``number`` in hand by this call (over any other mark: two calls for one
        block publish the same bytes)."""
        expiry = time.time_ns() // 1_000_000 + int(self._seconds * 1000)
        value = f"{self._owner} {expiry}".encode()
        key = _key(number)
        if self._state.set_claim(key, self._state.claim_cell(key), value):
            self._marks[number] = value

    def drop(self, number: int) -> None:
        """Empty this call's mark on ``number`` (left alone if another call marked it since). A
        failure to is logged, not raised: the mark lapses by itself, and the call's outcome stands."""
        value = self._marks.pop(number, None)
        if value is None:
            return
        try:
            self._state.set_claim(_key(number), value, b"")
        except StoreError as e:
            event(logger, "block in hand not let go", logging.WARNING, block=number, error=str(e))

    def held_by_another(self, number: int) -> bool:
        """Whether another call has block ``number`` in hand now."""
        value = self._state.claim_cell(_key(number))
        return bool(value) and value != self._marks.get(number) and claim_live(value or b"")

    def wait_for_link(self, number: int) -> list[Link]:
        """Block ``number``'s stored links, waiting while another call has it in hand; empty
        when that call let it go (or its mark lapsed) with nothing stored."""
        while True:
            links = self._state.links([number]).get(number, [])
            if links or not self.held_by_another(number):
                return links or self._state.links([number]).get(number, [])
            time.sleep(LINK_POLL_SECONDS)


def _key(number: int) -> bytes:
    return IN_HAND + hex16(number)
