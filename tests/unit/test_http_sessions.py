"""A bridge's post on a kept-alive connection the server closed: posted once more, not failed."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
from hedera_history.transport.http_sessions import ThreadSessions

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok"


def _read_request(connection: socket.socket) -> bool:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            return False
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")), 0
    )
    while len(body) < length:
        body += connection.recv(65536)
    return True


@pytest.fixture
def closing_server() -> Iterator[tuple[str, list[int]]]:
    """Answers each connection's first request and closes it on the second without an answer, as a
    server closing an idle kept-alive connection does when the request crosses its close."""
    listener = socket.create_server(("127.0.0.1", 0))
    answered: list[int] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                if _read_request(connection):
                    connection.sendall(OK)
                    answered.append(1)
                _read_request(connection)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/", answered
    listener.close()


def test_a_post_on_a_connection_the_server_closed_is_posted_again(closing_server: tuple[str, list[int]]) -> None:
    url, answered = closing_server
    sessions = ThreadSessions()
    try:
        for _ in range(3):
            assert sessions.post(url, data=b"message", timeout=10).status_code == 200
    finally:
        sessions.close_all()
    assert len(answered) == 3
