"""Following in this process (``hedera-history follow``): the deployed function follows one
scheduled window; here the follower runs for a given time or until Ctrl-C, which ends the window
cleanly (the hand-offs under way finish and the position is stored)."""

from __future__ import annotations

import threading

from hedera_history.config import Settings
from hedera_history.follow.follower import Follower, FollowReport, follow_source_url
from hedera_history.interrupts import stop_on_signals
from hedera_history.pipeline.runtime import build_ingest_context


def follow_in_process(settings: Settings, *, seconds: float | None, reset: bool) -> FollowReport:
    """Follow ``settings``' source for ``seconds``, or until SIGINT or SIGTERM when it is None;
    ``reset`` forgets the stored position first."""
    url = follow_source_url(settings)
    follower = Follower(build_ingest_context(settings, url), settings, source_url=url, reset=reset)
    if seconds is not None:
        return follower.run_window(seconds)
    stop = threading.Event()
    with stop_on_signals(stop.set):
        return follower.run(stop.is_set)
