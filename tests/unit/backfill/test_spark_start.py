"""A local Spark driver JVM that exits at start-up is reported with what it printed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

START = """
from hedera_history.backfill.spark import spark_session
from hedera_history.errors import SparkStartError

try:
    spark_session("1")
except SparkStartError as e:
    print(e)
    raise SystemExit(3)
"""


def test_a_gateway_that_exits_at_start_is_a_spark_start_error_with_its_log(tmp_path: Path) -> None:
    # spark-submit runs $JAVA_HOME/bin/java: with no such JVM the gateway exits at once.
    env = {**os.environ, "JAVA_HOME": str(tmp_path / "no-jdk"), "TMPDIR": str(tmp_path)}
    env.pop("PYSPARK_GATEWAY_PORT", None)
    result = subprocess.run(
        [sys.executable, "-c", START], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert result.returncode == 3, result.stdout + result.stderr
    assert "Spark's Java gateway exited before it answered" in result.stdout
    assert f"{tmp_path / 'no-jdk'}/bin/java" in result.stdout
    (log,) = tmp_path.glob("hedera-history-spark-*.log")
    assert str(log) in result.stdout


def test_a_failed_jobs_error_is_the_python_error_at_its_root() -> None:
    from hedera_history.backfill.spark import _short  # noqa: PLC0415

    python = (
        "Traceback (most recent call last):\n"
        '  File "task.py", line 3, in run_partition\n'
        "    raise BackfillError('stopped on purpose after 3 blocks')\n"
        "hedera_history.errors.BackfillError: stopped on purpose after 3 blocks\n"
    )
    jvm = "\tat org.apache.spark.api.python.BasePythonRunner.handlePythonException(PythonRunner.scala:572)\n"
    spark_4 = "Job aborted due to stage failure: ... PythonException: \n" + python + jvm
    # Spark 3.5 repeats the traceback under "Caused by" and ends with the JVM's "... N more".
    spark_35 = spark_4 + "Caused by: org.apache.spark.api.python.PythonException: " + python + jvm + "\t... 1 more"
    expected = "hedera_history.errors.BackfillError: stopped on purpose after 3 blocks"
    assert _short(RuntimeError(spark_4)) == expected
    assert _short(RuntimeError(spark_35)) == expected
    assert _short(RuntimeError("no traceback at all")) == "no traceback at all"
