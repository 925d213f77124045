"""A tiny HTTP server on a free loopback port that records requests and answers as told."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


Answer = Callable[[Recorded], tuple[int, bytes, dict[str, str]]]


def status(code: int) -> Answer:
    return lambda _request: (code, b"", {})


class RecordingServer:
    """``with RecordingServer(answer) as server:`` serves on ``server.url`` in a thread."""

    def __init__(self, answer: Answer | None = None) -> None:
        self.answer = answer or status(200)
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = Recorded(
                    self.command,
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(length),
                )
                with server._changed:
                    server.requests.append(request)
                    server._changed.notify_all()
                code, body, headers = server.answer(request)
                self.send_response(code)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                self._handle()

            def do_POST(self) -> None:
                self._handle()

            def do_PUT(self) -> None:
                self._handle()

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def wait_for(self, condition: Callable[[list[Recorded]], bool], timeout: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: condition(self.requests), timeout=timeout)

    def __enter__(self) -> RecordingServer:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
