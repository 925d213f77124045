"""The deployed ``follow`` function and the CLI command, without any cloud."""

from __future__ import annotations

import socket
from pathlib import Path

import functions_framework
import pytest
from click.testing import CliRunner
from hedera_history.cli.main import cli

ROOT = Path(__file__).resolve().parents[3]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_function_answers_503_when_the_store_does_not_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", f"127.0.0.1:{_closed_port()}")
    monkeypatch.setenv("HEDERA_HISTORY_NETWORK", "demo")
    monkeypatch.setenv("HEDERA_HISTORY_BIGTABLE_TIMEOUT_SECONDS", "1")
    monkeypatch.setenv("HEDERA_HISTORY_FOLLOW_WINDOW_SECONDS", "1")
    app = functions_framework.create_app("follow", str(ROOT / "functions/follow/main.py"))
    response = app.test_client().post("/", data=b"{}", headers={"Content-Type": "application/json"})
    assert response.status_code == 503
    assert response.get_json()["type"] == "StoreUnavailableError"


def test_the_cli_command_is_registered() -> None:
    result = CliRunner().invoke(cli, ["follow", "--help"])
    assert result.exit_code == 0
    for option in ("--network", "--source", "--start", "--reset", "--seconds"):
        assert option in result.output
