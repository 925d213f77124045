"""One ``requests`` session per thread, all closed together.

A bridge posts from a pool of threads; a session is not safe to share between threads, and one per
thread keeps its connections alive from one post to the next.
"""

from __future__ import annotations

import threading

import requests


class ThreadSessions:
    """Hands each thread its own session and remembers them all for :meth:`close_all`."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._sessions: list[requests.Session] = []
        self._lock = threading.Lock()

    def get(self) -> requests.Session:
        session: requests.Session | None = getattr(self._local, "session", None)
        if session is None:
            session = requests.Session()
            self._local.session = session
            with self._lock:
                self._sessions.append(session)
        return session

    def close_all(self) -> None:
        with self._lock:
            sessions, self._sessions = self._sessions, []
        for session in sessions:
            session.close()
