"""The histories the clients are pointed at, each loaded into its own instance of one Bigtable
emulator with ``hedera-history load`` and served by ``hedera-history serve``, as a user would."""

from __future__ import annotations

import contextlib
import functools
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hedera_history import hapi
from hedera_history.books.parse import parse_address_book
from hedera_history.gen import GeneratorConfig, generate_stream, write_stream
from hedera_history.gen.writer import ADDRESS_BOOK_FILE
from hedera_history.localstack.ports import accepts_connections
from hedera_history.localstack.processes import ServiceProcess, wait_until_ready

CLI = str(Path(sys.executable).with_name("hedera-history"))
PROJECT = "local-project"
REAL_DATA = Path(os.environ.get("HEDERA_HISTORY_TEST_DATA", Path(__file__).resolve().parents[3] / "shared/data/hedera"))
JS_SDK_REST_PORT = 5551
"""Where @hashgraph/sdk looks for the REST API of a mirror node on 127.0.0.1 or localhost."""
JS_SDK_CONTRACT_CALL_PORT = 8545
"""Where it sends ``POST /contracts/call`` for such a mirror node."""
SERVE_START_SECONDS = 60.0

GENERATED = GeneratorConfig(
    nodes=4,
    periods=6,
    transactions=40,
    seed=11,
    topics=4,
    network_files=True,
    rotate_key=False,
    stake_updates={2: (10**17, 2 * 10**17, 3 * 10**17, 4 * 10**17)},
    tokens=True,
    node_endpoints=True,
)
"""Beside contract calls and creates, transfers, account creates and schedules: topics with
messages, exchange-rate and fee-schedule updates, a stake update, tokens, NFTs, allowances,
airdrops, account updates, schedules signed later, and an address book with the nodes' addresses."""


@dataclass(frozen=True)
class History:
    name: str
    directory: Path
    address_book: Path
    truth: dict[str, Any] | None = None
    """The generator's ground truth, for a generated history."""


REQUEST_LINE = re.compile(r'"(GET|HEAD|POST|PUT|DELETE|OPTIONS) (\S+) HTTP/[0-9.]+" (\d{3})')
"""A request as the development server behind ``serve`` logs it (ANSI styles taken out)."""
ANSI_STYLE = re.compile(r"\x1b\[[0-9;]*m")


def log_sizes(logs: Path) -> dict[Path, int]:
    """Where each ``serve`` log under ``logs`` ends now."""
    return {log: log.stat().st_size for log in logs.glob("serve-*.log")}


def recorded_requests(logs: Path, since: dict[Path, int]) -> list[dict[str, Any]]:
    """Every distinct request the served API answered after ``since`` (method, path and query,
    status), in order, from the ``serve`` logs under ``logs``."""
    seen: dict[tuple[str, str, int], None] = {}
    for log in sorted(logs.glob("serve-*.log")):
        with log.open("rb") as f:
            f.seek(since.get(log, 0))
            text = ANSI_STYLE.sub("", f.read().decode(errors="replace"))
        for match in REQUEST_LINE.finditer(text):
            seen[(match[1], match[2], int(match[3]))] = None
    return [{"method": method, "path": path, "status": status} for method, path, status in seen]


def book_nodes(book: Path) -> tuple[list[str], bool]:
    """The node accounts of a book file, and whether it gives any node's address."""
    data = book.read_bytes()
    message = hapi.NodeAddressBook()
    message.ParseFromString(data)
    with_address = any(entry.serviceEndpoint or entry.ipAddress for entry in message.nodeAddress)
    return sorted(node.account for node in parse_address_book(data, str(book)).nodes), with_address


def generated(work: Path) -> History:
    directory = work / "generated"
    stream = generate_stream(GENERATED)
    write_stream(stream, directory)
    return History("generated", directory, directory / ADDRESS_BOOK_FILE, stream.truth)


def real_v6(data: Path = REAL_DATA) -> History:
    return History("real V6", data / "v6", data / "addressbook" / "test-v6-sidecar-4n.bin")


def environment(bigtable_host: str, instance: str) -> dict[str, str]:
    """The variables that point ``load`` and ``serve`` at the instance."""
    return {
        "BIGTABLE_EMULATOR_HOST": bigtable_host,
        "GOOGLE_CLOUD_PROJECT": PROJECT,
        "HEDERA_HISTORY_BIGTABLE_INSTANCE": instance,
    }


def load(history: History, env: dict[str, str], log: Path) -> None:
    """``hedera-history load`` the history; raises when it does not load completely."""
    argv = [CLI, "load", str(history.directory), "--address-book", str(history.address_book)]
    ran = subprocess.run(argv, env={**os.environ, **env}, capture_output=True, text=True, check=False)
    with log.open("a") as out:
        out.write(f"--- {' '.join(argv)}\n{ran.stdout}{ran.stderr}")
    if ran.returncode != 0:
        tail = "\n".join((ran.stdout + ran.stderr).strip().splitlines()[-15:])
        raise RuntimeError(f"{' '.join(argv)} exited with {ran.returncode}:\n{tail}")


@contextlib.contextmanager
def served(history: History, env: dict[str, str], logs: Path) -> Iterator[str]:
    """``hedera-history serve`` on the ports the JS SDK derives; yields the base URL."""
    processes = []
    try:
        for port in (JS_SDK_REST_PORT, JS_SDK_CONTRACT_CALL_PORT):
            if accepts_connections("127.0.0.1", port):
                raise RuntimeError(f"port {port} is taken: the JS SDK needs our API there")
            argv = [CLI, "serve", "--port", str(port), "--address-book", str(history.address_book)]
            log = logs / f"serve-{port}.log"
            process = ServiceProcess(f"serve-{port}", argv, log, extra_env=env, stop_with_parent=True)
            processes.append(process)
            process.start()
            wait_until_ready(process, functools.partial(accepts_connections, "127.0.0.1", port), SERVE_START_SECONDS)
        yield f"http://127.0.0.1:{JS_SDK_REST_PORT}"
    finally:
        for process in reversed(processes):
            process.stop()
