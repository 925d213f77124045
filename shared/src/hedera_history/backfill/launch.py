"""Run a backfill job on Spark: the tables first, a session, the driver, everything closed after.

``hedera-history backfill run`` and the Dataproc job both come here with a built
:class:`~hedera_history.backfill.partition_messages.BackfillJob` (record files, and the blocks after
its network's cutover) or :class:`~hedera_history.backfill.block_plan.BlockJob` (blocks alone); only
what they show differs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pyspark.sql import SparkSession

from hedera_history.backfill.block_driver import BlockBackfillReport, run_block_backfill
from hedera_history.backfill.block_plan import BlockJob
from hedera_history.backfill.cutover import HistoryReport, blocks_after_records, run_through_cutover
from hedera_history.backfill.driver import BackfillListener
from hedera_history.backfill.partition_messages import BackfillJob
from hedera_history.backfill.spark import spark_block_executor, spark_executor, spark_session
from hedera_history.config import Settings
from hedera_history.sources.base import open_source
from hedera_history.store.bigtable_client import BigtableDataGateway, open_admin_instance, open_gateway
from hedera_history.store.schema import ensure_tables


@contextmanager
def _on_spark(
    settings: Settings, local_cores: str | None, create_tables: bool
) -> Iterator[tuple[SparkSession, BigtableDataGateway]]:
    """The tables made (when asked), a session and a gateway; closed after, and a local session this
    call started stopped."""
    if create_tables:
        ensure_tables(open_admin_instance(settings), settings)
    existing = SparkSession.getActiveSession()
    spark = spark_session(local_cores)
    gateway = open_gateway(settings)
    try:
        yield spark, gateway
    finally:
        gateway.close()
        if existing is None and local_cores is not None:
            spark.stop()


def _parallelism(spark: SparkSession) -> int:
    return max(1, int(spark.sparkContext.defaultParallelism))


def launch_backfill(
    job: BackfillJob,
    *,
    local_cores: str | None = None,
    create_tables: bool = True,
    listener: BackfillListener | None = None,
) -> HistoryReport:
    """Run ``job`` (and, past its network's cutover, the blocks after it: ``backfill.cutover``): in
    Spark local mode with ``local_cores`` (``"*"``: every core), else on the master ``spark-submit``
    configured."""
    with _on_spark(job.settings, local_cores, create_tables) as (spark, gateway):
        return run_through_cutover(
            job,
            blocks_after_records(job),
            spark_executor(spark, job),
            spark_block_executor(spark),
            gateway=gateway,
            source=open_source(job.source_url, job.settings),
            listener=listener,
            parallelism=_parallelism(spark),
        )


def launch_block_backfill(
    job: BlockJob, *, local_cores: str | None = None, create_tables: bool = True
) -> BlockBackfillReport:
    """Run a block backfill as :func:`launch_backfill` runs a record one."""
    with _on_spark(job.settings, local_cores, create_tables) as (spark, gateway):
        return run_block_backfill(job, spark_block_executor(spark), gateway, parallelism=_parallelism(spark))
