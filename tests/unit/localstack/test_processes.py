from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from hedera_history.errors import EmulatorError
from hedera_history.localstack.processes import (
    ServiceProcess,
    process_group_alive,
    process_group_members,
    stop_process_group,
    wait_until_ready,
)
from hedera_history.logs import log_tail


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def _log_has_line(process: ServiceProcess, line: str) -> bool:
    """True once the service printed ``line`` (the log's first line repeats the command)."""
    return line in process.log_path.read_text().splitlines()


def _wait_for_exit(process: ServiceProcess) -> None:
    deadline = time.monotonic() + 10
    while process.exit_code() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.exit_code() == 0


def test_stop_ends_every_process_the_service_spawned(tmp_path: Path) -> None:
    service = ServiceProcess(
        "spawner", ["sh", "-c", "sleep 300 & sleep 300 & echo spawned; wait"], tmp_path / "spawner.log"
    )
    service.start()
    try:
        wait_until_ready(service, lambda: _log_has_line(service, "spawned"), timeout_seconds=10)
        group = service.pid
        assert group is not None
        assert len(process_group_members(group)) == 3
    finally:
        service.stop()
    assert not process_group_alive(group)
    assert service.pid is None and not service.is_running()


def test_stop_kills_a_service_that_ignores_sigterm(tmp_path: Path) -> None:
    stubborn = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "print('armed', flush=True); time.sleep(300)"
    )
    service = ServiceProcess("stubborn", _python(stubborn), tmp_path / "stubborn.log")
    service.start()
    wait_until_ready(service, lambda: _log_has_line(service, "armed"), timeout_seconds=10)
    group = service.pid
    assert group is not None

    started = time.monotonic()
    service.stop(grace_seconds=0.5)

    assert time.monotonic() - started < 5
    assert not process_group_alive(group)


def test_output_goes_to_the_log_file(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "talker.log"
    service = ServiceProcess("talker", _python("print('\\n'.join(f'line {i}' for i in range(100)))"), log)
    service.start()
    _wait_for_exit(service)
    service.stop()
    assert log_tail(log, 2) == "line 98\nline 99"
    assert log.read_text().startswith("--- ")


def test_extra_env_and_cwd_reach_the_service(tmp_path: Path) -> None:
    code = "import os; print(os.environ['HH_TEST_VALUE'], os.getcwd(), flush=True)"
    service = ServiceProcess(
        "env", _python(code), tmp_path / "env.log", cwd=tmp_path, extra_env={"HH_TEST_VALUE": "x42"}
    )
    service.start()
    _wait_for_exit(service)
    service.stop()
    assert f"x42 {tmp_path}" in service.log_path.read_text()


def test_a_service_that_exits_fails_at_once_with_its_log(tmp_path: Path) -> None:
    code = "import sys; print('bind: address already in use', flush=True); sys.exit(3)"
    service = ServiceProcess("quitter", _python(code), tmp_path / "quitter.log")
    service.start()
    started = time.monotonic()
    with pytest.raises(EmulatorError) as raised:
        wait_until_ready(service, lambda: False, timeout_seconds=30)
    assert time.monotonic() - started < 10
    message = str(raised.value)
    assert "quitter exited with status 3 before it was ready" in message
    assert "bind: address already in use" in message
    service.stop()


def test_a_service_that_never_answers_times_out_with_its_log(tmp_path: Path) -> None:
    service = ServiceProcess(
        "sleeper",
        _python("print('still starting', flush=True); import time; time.sleep(60)"),
        tmp_path / "s.log",
    )
    service.start()
    try:
        with pytest.raises(EmulatorError) as raised:
            wait_until_ready(
                service,
                lambda: _log_has_line(service, "never printed"),
                timeout_seconds=1.0,
                poll_seconds=0.05,
            )
    finally:
        service.stop()
    assert "sleeper was not ready after 1 s" in str(raised.value)
    assert "still starting" in str(raised.value)


def test_wait_until_ready_returns_the_seconds_waited(tmp_path: Path) -> None:
    service = ServiceProcess("sleeper", ["sleep", "60"], tmp_path / "s.log")
    service.start()
    try:
        assert 0 <= wait_until_ready(service, lambda: True, timeout_seconds=5) < 5
    finally:
        service.stop()


def test_a_missing_program_is_an_emulator_error(tmp_path: Path) -> None:
    service = ServiceProcess("ghost", [str(tmp_path / "no-such-binary")], tmp_path / "ghost.log")
    with pytest.raises(EmulatorError, match="cannot run"):
        service.start()


def test_starting_twice_is_an_error(tmp_path: Path) -> None:
    service = ServiceProcess("sleeper", ["sleep", "60"], tmp_path / "s.log")
    service.start()
    try:
        with pytest.raises(EmulatorError, match="already started"):
            service.start()
    finally:
        service.stop()


def test_stop_with_parent_runs_a_watchdog_in_the_group(tmp_path: Path) -> None:
    service = ServiceProcess("guarded", ["sleep", "60"], tmp_path / "g.log", stop_with_parent=True)
    service.start()
    group = service.pid
    assert group is not None
    try:
        deadline = time.monotonic() + 10
        while len(process_group_members(group)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        commands = [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in process_group_members(group)]
        assert any(b"hedera_history.localstack.watchdog" in command for command in commands)
    finally:
        service.stop()
    assert not process_group_alive(group)


def test_stopping_a_group_that_is_gone_is_quiet(tmp_path: Path) -> None:
    finished = subprocess.Popen(["true"], process_group=0)
    finished.wait()
    assert process_group_members(finished.pid) == []
    assert not process_group_alive(finished.pid)
    stop_process_group(finished.pid, grace_seconds=0.1)
    ServiceProcess("never started", ["true"], tmp_path / "n.log").stop()


def test_log_tail_of_a_missing_file(tmp_path: Path) -> None:
    assert log_tail(tmp_path / "absent.log") == f"(no log at {tmp_path / 'absent.log'})"
