"""``proof get --url``: what it asks the query API for, and how it refuses what it should not
accept (usage, an answer that is not a canonical bundle, the API's errors)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner
from hedera_history.cli.proof_cmd import proof
from hedera_history.errors import ConfigError
from hedera_history.proofs.from_api import ApiProver

from tests.serving import serving

Answer = tuple[int, str, bytes]


@contextlib.contextmanager
def _api(answer: Answer, seen: list[tuple[str, dict[str, str]]]) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append((self.path, dict(self.headers)))
            status, media_type, body = answer
            self.send_response(status)
            self.send_header("Content-Type", media_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    with serving(ThreadingHTTPServer(("127.0.0.1", 0), Handler)) as url:
        yield url


def _error(status: int, message: str) -> Answer:
    return status, "application/json", json.dumps({"_status": {"messages": [{"message": message}]}}).encode()


def test_asks_the_stateproof_route_for_protobuf_with_the_token() -> None:
    seen: list[tuple[str, dict[str, str]]] = []
    with _api((200, "application/x-protobuf", b"\x08\x01"), seen) as url:
        result = CliRunner().invoke(
            proof,
            ["get", "--url", url, "--transaction", "0.0.2@1657701910.5", "--nonce", "1", "--scheduled", "--sidecars"],
            env={"HEDERA_HISTORY_QUERY_TOKEN": "t0ken"},
        )
    path, headers = seen[0]
    assert path == "/api/v1/transactions/0.0.2-1657701910-000000005/stateproof?nonce=1&scheduled=true&sidecars=true"
    assert headers["Accept"] == "application/x-protobuf" and headers["Authorization"] == "Bearer t0ken"
    # an empty bundle of format version 1 is canonical: get writes it (verify would refuse it)
    assert result.exit_code == 0 and '"format_version": 1' in result.output, result.output


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (_error(404, "block 7 is not complete"), "block 7 is not complete"),
        (_error(503, "history store unavailable, retry"), "HTTP 503: history store unavailable"),
        ((200, "application/x-protobuf", b"\xff\xff not a bundle"), "not a proof bundle"),
        ((500, "text/plain", b"oops"), "HTTP 500"),
    ],
)
def test_refusals_are_one_line_errors(answer: Answer, expected: str, tmp_path: Path) -> None:
    out = tmp_path / "b.proof"
    with _api(answer, []) as url:
        result = CliRunner().invoke(proof, ["get", "--url", url, "--block", "7", "-o", str(out)])
    assert result.exit_code == 1 and expected in result.output, result.output
    assert "Traceback" not in result.output and not out.exists()


@pytest.mark.parametrize(
    "args",
    [
        ["--url", "http://x", "--stack", "--block", "1"],
        ["--url", "http://x", "--from-dir", ".", "--block", "1"],
        ["--url", "http://x", "--without-book", "--block", "1"],
    ],
)
def test_usage(args: list[str]) -> None:
    assert CliRunner().invoke(proof, ["get", *args]).exit_code == 2


def test_only_http_urls() -> None:
    with pytest.raises(ConfigError):
        ApiProver("file:///etc/passwd")
