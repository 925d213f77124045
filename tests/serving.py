"""Serving an HTTP server or a WSGI app on a free loopback port, on a thread, for one ``with``."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import HTTPServer
from typing import Any

from werkzeug.serving import make_server


@contextlib.contextmanager
def serving(server: HTTPServer) -> Iterator[str]:
    """``server`` answering on a daemon thread; its base URL. Shut down and closed afterwards."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=60)


@contextlib.contextmanager
def serving_app(app: Any) -> Iterator[str]:
    """The WSGI ``app`` served by werkzeug, one thread per request; its base URL."""
    with serving(make_server("127.0.0.1", 0, app, threaded=True)) as url:
        yield url
