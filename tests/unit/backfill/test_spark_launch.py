"""The JVM is started with no Python code run in the child: PySpark's preexec_fn is dropped for a
new session (which keeps terminal Ctrl-C from the JVM just as well)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("pyspark")

from hedera_history.backfill.spark import _popen_without_python_in_the_child


def test_the_child_runs_in_its_own_session_and_no_preexec_fn_runs() -> None:
    called: list[bool] = []
    child = _popen_without_python_in_the_child(
        [sys.executable, "-c", "import os; print(os.getsid(0))"],
        preexec_fn=lambda: called.append(True),
        stdout=subprocess.PIPE,
    )
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 0 and not called
    assert int(out) == child.pid != os.getsid(0)
