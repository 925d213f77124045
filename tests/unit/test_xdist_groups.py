"""``make test`` runs ``pytest -n 2 --dist loadgroup``: tests marked with the same ``xdist_group``
must run on one worker (the Spark tests share one session: a second worker must not start its own
Spark driver beside it). pytest-xdist 3.8 groups by rewriting ``item._nodeid``, which pytest 9.2 no
longer reads, so with that pair the mark was silently ignored; this runs a small suite in a
subprocess to check the grouping the installed versions really do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

GROUPED = """
import os
import pytest

pytestmark = pytest.mark.xdist_group("together")


@pytest.mark.parametrize("n", range(4))
def test_grouped(n):
    with open(os.environ["WHERE_FILE"], "a") as out:
        out.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")
"""

UNGROUPED = """
import time
import pytest


@pytest.mark.parametrize("n", range(8))
def test_filler(n):
    time.sleep(0.05)
"""


def test_an_xdist_group_runs_on_one_worker(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_a_grouped.py").write_text(GROUPED)
    (suite / "test_b_grouped.py").write_text(GROUPED)
    (suite / "test_c_filler.py").write_text(UNGROUPED)
    (suite / "pytest.ini").write_text("[pytest]\n")
    where = tmp_path / "where.txt"
    # Only xdist of the installed plugins: the others (Hypothesis, schemathesis, ...) take no part in
    # the grouping, and loading them into the two workers took most of this test's 10-30 s.
    command = [sys.executable, "-m", "pytest", "-p", "xdist.plugin", "-n", "2", "--dist", "loadgroup", "-q"]
    result = subprocess.run(
        [*command, "-p", "no:cacheprovider", str(suite)],
        capture_output=True,
        text=True,
        cwd=suite,
        # Without the variables of the pytest (and xdist worker) running this test.
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")},
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            "WHERE_FILE": str(where),
        },
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    workers = where.read_text().split()
    assert len(workers) == 8
    assert len(set(workers)) == 1, f"one xdist group ran on several workers: {sorted(workers)}"
