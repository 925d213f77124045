"""``hedera-history serve --address-book FILE`` after a ``load``: a new user's ``/stateproof`` is a
bundle that verifies against that book, over HTTP from the command's own process; without a book
it answers 501 as before. ``--network`` gives the preset's book the same way."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import requests
from click.testing import CliRunner
from hedera_history.cli import serve_cmd
from hedera_history.cli.main import cli
from hedera_history.config import Settings
from hedera_history.networks import network_named
from hedera_history.proofs.trust import Trust
from hedera_history.proofs.verify import verify_proof

from tests.fixtures.emulators import PROJECT

pytestmark = [pytest.mark.emulator]

BOOK = "test-v6-sidecar-4n.bin"
CONTRACT_CALL_ID = "0.0.2-1657701910-000000144"
"""A real V6 transaction of the loaded folder."""
STATEPROOF = f"/api/v1/transactions/{CONTRACT_CALL_ID}/stateproof"
START_SECONDS = 120.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serving(instance_id: str, *flags: str) -> Iterator[str]:
    """``hedera-history serve`` in a process of its own on the loaded tables; its URL once it answers."""
    port = free_port()
    env = {
        **os.environ,
        "GOOGLE_CLOUD_PROJECT": PROJECT,
        "HEDERA_HISTORY_BIGTABLE_INSTANCE": instance_id,
        "HEDERA_HISTORY_TABLE_PREFIX": "serve_",
        "HEDERA_HISTORY_ADDRESS_BOOK": "",
    }
    command = [sys.executable, "-m", "hedera_history.cli.main", "serve", "--port", str(port), *flags]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            if process.poll() is not None:
                raise AssertionError(f"serve exited: {process.stderr.read().decode() if process.stderr else ''}")
            try:
                requests.get(f"{url}/openapi.json", timeout=5)
                break
            except requests.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_serve_with_an_address_book_answers_a_stateproof_after_a_load(
    bigtable_instance: Any, hedera_data: Path
) -> None:
    book = hedera_data / "addressbook" / BOOK
    load = ["load", str(hedera_data / "v6"), "--address-book", str(book)]
    loaded = CliRunner().invoke(
        cli, [*load, "--instance", bigtable_instance.instance_id, "--table-prefix", "serve_"], catch_exceptions=False
    )
    assert loaded.exit_code == 0, loaded.output

    with serving(bigtable_instance.instance_id) as url:
        refused = requests.get(url + STATEPROOF, timeout=60)
        assert refused.status_code == 501 and "no bootstrap address book" in refused.text

    with serving(bigtable_instance.instance_id, "--address-book", str(book)) as url:
        answer = requests.get(url + STATEPROOF, headers={"Accept": "application/x-protobuf"}, timeout=60)
        assert answer.status_code == 200, answer.text[:500]
        verdict = verify_proof(answer.content, Trust.of_book(book.read_bytes()))
        assert verdict.block.block_number == 6


def test_serve_takes_the_network_presets_book(monkeypatch: pytest.MonkeyPatch) -> None:
    served: list[Settings | None] = []

    class App:
        def run(self, **_: Any) -> None:
            pass

    def local_app(settings: Settings | None = None) -> App:
        served.append(settings)
        return App()

    monkeypatch.delenv("HEDERA_HISTORY_ADDRESS_BOOK", raising=False)
    monkeypatch.setattr(serve_cmd, "local_app", local_app)
    result = CliRunner().invoke(serve_cmd.serve, ["--network", "mainnet", "--port", "0"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    preset = network_named("mainnet")
    assert preset is not None
    (settings,) = served
    assert settings is not None and settings.address_book == str(preset.bootstrap_book())
