"""``python -m bench.clients``: four real mirror-node clients against our REST API.

Installs each pinned client in its own environment under ``--cache`` (default ``var/clients``; never
into the project's), starts a Bigtable emulator, loads a generated stream and the real V6 set into
instances of their own with ``hedera-history load``, serves each with ``hedera-history serve`` on
127.0.0.1:5551 (where @hashgraph/sdk looks for a local mirror node's REST API; :8545 too, where it
sends contract calls), runs every client's calls (``calls/``) against it, and prints one row per
call: ``pass``, ``FAIL``, ``not-served`` (a route we do not serve, with the reason) or ``skipped``
(the history holds nothing to ask for). Exits 1 when a call on a route we serve fails.

    python -m bench.clients [--cache var/clients] [--history generated --history v6] [--table OUT.md]
                            [--record tests/integration/api/client_requests.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import requests
from hedera_history.localstack.emulators import BigtableEmulator

from bench.clients import history as histories
from bench.clients.expected import expectations
from bench.clients.installs import CLIENTS, REPOSITORY, command, install
from bench.clients.outcomes import CLIENT_SIDE, Outcome, failed, parse, summary, table
from bench.clients.placeholders import generalise
from bench.clients.targets import find_targets

CALL_SECONDS = 300


def run_clients(
    history: histories.History, base_url: str, cache: Path, work: Path, logs: Path
) -> tuple[list[Outcome], dict[str, Any], dict[Path, int]]:
    """Each client's calls on one served history, what they asked for, and where the serve logs
    stood before them."""

    def get(path: str) -> Any:
        answer = requests.get(base_url + path, timeout=30)
        answer.raise_for_status()
        return answer.json()

    name = history.name
    found = {"base_url": base_url, **find_targets(get, *histories.book_nodes(history.address_book))}
    if history.truth is not None:
        found.update(expectations(history.truth, found["account"]))
    before = histories.log_sizes(logs)
    targets_file = work / f"targets-{name.replace(' ', '-')}.json"
    targets_file.write_text(json.dumps(found, indent=1))
    print(f"{name}: asking for {json.dumps(found)}", file=sys.stderr)
    outcomes: list[Outcome] = []
    for spec in CLIENTS:
        ran = subprocess.run(
            command(spec, cache, targets_file),
            cwd=REPOSITORY,
            capture_output=True,
            text=True,
            timeout=CALL_SECONDS,
            check=False,
        )
        got = parse(name, spec.name, ran.stdout)
        if ran.returncode != 0 or not got:
            tail = " ".join(ran.stderr.strip().splitlines()[-3:])
            got.append(
                Outcome(name, spec.name, "(call script)", "GET", CLIENT_SIDE, False, f"exit {ran.returncode}: {tail}")
            )
        outcomes.extend(got)
    return outcomes, found, before


def recording(recorded: dict[str, list[dict[str, Any]]]) -> str:
    """JSON, one request a line."""
    histories_json = [
        f"  {json.dumps(name)}: [\n" + ",\n".join(f"    {json.dumps(r)}" for r in requests) + "\n  ]"
        for name, requests in recorded.items()
    ]
    return "{\n" + ",\n".join(histories_json) + "\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--cache", type=Path, default=REPOSITORY / "var" / "clients", help="where the clients are installed"
    )
    parser.add_argument("--history", action="append", choices=("generated", "v6"), help="default: both")
    parser.add_argument("--table", type=Path, default=None, help="also write the table (Markdown) here")
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        help="write the requests the clients made here (JSON, per history, ids as the targets they are)",
    )
    args = parser.parse_args(argv)
    cache: Path = args.cache.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    for spec in CLIENTS:
        print(f"installing {spec.pin} under {cache}", file=sys.stderr)
        install(spec, cache, cache / "install.log")
    outcomes: list[Outcome] = []
    recorded: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="clients-") as folder, BigtableEmulator() as bigtable:
        work = Path(folder)
        chosen = args.history or ["generated", "v6"]
        loaded = [histories.generated(work) if h == "generated" else histories.real_v6() for h in chosen]
        for index, history in enumerate(loaded):
            env = histories.environment(bigtable.host, f"clients-{index}")
            print(f"loading {history.name} from {history.directory}", file=sys.stderr)
            histories.load(history, env, work / "load.log")
            logs = work / f"serve-{index}"
            logs.mkdir()
            with histories.served(history, env, logs) as base_url:
                got, found, before = run_clients(history, base_url, cache, work, logs)
            outcomes.extend(got)
            # Read once serve has stopped, so its log holds the last request too.
            recorded[history.name] = [
                {**request, "path": generalise(request["path"], found)}
                for request in histories.recorded_requests(logs, before)
            ]
    report = table(outcomes)
    print(report)
    print(f"\n{summary(outcomes)}")
    if args.table is not None:
        args.table.write_text(report + "\n")
    if args.record is not None:
        args.record.write_text(recording(recorded))
    return 1 if failed(outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
