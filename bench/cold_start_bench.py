"""Cold start: the import of each function's module, and ``hedera-history --help``, in fresh interpreters.

Each figure is the p50 (and the worst) of ``RUNS`` subprocesses, taken round-robin so that the
load of the machine falls on every target alike. Baselines in the same run:

- ``python -c pass``: the interpreter alone (wall time, as the ``--help`` figure);
- per function, the import of its third-party dependencies alone (the Functions Framework and
  the Cloud clients it calls): the honest floor of a function that imports its clients at
  start-up. A function may come in under it by importing a client on first use instead.

Goals (issue 16): each function's import < 1 s; ``--help`` < 0.5 s. Nothing is asserted.

``--cpu`` takes CPU seconds (the process's own, ``time.process_time``; the whole child's for the
wall-time targets) instead of wall time, so a machine busy with other work does not charge it to
either side; ``--runs N`` takes more samples. ``--baseline COMMIT`` measures that commit's code
too (``git archive`` into a temporary folder, found first on ``PYTHONPATH``), round-robin with this
tree's, and prints each target's ratio this/baseline: a change's effect on cold start, both sides
under the same load.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.machine import reports_machine

RUNS = 7
IMPORT_GOAL_SECONDS = 1.0
HELP_GOAL_SECONDS = 0.5
ROOT = Path(__file__).resolve().parent.parent

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

_TIMED_IMPORT = (
    "import time\nstart, cpu = time.perf_counter(), time.process_time()\n{imports}\n"
    "print(time.perf_counter() - start, time.process_time() - cpu)\n"
)


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    command: tuple[str, ...]
    cwd: Path
    reports_own_time: bool
    """True: the process prints the seconds of its import; False: its wall time is the figure."""
    package_root: Path | None = None
    """Put first on ``PYTHONPATH`` (the tree whose ``hedera_history`` is measured); None: as installed."""


def _import_target(name: str, modules: tuple[str, ...], cwd: Path, package_root: Path | None) -> Target:
    script = _TIMED_IMPORT.format(imports="\n".join(f"import {module}" for module in modules))
    return Target(name, (sys.executable, "-c", script), cwd, reports_own_time=True, package_root=package_root)


def targets(root: Path = ROOT, label: str = "") -> list[Target]:
    """The targets of the tree at ``root`` (its ``functions/`` and ``shared/src``), named after ``label``;
    the interpreter and the third-party floors only for this tree (they do not depend on the code)."""
    package = root / "shared" / "src"
    found: list[Target] = []
    if not label:
        found.append(Target("python -c pass", (sys.executable, "-c", "pass"), root, reports_own_time=False))
    for function, floor in FLOORS.items():
        folder = root / "functions" / function
        found.append(_import_target(f"{label}{function}: import main", ("main",), folder, package))
        if not label:
            found.append(_import_target(f"{function}: floor (its dependencies)", floor, folder, package))
    found.append(
        Target(
            f"{label}hedera-history --help",
            (sys.executable, "-m", "hedera_history.cli.main", "--help"),
            root,
            reports_own_time=False,
            package_root=package,
        )
    )
    return found


def run_once(target: Target, *, cpu: bool = False) -> float:
    """The target's seconds: wall time, or with ``cpu`` CPU time."""
    environment = None
    if target.package_root is not None:
        paths = [str(target.package_root), *filter(None, [os.environ.get("PYTHONPATH")])]
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    start, children = time.perf_counter(), _children_cpu()
    result = subprocess.run(
        target.command, cwd=target.cwd, env=environment, capture_output=True, text=True, check=True, timeout=300
    )
    wall = time.perf_counter() - start
    if target.reports_own_time:
        own_wall, own_cpu = result.stdout.strip().splitlines()[-1].split()
        return float(own_cpu if cpu else own_wall)
    return _children_cpu() - children if cpu else wall


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(found: list[Target], runs: int, *, cpu: bool = False) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {t.name: [] for t in found}
    for _ in range(runs):
        for target in found:
            samples[target.name].append(run_once(target, cpu=cpu))
    return samples


def export_commit(commit: str, into: Path) -> Path:
    """``commit``'s ``shared/src`` and ``functions`` under ``into`` (nothing is checked out)."""
    archive = subprocess.run(
        ["git", "archive", commit, "shared/src", "functions"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


@reports_machine
def main(arguments: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--baseline", metavar="COMMIT", help="Also measure this commit's code, round-robin.")
    parser.add_argument("--cpu", action="store_true", help="CPU seconds instead of wall time.")
    parser.add_argument("--runs", type=int, default=RUNS, help=f"Samples per target (default {RUNS}).")
    options = parser.parse_args(arguments)
    with tempfile.TemporaryDirectory(prefix="cold-start-baseline-") as scratch:
        found = targets()
        baseline_label = f"{options.baseline} " if options.baseline else ""
        if options.baseline:
            found += targets(export_commit(options.baseline, Path(scratch)), baseline_label)
        clock = "CPU" if options.cpu else "wall"
        print(f"{len(found)} targets x {options.runs} fresh interpreters, round-robin, {clock} time ...", flush=True)
        samples = measure(found, options.runs, cpu=options.cpu)
    p50s = {name: statistics.median(runs) for name, runs in samples.items()}
    print(f"{'target':48} {'p50 s':>8} {'max s':>8}  verdict")
    for target in found:
        p50 = p50s[target.name]
        verdict = ""
        if target.name.endswith("import main"):
            verdict = "ok" if p50 < IMPORT_GOAL_SECONDS else f"ABOVE GOAL ({IMPORT_GOAL_SECONDS} s)"
        elif target.name.endswith("hedera-history --help"):
            verdict = "ok" if p50 < HELP_GOAL_SECONDS else f"ABOVE GOAL ({HELP_GOAL_SECONDS} s)"
        before = p50s.get(baseline_label + target.name) if baseline_label else None
        if before:
            verdict += f"  {p50 / before:.2f} x the baseline's"
        print(f"{target.name:48} {p50:8.3f} {max(samples[target.name]):8.3f}  {verdict}")


if __name__ == "__main__":
    main()
