"""The Dataproc job runs on what the image holds: the wheel (no tooling, ``deploy.build.NOT_IN_THE_WHEEL``)
and the image's requirements (no click, no rich). It reads its arguments in an interpreter where
importing any of those fails."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from hedera_history.backfill import runtime
from hedera_history.deploy.build import NOT_IN_THE_WHEEL
from hedera_history.deploy.layers import TOOLING

from tests.unit.deploy.infra import REPO

_WITHOUT_TOOLING = textwrap.dedent(
    """
    import importlib.abc
    import runpy
    import sys

    LEFT_OUT = (*("hedera_history." + name for name in sys.argv[1].split(",")), "click", "rich")

    class LeftOut(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name in LEFT_OUT or name.startswith(tuple(package + "." for package in LEFT_OUT)):
                raise ModuleNotFoundError(f"{name} is not in the image")
            return None

    sys.meta_path.insert(0, LeftOut())
    sys.argv = [sys.argv[2], "--help"]
    runpy.run_path(sys.argv[0], run_name="__main__")
    """
)


def test_the_dataproc_job_runs_without_the_tooling_the_wheel_leaves_out() -> None:
    assert set(NOT_IN_THE_WHEEL) == set(TOOLING) == {"cli", "deploy", "gen", "localstack"}
    result = subprocess.run(
        [sys.executable, "-c", _WITHOUT_TOOLING, ",".join(NOT_IN_THE_WHEEL), str(REPO / runtime.JOB_FILE)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "--address-book" in result.stdout
