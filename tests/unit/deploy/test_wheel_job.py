"""What the wheel leaves out (``deploy.build.NOT_IN_THE_WHEEL``) the Dataproc job never imports:
``hedera-history backfill run`` parses its arguments in an interpreter where importing that
tooling fails."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from hedera_history.deploy.build import NOT_IN_THE_WHEEL

from tests.unit.deploy.infra import REPO

_WITHOUT_TOOLING = textwrap.dedent(
    """
    import importlib.abc
    import sys

    LEFT_OUT = tuple("hedera_history." + name for name in sys.argv[1].split(","))

    class LeftOut(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name in LEFT_OUT or name.startswith(tuple(package + "." for package in LEFT_OUT)):
                raise ModuleNotFoundError(f"{name} is not in the wheel")
            return None

    sys.meta_path.insert(0, LeftOut())
    sys.argv = ["hedera-history", "backfill", "run", "--help"]
    import hedera_history.cli.dataproc_job
    from hedera_history.cli.main import main

    main()
    """
)


def test_the_dataproc_job_runs_without_the_tooling_the_wheel_leaves_out() -> None:
    assert set(NOT_IN_THE_WHEEL) == {"deploy", "gen", "localstack"}
    result = subprocess.run(
        [sys.executable, "-c", _WITHOUT_TOOLING, ",".join(NOT_IN_THE_WHEEL)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "--address-book" in result.stdout
