"""Which machine a bench ran on, and how fast that machine was while the bench ran.

CPU seconds are not the same unit on two machines, nor on one virtual machine from one hour to the
next (its vCPUs share the host with other tenants): at the same commit the backfill bench's tasks
took 3.5-3.9 CPU seconds on one 2-core machine and 6.2-8.2 on another (docs/backfill.md, "Comparing
figures between machines"). So every bench prints, before its own figures, the machine (CPU model,
family and model from /proc/cpuinfo, cores, memory, Python, whether the compiled core loaded) and a
calibration; after them, the calibration again, the load average seen during the run and how busy
the whole machine was (/proc/stat: all work, and steal, the time the hypervisor gave the bench's
vCPUs to someone else). State a figure in calibration work (``Calibration.as_work``) before
comparing it with another machine's.

The calibration has two figures, because C code streaming over a few MB and the interpreter
allocating objects do not slow alike when a machine is busier or different:

- **floor**: ``record_files.floor_one`` over one reference file of ``REFERENCE_ITEMS`` crypto
  transfers (gunzip, SHA-384 of the file, the ``RecordStreamFile`` parse, two SHA-384 per item):
  the raw work of reading a record file; transfers per CPU second.
- **interpreter**: ``INTERPRETER_ROWS`` small rows built in Python (a bytes key and a dict of three
  cells, the shape row building makes), sorted and dropped, the cyclic collector off: the
  interpreter's object allocation, where row building, the functions and the Python emulators
  spend most of their CPU; rows per CPU second.

Each is the median of ``SAMPLES`` runs in CPU seconds of one thread (``time.thread_time``), so work
elsewhere on the machine is not charged to it; a run still slows when it shares a physical core or
its caches with that work, which is what the calibration is there to show. It runs in a fresh
interpreter started for it (``calibrate_in_child``), in the same run: in the bench's own process the
interpreter figure measured the bench's heap as much as the machine (1.11 M rows per CPU second in
a fresh process, 0.55 M once 1.5 M objects were left among freed ones).
"""

from __future__ import annotations

import functools
import gc
import os
import platform
import statistics
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import ParamSpec, TypeVar

from hedera_history import speedups

from bench.record_files import BenchFile, build_files, floor_one
from bench.timing import median_cpu

ROOT = Path(__file__).resolve().parent.parent
"""The folder ``bench`` is imported from, for the calibrating interpreter."""
REFERENCE_ITEMS = 2000
INTERPRETER_ROWS = 50_000
SAMPLES = 9
LOAD_INTERVAL_SECONDS = 2.0
"""How often the load average is sampled while the bench runs."""
GIB = 1024**3

Out = Callable[[str], None]
P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True)
class Machine:
    cpu_model: str
    cores: int
    usable_cores: int
    memory_total_bytes: int | None
    memory_available_bytes: int | None
    python: str
    compiled_core: bool

    def line(self) -> str:
        memory = ""
        if self.memory_total_bytes is not None and self.memory_available_bytes is not None:
            memory = (
                f", memory {self.memory_available_bytes / GIB:.1f} of {self.memory_total_bytes / GIB:.1f} GiB available"
            )
        return (
            f"machine: {self.cpu_model}, {self.cores} cores ({self.usable_cores} usable){memory}, "
            f"Python {self.python}, compiled core {'yes' if self.compiled_core else 'NO'}"
        )


def _count(value: float) -> str:
    if value >= 1e6:
        return f"{value / 1e6:,.2f} M"
    if value >= 1e4:
        return f"{value / 1e3:,.0f} k"
    return f"{value:,.1f}"


@dataclass(frozen=True)
class Calibration:
    floor_rate: float
    """Transfers of the reference file read at the floor per CPU second."""
    interpreter_rate: float
    """Rows built, sorted and dropped by the interpreter per CPU second."""

    def as_work(self, cpu_seconds: float) -> str:
        """CPU seconds of this machine as the calibration work they do here: the unit in which figures
        from two machines compare."""
        return (
            f"{_count(cpu_seconds * self.interpreter_rate)} interpreter rows or "
            f"{_count(cpu_seconds * self.floor_rate)} floor transfers"
        )

    def line(self, when: str) -> str:
        return (
            f"calibration {when}: floor {self.floor_rate:,.0f} transfers per CPU s, interpreter "
            f"{self.interpreter_rate:,.0f} rows per CPU s (medians, in a fresh interpreter)"
        )


@dataclass(frozen=True)
class CpuTimes:
    """The machine's CPU time since boot, from the first line of /proc/stat, in clock ticks."""

    busy: int
    steal: int
    total: int

    def since(self, earlier: CpuTimes) -> str:
        total = self.total - earlier.total
        if total <= 0:
            return "machine CPU during the run: not measured"
        busy = (self.busy - earlier.busy) / total
        steal = (self.steal - earlier.steal) / total
        return f"machine CPU during the run (all cores, this bench included): {busy:.0%} busy, {steal:.1%} steal"


def cpu_model(cpuinfo: str, fallback: str = "") -> str:
    """The CPU's name in /proc/cpuinfo, with its family and model where given (a virtual machine
    may name only the vendor's line: "AMD EPYC" is several generations)."""
    fields: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        name, _, value = line.partition(":")
        name, value = name.strip(), value.strip()
        if not name:
            break  # the first processor's block ends at its blank line
        fields.setdefault(name, value)
    model = fields.get("model name") or fields.get("Hardware") or fields.get("Processor") or fallback or "unknown"
    if "cpu family" in fields and "model" in fields:
        model += f" (family {fields['cpu family']}, model {fields['model']})"
    if "hypervisor" in fields.get("flags", "").split():
        model += ", virtual"
    return model


