"""Cold start: the import of each function's module, and ``hedera-history --help``, in fresh interpreters.

Each figure is the p50 (and the worst) of ``RUNS`` subprocesses, taken round-robin so that the
load of the machine falls on every target alike. Baselines in the same run:

- ``python -c pass``: the interpreter alone (wall time, as the ``--help`` figure);
- per function, the import of its third-party dependencies alone (the Functions Framework and
  the Cloud clients it calls): the honest floor of a function that imports its clients at
  start-up. A function may come in under it by importing a client on first use instead.

Goals (issue 16): each function's import < 1 s; ``--help`` < 0.5 s. Nothing is asserted.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

RUNS = 7
IMPORT_GOAL_SECONDS = 1.0
HELP_GOAL_SECONDS = 0.5
ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS = ROOT / "functions"

# The third-party modules each function needs to serve a request (functions/requirements.lock).
FLOORS: dict[str, tuple[str, ...]] = {
    "ingest": (
        "functions_framework",
        "cloudevents.http",
        "google.cloud.bigtable.data",
        "google.cloud.pubsub_v1",
        "google.cloud.storage",
    ),
    "store": ("functions_framework", "google.cloud.bigtable.data", "google.cloud.pubsub_v1"),
    "query": ("functions_framework", "google.cloud.bigtable.data"),
    "follow": ("functions_framework", "google.cloud.bigtable.data", "google.cloud.pubsub_v1", "google.cloud.storage"),
}

_TIMED_IMPORT = "import time\nstart = time.perf_counter()\n{imports}\nprint(time.perf_counter() - start)\n"


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    command: tuple[str, ...]
    cwd: Path
    reports_own_time: bool
    """True: the process prints the seconds of its import; False: its wall time is the figure."""


def _import_target(name: str, modules: tuple[str, ...], cwd: Path) -> Target:
    script = _TIMED_IMPORT.format(imports="\n".join(f"import {module}" for module in modules))
    return Target(name, (sys.executable, "-c", script), cwd, reports_own_time=True)


def targets() -> list[Target]:
    found: list[Target] = [Target("python -c pass", (sys.executable, "-c", "pass"), ROOT, reports_own_time=False)]
    for function, floor in FLOORS.items():
        folder = FUNCTIONS / function
        found.append(_import_target(f"{function}: import main", ("main",), folder))
        found.append(_import_target(f"{function}: floor (its dependencies)", floor, folder))
    found.append(
        Target(
            "hedera-history --help",
            (sys.executable, "-m", "hedera_history.cli.main", "--help"),
            ROOT,
            reports_own_time=False,
        )
    )
    return found


def run_once(target: Target) -> float:
    start = time.perf_counter()
    result = subprocess.run(target.command, cwd=target.cwd, capture_output=True, text=True, check=True, timeout=300)
    wall = time.perf_counter() - start
    return float(result.stdout.strip().splitlines()[-1]) if target.reports_own_time else wall


def measure(found: list[Target], runs: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {t.name: [] for t in found}
    for _ in range(runs):
        for target in found:
            samples[target.name].append(run_once(target))
    return samples


def main() -> None:
    found = targets()
    print(f"{len(found)} targets x {RUNS} fresh interpreters, round-robin ...", flush=True)
    samples = measure(found, RUNS)
    print(f"{'target':40} {'p50 s':>8} {'max s':>8}  verdict")
    for target in found:
        runs = samples[target.name]
        p50 = statistics.median(runs)
        verdict = ""
        if target.name.endswith("import main"):
            verdict = "ok" if p50 < IMPORT_GOAL_SECONDS else f"ABOVE GOAL ({IMPORT_GOAL_SECONDS} s)"
        elif target.name.startswith("hedera-history"):
            verdict = "ok" if p50 < HELP_GOAL_SECONDS else f"ABOVE GOAL ({HELP_GOAL_SECONDS} s)"
        print(f"{target.name:40} {p50:8.3f} {max(runs):8.3f}  {verdict}")


if __name__ == "__main__":
    main()
