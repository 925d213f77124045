"""Run a backfill job on Spark: the tables first, a session, the driver, everything closed after.

``hedera-history backfill run`` and the Dataproc job both come here with a built
:class:`~hedera_history.backfill.partition_messages.BackfillJob`; only what they show differs.
"""

from __future__ import annotations

from pyspark.sql import SparkSession

from hedera_history.backfill.block_driver import BlockBackfillReport, run_block_backfill
from hedera_history.backfill.block_plan import BlockJob
from hedera_history.backfill.cutover import HistoryReport, blocks_after_records, run_through_cutover
from hedera_history.backfill.driver import BackfillListener
from hedera_history.backfill.partition_messages import BackfillJob
from hedera_history.backfill.spark import spark_block_executor, spark_executor, spark_session
from hedera_history.sources.base import open_source
from hedera_history.store.bigtable_client import open_admin_instance, open_gateway
from hedera_history.store.schema import ensure_tables


def launch_backfill(
    job: BackfillJob,
    *,
    local_cores: str | None = None,
    create_tables: bool = True,
    listener: BackfillListener | None = None,
) -> HistoryReport:
    """Run ``job`` (and, past its network's cutover, the blocks after it: ``backfill.cutover``): in
    Spark local mode with ``local_cores`` (``"*"``: every core), else on the master ``spark-submit``
    configured. A local session this call started is stopped at the end."""
    settings = job.settings
    if create_tables:
        ensure_tables(open_admin_instance(settings), settings)
    existing = SparkSession.getActiveSession()
    spark = spark_session(local_cores)
    gateway = open_gateway(settings)
    try:
        return run_through_cutover(
            job,
            blocks_after_records(job),
            spark_executor(spark, job),
            spark_block_executor(spark),
            gateway=gateway,
            source=open_source(job.source_url, settings),
            listener=listener,
            parallelism=max(1, int(spark.sparkContext.defaultParallelism)),
        )
    finally:
        gateway.close()
        if existing is None and local_cores is not None:
            spark.stop()


def launch_block_backfill(
    job: BlockJob, *, local_cores: str | None = None, create_tables: bool = True
) -> BlockBackfillReport:
    """Run a block backfill as :func:`launch_backfill` runs a record one."""
    settings = job.settings
    if create_tables:
        ensure_tables(open_admin_instance(settings), settings)
    existing = SparkSession.getActiveSession()
    spark = spark_session(local_cores)
    gateway = open_gateway(settings)
    try:
        parallelism = max(1, int(spark.sparkContext.defaultParallelism))
        return run_block_backfill(job, spark_block_executor(spark), gateway, parallelism=parallelism)
    finally:
        gateway.close()
        if existing is None and local_cores is not None:
            spark.stop()
