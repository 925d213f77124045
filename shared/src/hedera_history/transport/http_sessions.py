"""One ``requests`` session per thread, all closed together.

A bridge posts from a pool of threads; a session is not safe to share between threads, and one per
thread keeps its connections alive from one post to the next.

A kept-alive connection can be closed by the server (gunicorn closes one idle for 2 s) just as a
post goes out on it: the post fails with ``RemoteDisconnected`` or a reset before the server read
it. A block every 2 s makes connections exactly that old, and each such failure cost a delivery the
retry policy's 10 s backoff. :meth:`ThreadSessions.post` posts once more at once when the
connection failed (a ``requests.ConnectionError``, not a timeout): what the bridges post is
idempotent, so a post the server did read and answered lost is harmless to repeat.
"""

from __future__ import annotations

import threading
from typing import Any

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

    def post(self, url: str, **kwargs: Any) -> requests.Response:
        """POST with this thread's session; once more at once when the connection failed."""
        try:
            return self.get().post(url, **kwargs)
        except requests.ConnectTimeout:
            raise
        except requests.ConnectionError:
            return self.get().post(url, **kwargs)

    def close_all(self) -> None:
        with self._lock:
            sessions, self._sessions = self._sessions, []
        for session in sessions:
            session.close()