def meminfo_bytes(meminfo: str, name: str) -> int | None:
    for line in meminfo.splitlines():
        key, _, value = line.partition(":")
        if key == name:
            return int(value.split()[0]) * 1024
    return None


def cpu_times(stat: str) -> CpuTimes:
    """``cpu user nice system idle iowait irq softirq steal ...``: busy is everything but idle,
    iowait and steal."""
    fields = [int(value) for value in stat.splitlines()[0].split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return CpuTimes(user + nice + system + irq + softirq, steal, sum(fields))


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def this_machine() -> Machine:
    meminfo = _read("/proc/meminfo")
    return Machine(
        cpu_model=cpu_model(_read("/proc/cpuinfo"), platform.processor() or platform.machine()),
        cores=os.cpu_count() or 1,
        usable_cores=len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1,
        memory_total_bytes=meminfo_bytes(meminfo, "MemTotal"),
        memory_available_bytes=meminfo_bytes(meminfo, "MemAvailable"),
        python=platform.python_version(),
        compiled_core=speedups.available,
    )


def machine_cpu_times() -> CpuTimes | None:
    stat = _read("/proc/stat")
    return cpu_times(stat) if stat.startswith("cpu ") else None


@functools.cache
def reference_file() -> BenchFile:
    return build_files(1, REFERENCE_ITEMS, seed=26)[0]


def interpreter_work(rows: int) -> None:
    """Build ``rows`` small rows, sort them by key and drop them."""
    built = [
        (index.to_bytes(8, "little") + b"/h", {"t": index, "v": b"v" * (index % 24), "n": (index, -index)})
        for index in range(rows)
    ]
    built.sort(key=lambda row: row[0])


def calibrate(samples: int = SAMPLES, interpreter_rows: int = INTERPRETER_ROWS) -> Calibration:
    file = reference_file()
    floor = median_cpu(lambda: floor_one(file), samples, warm=False)
    collecting = gc.isenabled()
    gc.disable()
    try:
        interpreter = median_cpu(lambda: interpreter_work(interpreter_rows), samples, warm=False)
    finally:
        if collecting:
            gc.enable()
    return Calibration(file.items / floor, interpreter_rows / interpreter)


def calibrate_in_child(samples: int = SAMPLES) -> Calibration:
    """``calibrate`` in a fresh interpreter (``python -m bench.machine SAMPLES``), whose heap is the
    same on every run."""
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    result = subprocess.run(
        [sys.executable, "-m", "bench.machine", str(samples)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
    )
    floor, interpreter = (float(value) for value in result.stdout.split()[-2:])
    return Calibration(floor, interpreter)


class LoadWatch:
    """The 1-minute load average, sampled every ``interval`` seconds on a daemon thread."""

    def __init__(self, interval: float = LOAD_INTERVAL_SECONDS) -> None:
        self.samples: list[float] = [os.getloadavg()[0]]
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="load-watch", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(self._interval):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> str:
        self._stop.set()
        self._thread.join()
        self.samples.append(os.getloadavg()[0])
        low, middle, high = min(self.samples), statistics.median(self.samples), max(self.samples)
        return (
            f"1-minute load average during the run: {low:.2f} / {middle:.2f} / {high:.2f} "
            f"(min / median / max of {len(self.samples)} samples, {os.cpu_count() or 1} cores)"
        )


def _load_line() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


@dataclass
class MachineReport:
    machine: Machine
    calibrations: list[Calibration]
    """Every calibration of the run, in order: the first before the bench, the last after it."""
    samples: int = SAMPLES

    def calibrate(self) -> Calibration:
        """One more calibration, for a bench that takes one between its phases: the machine's speed
        moves within minutes (other tenants of the host, its clock boost)."""
        calibration = calibrate_in_child(self.samples)
        self.calibrations.append(calibration)
        return calibration

    @property
    def median(self) -> Calibration:
        return Calibration(
            statistics.median(c.floor_rate for c in self.calibrations),
            statistics.median(c.interpreter_rate for c in self.calibrations),
        )

    def spread_line(self) -> str:
        floors = [c.floor_rate for c in self.calibrations]
        interpreters = [c.interpreter_rate for c in self.calibrations]
        return (
            f"calibration over the run ({len(self.calibrations)}): floor {min(floors):,.0f} to {max(floors):,.0f}, "
            f"interpreter {min(interpreters):,.0f} to {max(interpreters):,.0f}"
        )


@contextmanager
def machine_report(out: Out = print, samples: int = SAMPLES) -> Iterator[MachineReport]:
    """Print the machine and a calibration, run the bench, then print the calibration again, the
    load seen meanwhile and how busy the machine was. A bench may calibrate between its phases
    (``MachineReport.calibrate``) and state its figures in calibration units (``median``)."""
    machine = this_machine()
    out(f"{machine.line()}; {_load_line()}")
    report = MachineReport(machine, [], samples)
    out(report.calibrate().line("before"))
    watch, started = LoadWatch(), machine_cpu_times()
    try:
        yield report
    finally:
        load = watch.stop()
    ended = machine_cpu_times()
    out(report.calibrate().line("after"))
    out(report.spread_line())
    out(f"{load}; {_load_line()} at the end")
    if started is not None and ended is not None:
        out(ended.since(started))


def reports_machine(main: Callable[P, R]) -> Callable[P, R]:
    """A bench's ``main`` inside ``machine_report``."""

    @functools.wraps(main)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with machine_report():
            return main(*args, **kwargs)

    return run


if __name__ == "__main__":
    measured = calibrate(int(sys.argv[1]) if len(sys.argv) > 1 else SAMPLES)
    print(measured.floor_rate, measured.interpreter_rate)
