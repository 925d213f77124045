"""Crash points for fault-injection tests: a function process that dies at one exact step, where a
kill from outside lands only by luck.

``HEDERA_HISTORY_FAULT_POINT=<point>:<block number>`` arms one point for one block: the process
that reaches it for that block logs ``fault point reached`` and kills itself with SIGKILL (no answer
to the call in flight, nothing cleaned up, as an instance dies; under functions-framework's
gunicorn a new worker takes its place). It is not a setting: no deployment sets it (``Settings``,
the catalogue and Terraform do not know it), and unset, no hook is installed at all.

Points:

- ``store-after-done``: between the block's ``done`` cell and its ``connected`` one, in every store
  call about to connect it (the one that completed it, one racing it, a redelivery, the walk from
  its parent), so no store call ever connects that block, moves the watermark past it or advances
  the address-book keeper for it: only the sweep's repair does (``StatelessTracker(before_connect=)``).
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Callable, Mapping

from hedera_history.cardinal.chain_blocks import BlockHeader
from hedera_history.errors import ConfigError
from hedera_history.logs import event

logger = logging.getLogger(__name__)

FAULT_POINT_VARIABLE = "HEDERA_HISTORY_FAULT_POINT"
STORE_AFTER_DONE = "store-after-done"
POINTS = (STORE_AFTER_DONE,)


def armed_block(point: str, environ: Mapping[str, str] | None = None) -> int | None:
    """The block ``point`` is armed for, or None when it is not armed."""
    value = (os.environ if environ is None else environ).get(FAULT_POINT_VARIABLE, "")
    if not value:
        return None
    name, _, block = value.partition(":")
    if name not in POINTS or not block.isdigit():
        raise ConfigError(f"{FAULT_POINT_VARIABLE}={value!r}: expected <point>:<block number>, a point of {POINTS}")
    return int(block) if name == point else None


def crash_after_done(environ: Mapping[str, str] | None = None) -> Callable[[BlockHeader], None] | None:
    """The tracker's ``before_connect`` hook when ``store-after-done`` is armed, else None."""
    block = armed_block(STORE_AFTER_DONE, environ)
    if block is None:
        return None

    def crash(header: BlockHeader) -> None:
        if header.number == block:
            die(STORE_AFTER_DONE, header.number)

    return crash


def die(point: str, block: int) -> None:
    """Log the point reached, then end this process at once."""
    event(logger, "fault point reached", logging.CRITICAL, point=point, block=block, pid=os.getpid())
    for handler in logging.getLogger().handlers:
        handler.flush()
    os.kill(os.getpid(), signal.SIGKILL)
