"""The only module that imports PySpark: a session, and an executor that maps partitions over it.

Each partition becomes one Spark task (``parallelize`` with one slice per partition) running
:func:`~hedera_history.backfill.task.run_partition` in an executor's Python worker; only the small
summaries come back (``collect``). While a wave runs, a thread polls Spark's status tracker and
reports the number of finished tasks.

In local mode this module starts the driver JVM (PySpark's Java gateway) itself, with its output in
a log file, so that a JVM that exits at start-up is reported with what it printed
(:class:`~hedera_history.errors.SparkStartError`) rather than PySpark's bare "exited before sending
its port number".
"""

from __future__ import annotations

import functools
import logging
import os
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from py4j.protocol import Py4JError
from pyspark import SparkConf, SparkContext, java_gateway
from pyspark.errors import PySparkException, PySparkRuntimeError
from pyspark.java_gateway import launch_gateway
from pyspark.sql import SparkSession

from hedera_history.backfill.block_driver import BlockExecutor
from hedera_history.backfill.block_plan import BlockJob, BlockPartition
from hedera_history.backfill.block_task import BlockSummary, run_block_partition
from hedera_history.backfill.driver import ParallelExecutor
from hedera_history.backfill.partition_messages import BackfillJob, PartitionRun, PartitionSummary
from hedera_history.backfill.task import run_partition
from hedera_history.errors import BackfillError, SparkStartError
from hedera_history.logs import event, log_tail

logger = logging.getLogger(__name__)

APP_NAME = "hedera-history-backfill"
POLL_SECONDS = 0.5
MAX_ERROR_CHARS = 4000

JOB_PROPERTIES = {
    # A speculative copy of a task would verify and write the same partition twice (harmless, wasted).
    "spark.speculation": "false",
    "spark.python.worker.reuse": "true",
}
LOCAL_PROPERTIES = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
}


def spark_session(local_cores: str | None = None) -> SparkSession:
    """The session: ``local[N]`` when ``local_cores`` is given (``"*"``: every core), else the
    master ``spark-submit`` (Dataproc) configured. An existing session is reused."""
    builder = SparkSession.builder.appName(APP_NAME)
    properties = dict(JOB_PROPERTIES)
    if local_cores is not None:
        master = f"local[{local_cores}]"
        builder = builder.master(master)
        properties.update(LOCAL_PROPERTIES)
        # Python workers must run this interpreter (the one with the library), not ``python3`` on
        # the PATH; PySpark reads only the variable when the driver starts the context itself.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        # Everything binds to loopback; without this the JVM resolves the host name and scans the
        # network interfaces for an address it would not use.
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        _start_local_context(SparkConf().setMaster(master).setAppName(APP_NAME).setAll(list(properties.items())))
    for key, value in properties.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def _start_local_context(conf: SparkConf) -> None:
    """Start the driver JVM with its output in a log file and a context on it, unless this process
    has one already (PySpark keeps one JVM per process and reuses it after ``stop()``)."""
    if SparkContext._gateway is not None or SparkContext._active_spark_context is not None:
        return
    log_path = Path(tempfile.gettempdir()) / f"hedera-history-spark-{os.getpid()}.log"
    with log_path.open("wb") as log:
        try:
            java_gateway.Popen = _popen_without_python_in_the_child
            gateway = launch_gateway(conf, popen_kwargs={"stdout": log, "stderr": subprocess.STDOUT})
        except PySparkRuntimeError as e:
            raise SparkStartError(
                f"Spark's Java gateway exited before it answered; log {log_path} ends with:\n{log_tail(log_path)}"
            ) from e
        finally:
            java_gateway.Popen = subprocess.Popen
    SparkContext(conf=conf, gateway=gateway)


def _popen_without_python_in_the_child(command: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
    """PySpark starts the JVM with a ``preexec_fn`` (ignore SIGINT), which makes Python fork and run
    code in the child before exec: in a process whose gRPC clients are live (Bigtable, Pub/Sub),
    gRPC's poller then failed in the child under load ("epoll_wait error: Bad file descriptor" in
    the JVM's log, no JVM: "Java gateway exited"). A new session keeps terminal Ctrl-C from the JVM
    just as well and needs no Python in the child, so the child is spawned and execs at once."""
    kwargs.pop("preexec_fn", None)
    return subprocess.Popen(command, start_new_session=True, **kwargs)


def spark_executor(spark: SparkSession, job: BackfillJob) -> ParallelExecutor:
    """Run each wave's partitions as the tasks of one Spark job, as many at once as the session's
    default parallelism."""

    def execute(runs: Sequence[PartitionRun], done: Callable[[int], None]) -> list[PartitionSummary]:
        context = spark.sparkContext
        group = f"backfill-{uuid.uuid4().hex[:12]}"
        context.setJobGroup(group, f"backfill {len(runs)} partition(s)", interruptOnCancel=True)
        stop = threading.Event()
        poller = threading.Thread(target=_poll, args=(context, group, done, stop), daemon=True)
        poller.start()
        try:
            task = functools.partial(run_partition, job)
            summaries: list[PartitionSummary] = context.parallelize(list(runs), len(runs)).map(task).collect()
        except (Py4JError, PySparkException) as e:
            raise BackfillError(f"the Spark job failed: {_short(e)}") from e
        finally:
            stop.set()
            poller.join()
        done(len(summaries))
        return summaries

    return ParallelExecutor(execute, max(1, int(spark.sparkContext.defaultParallelism)))


def spark_block_executor(spark: SparkSession) -> BlockExecutor:
    """Run a block backfill's partitions as the tasks of one Spark job."""

    def execute(job: BlockJob, partitions: Sequence[BlockPartition]) -> list[BlockSummary]:
        context = spark.sparkContext
        context.setJobGroup(
            f"backfill-blocks-{uuid.uuid4().hex[:12]}", f"backfill {len(partitions)} block partition(s)"
        )
        task = functools.partial(run_block_partition, job)
        try:
            summaries: list[BlockSummary] = context.parallelize(list(partitions), len(partitions)).map(task).collect()
        except (Py4JError, PySparkException) as e:
            raise BackfillError(f"the Spark job failed: {_short(e)}") from e
        return summaries

    return execute


def _poll(context: Any, group: str, done: Callable[[int], None], stop: threading.Event) -> None:
    tracker = context.statusTracker()
    reported = -1
    while not stop.wait(POLL_SECONDS):
        finished = 0
        for job_id in tracker.getJobIdsForGroup(group):
            info = tracker.getJobInfo(job_id)
            for stage_id in info.stageIds if info is not None else ():
                stage = tracker.getStageInfo(stage_id)
                finished += stage.numCompletedTasks if stage is not None else 0
        if finished != reported:
            reported = finished
            done(finished)
            event(logger, "backfill tasks finished", level=logging.DEBUG, finished=finished)


def _short(error: BaseException) -> str:
    """The Python error at the root of a failed Spark job, without the JVM stack."""
    text = str(error)
    marker = text.rfind("Traceback (most recent call last)")
    if marker >= 0:
        # The Python traceback ends where the JVM's stack resumes: tab-indented "at ..." frames and,
        # on Spark 3.5, "... N more" after a "Caused by"; its last unindented line is the error.
        python: list[str] = []
        for line in text[marker:].splitlines()[1:]:
            if line.startswith("\t"):
                break
            python.append(line)
        text = next((line for line in reversed(python) if line and not line.startswith(" ")), text)
    return text[:MAX_ERROR_CHARS]
