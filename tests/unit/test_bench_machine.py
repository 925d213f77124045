"""The machine report every bench prints: what it reads from /proc and what it prints around a run."""

from __future__ import annotations

import functools

import pytest

from bench import machine
from bench.record_files import floor_one

X86_CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 26
model\t\t: 2
model name\t: AMD EPYC
flags\t\t: fpu vme sse2 hypervisor avx2

processor\t: 1
model name\t: something else
"""

ARM_CPUINFO = """processor\t: 0
BogoMIPS\t: 50.00
CPU implementer\t: 0x41

Hardware\t: BCM2835
"""


def test_the_cpu_model_names_family_and_model_and_a_virtual_machine() -> None:
    assert machine.cpu_model(X86_CPUINFO) == "AMD EPYC (family 26, model 2), virtual"


def test_the_cpu_model_falls_back_to_what_the_platform_says() -> None:
    assert machine.cpu_model("", "x86_64") == "x86_64"
    assert machine.cpu_model("") == "unknown"
    assert machine.cpu_model(ARM_CPUINFO, "aarch64") == "aarch64"  # the first processor's block only


def test_memory_and_cpu_times_are_read_from_proc_text() -> None:
    meminfo = "MemTotal:       24684104 kB\nMemFree:        22380000 kB\nMemAvailable:   23000000 kB\n"
    assert machine.meminfo_bytes(meminfo, "MemTotal") == 24684104 * 1024
    assert machine.meminfo_bytes(meminfo, "SwapTotal") is None
    earlier = machine.cpu_times("cpu  100 0 50 800 10 0 5 5 0 0\ncpu0 1 2 3\n")
    later = machine.cpu_times("cpu  700 0 200 1000 10 0 5 55 0 0\n")
    assert earlier == machine.CpuTimes(busy=155, steal=5, total=970)
    assert later.since(earlier) == ("machine CPU during the run (all cores, this bench included): 75% busy, 5.0% steal")
    assert earlier.since(earlier) == "machine CPU during the run: not measured"


def test_this_machine_is_described_from_proc() -> None:
    described = machine.this_machine()
    assert described.cores >= described.usable_cores >= 1
    line = described.line()
    assert line.startswith(f"machine: {described.cpu_model}, {described.cores} cores")
    assert f"Python {described.python}" in line


def test_the_reference_file_is_read_at_the_floor() -> None:
    file = machine.reference_file()
    assert file.items == machine.REFERENCE_ITEMS
    floor_one(file)  # gunzip, SHA-384, parse and running hashes of a well-formed file


def test_a_run_is_framed_by_the_machine_its_calibrations_and_the_load() -> None:
    printed: list[str] = []
    with machine.machine_report(printed.append, samples=1) as report:
        printed.append("the bench's own figures")
        report.calibrate()  # between two phases of the bench
    assert printed[0].startswith("machine: ")
    assert "load average" in printed[0]
    assert printed[1].startswith("calibration before: floor ")
    assert printed[2] == "the bench's own figures"
    assert printed[3].startswith("calibration after: floor ")
    assert printed[4].startswith("calibration over the run (3): floor ")
    assert printed[5].startswith("1-minute load average during the run: ")
    assert len(report.calibrations) == 3
    for calibration in (*report.calibrations, report.median):
        assert calibration.floor_rate > 0
        assert calibration.interpreter_rate > 0


def test_cpu_seconds_are_stated_as_the_calibration_work_they_do() -> None:
    calibration = machine.Calibration(floor_rate=200_000, interpreter_rate=1_000_000)
    assert calibration.as_work(0.5) == "500 k interpreter rows or 100 k floor transfers"
    assert calibration.as_work(1 / 16_000) == "62.5 interpreter rows or 12.5 floor transfers"
    assert calibration.as_work(15.7) == "15.70 M interpreter rows or 3.14 M floor transfers"
    report = machine.MachineReport(
        machine.this_machine(), [calibration, machine.Calibration(100_000, 3_000_000), calibration]
    )
    assert report.median == calibration


def test_a_failing_bench_is_not_calibrated_again() -> None:
    printed: list[str] = []
    with pytest.raises(RuntimeError), machine.machine_report(printed.append, samples=1):
        raise RuntimeError("the bench failed")
    assert not any(line.startswith("calibration after") for line in printed)


def test_a_decorated_main_keeps_its_arguments_and_result(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # One calibration sample a side, as the tests above take: the default nine are most of a run's seconds.
    monkeypatch.setattr(machine, "machine_report", functools.partial(machine.machine_report, samples=1))

    @machine.reports_machine
    def main(argv: list[str]) -> int:
        print(f"ran with {argv}")
        return len(argv)

    assert main(["--periods", "3"]) == 2
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("machine: ")
    assert "ran with ['--periods', '3']" in printed
    assert printed[-1].startswith("machine CPU during the run") or printed[-1].startswith("1-minute load")
