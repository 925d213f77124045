from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hedera_history.cli import doctor_cmd
from hedera_history.errors import PrerequisiteError
from hedera_history.localstack.prerequisites import Check

FINE = Check("Python >= 3.11", True, "Python 3.11.7")
NO_JAVA = Check("Java >= 17", False, "no java in PATH", "sudo apt-get install -y openjdk-17-jre-headless")
OPTIONAL = Check("something nice", False, "absent", "install it", required=False)


def test_format_check() -> None:
    assert doctor_cmd.format_check(FINE) == ["[      ok] Python >= 3.11: Python 3.11.7"]
    assert doctor_cmd.format_check(NO_JAVA) == [
        "[ missing] Java >= 17: no java in PATH",
        "           fix: sudo apt-get install -y openjdk-17-jre-headless",
    ]
    assert doctor_cmd.format_check(OPTIONAL)[0].startswith("[optional]")


def test_doctor_passes_when_only_optional_checks_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor_cmd, "run_checks", lambda: [FINE, OPTIONAL])
    result = CliRunner().invoke(doctor_cmd.doctor)
    assert result.exit_code == 0, result.output
    assert "[      ok] Python >= 3.11" in result.output
    assert "fix: install it" in result.output


def test_doctor_fails_and_prints_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(doctor_cmd, "run_checks", lambda: [FINE, NO_JAVA])
    result = CliRunner().invoke(doctor_cmd.doctor)
    assert isinstance(result.exception, PrerequisiteError)
    assert "1 required prerequisite(s) missing" in str(result.exception)
    assert "fix: sudo apt-get install -y openjdk-17-jre-headless" in result.output


def test_the_command_exits_1_when_something_required_is_missing(tmp_path: Path) -> None:
    # Only the virtualenv's bin folder on PATH: no java, no gcloud.
    env = {**os.environ, "PATH": str(Path(sys.executable).parent), "HOME": str(tmp_path)}
    env.pop("JAVA_HOME", None)
    done = subprocess.run(
        [sys.executable, "-m", "hedera_history.cli.main", "doctor"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "[ missing] Java >= 17" in done.stdout
    assert "https://cloud.google.com/sdk/docs/install" in done.stdout
    assert "error: " in done.stderr
