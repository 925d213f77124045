"""``hedera-history backfill run|submit``: verify a range of a bucket and write it into Bigtable with Spark.

``run`` plans the range here and runs it on Spark (``--local[=N]`` for local mode; without it, the
master ``spark-submit`` configured, as on Dataproc). ``submit`` packages the library and sends the
same ``run`` to Dataproc (a Serverless batch by default, an existing cluster with ``--cluster``).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from hedera_history import logs
from hedera_history.backfill.partition_messages import BackfillJob
from hedera_history.backfill.runtime import RUNTIME_VERSION as DATAPROC_RUNTIME
from hedera_history.cli.common import bootstrap_book_location, network_options
from hedera_history.cli.common import consensus_ratio as consensus_ratio_of
from hedera_history.config import Settings
from hedera_history.errors import ConfigError
from hedera_history.formats.stream_paths import BucketLayout
from hedera_history.networks import network_named
from hedera_history.sources.period_files import StreamLocation
from hedera_history.times import parse_time

LAYOUTS = {"account": BucketLayout.ACCOUNT, "node-id": BucketLayout.NODE_ID}

# (parameter name, flag) of every ``run`` option that ``submit`` passes on to the job.
_FORWARDED_FLAGS = (
    ("address_book", "--address-book"),
    ("start", "--start"),
    ("end", "--end"),
    ("first_block", "--first-block"),
    ("last_block", "--last-block"),
    ("layout", "--layout"),
    ("network", "--network"),
    ("network_folder", "--network-folder"),
    ("block_pin", "--block-pin"),
    ("shard", "--shard"),
    ("partitions", "--partitions"),
    ("periods_per_partition", "--periods-per-partition"),
    ("project", "--project"),
    ("instance", "--instance"),
    ("table_prefix", "--table-prefix"),
    ("consensus_ratio", "--consensus-ratio"),
    ("start_block", "--start-block"),
    ("requester_pays_project", "--requester-pays-project"),
)
_FORWARDED_SWITCHES = (
    ("reprocess", "--reprocess", None),
    ("sidecars", "--sidecars", "--no-sidecars"),
    ("s3_requester_pays", "--s3-requester-pays", "--no-s3-requester-pays"),
    ("create_tables", "--create-tables", "--no-create-tables"),
)


def _job_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options of a backfill job, shared by ``run`` and ``submit``."""
    options: list[Callable[[Any], Any]] = [
        click.argument("source", required=False),
        click.option(
            "--address-book",
            default=None,
            help="NodeAddressBook (0.0.102) in force at the range's first period: a path, gs:// or s3:// URL "
            "[HEDERA_HISTORY_ADDRESS_BOOK].",
        ),
        click.option(
            "--start", required=True, help="First period time: 2024-06-01, 2024-06-01T00:00:00Z, stream form or ns."
        ),
        click.option("--end", required=True, help="End of the range (exclusive), same forms as --start."),
        click.option("--first-block", type=int, default=None, help="Only blocks from this number on."),
        click.option("--last-block", type=int, default=None, help="Only blocks up to this number (inclusive)."),
        click.option(
            "--layout",
            type=click.Choice(sorted(LAYOUTS)),
            default=None,
            help="Bucket layout: recordstreams/record<account>/ or <network>/<shard>/<nodeId>/record/ "
            "(default: the network preset's, else account).",
        ),
        network_options,
        click.option(
            "--network-folder",
            default=None,
            help="First folder of the node-id layout (default: the --network preset's name, e.g. mainnet).",
        ),
        click.option("--shard", type=int, default=0, show_default=True, help="Shard folder of the node-id layout."),
        click.option("--partitions", type=int, default=None, help="Number of Spark tasks (default: by size)."),
        click.option(
            "--periods-per-partition",
            type=int,
            default=None,
            help="Periods per task when --partitions is not given [HEDERA_HISTORY_BACKFILL_PERIODS_PER_PARTITION].",
        ),
        click.option("--reprocess", is_flag=True, help="Verify and write periods already complete too."),
        click.option("--project", default=None, help="Google Cloud project [GOOGLE_CLOUD_PROJECT]."),
        click.option("--instance", default=None, help="Bigtable instance id [HEDERA_HISTORY_BIGTABLE_INSTANCE]."),
        click.option("--table-prefix", default=None, help="Prefix of every table id [HEDERA_HISTORY_TABLE_PREFIX]."),
        click.option(
            "--consensus-ratio", default=None, help="Share of stake that must sign [HEDERA_HISTORY_CONSENSUS_RATIO]."
        ),
        click.option(
            "--start-block", type=int, default=None, help="First block number before V6 [HEDERA_HISTORY_START_BLOCK]."
        ),
        click.option(
            "--sidecars/--no-sidecars",
            default=None,
            help="Verify and store sidecars [HEDERA_HISTORY_SIDECARS_ENABLED].",
        ),
        click.option(
            "--requester-pays-project",
            default=None,
            help="Project billed for requester-pays GCS buckets [HEDERA_HISTORY_REQUESTER_PAYS_PROJECT].",
        ),
        click.option(
            "--s3-requester-pays/--no-s3-requester-pays",
            default=None,
            help="Send RequestPayer=requester to S3 [HEDERA_HISTORY_S3_REQUESTER_PAYS].",
        ),
        click.option(
            "--create-tables/--no-create-tables",
            default=True,
            show_default=True,
            help="Create missing tables and families first.",
        ),
        click.option(
            "--env",
            "env",
            multiple=True,
            metavar="NAME=VALUE",
            help="Set an environment variable (a setting) before reading the configuration.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.group("backfill")
def backfill() -> None:
    """Backfill or reprocess a range of a bucket into Bigtable with Spark."""


@backfill.command("run")
@_job_options
@click.option(
    "--local",
    "local",
    is_flag=False,
    flag_value="*",
    default=None,
    metavar="[N]",
    help="Spark local mode with N cores (--local alone: every core); without it, the master spark-submit set.",
)
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the JSON report.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report instead of the summary.")
@click.option("--fail-after-blocks", type=int, default=None, hidden=True, help="Test hook: tasks stop after N blocks.")
@click.pass_context
def run(ctx: click.Context, /, **params: Any) -> None:
    """Verify every period of SOURCE in the range and write the blocks (gs://, s3:// or a directory).

    Without SOURCE, a --network preset's bucket on GCS (gs://hedera-mainnet-streams for mainnet).

    Periods already complete are skipped unless --reprocess; a run that stopped goes on where it
    stopped. Exits 0 only when every period verified and was written and every link checked out.
    """
    from hedera_history.backfill.driver import run_backfill  # noqa: PLC0415 (Spark loads only here)
    from hedera_history.backfill.spark import spark_executor, spark_session  # noqa: PLC0415
    from hedera_history.sources.base import open_source  # noqa: PLC0415
    from hedera_history.store.bigtable_client import open_admin_instance, open_gateway  # noqa: PLC0415
    from hedera_history.store.schema import ensure_tables  # noqa: PLC0415

    job = _job(params)
    settings = job.settings
    if params["local"] is None:
        # On a cluster nobody watches a progress bar: the driver logs JSON lines instead.
        logs.configure("backfill", settings.log_level)
    if params["create_tables"]:
        ensure_tables(open_admin_instance(settings), settings)
    console = Console(stderr=True)
    from pyspark.sql import SparkSession  # noqa: PLC0415

    existing = SparkSession.getActiveSession()
    spark = spark_session(params["local"])
    gateway = open_gateway(settings)
    try:
        with Progress(*_columns(), console=console, transient=True) as progress:
            report = run_backfill(
                job,
                spark_executor(spark, job),
                gateway=gateway,
                source=open_source(job.source_url, settings),
                listener=_ProgressListener(progress),
            )
    finally:
        gateway.close()
        if existing is None and params["local"] is not None:
            spark.stop()
    data = report.to_json()
    if params["report_path"] is not None:
        params["report_path"].write_text(json.dumps(data, indent=1) + "\n")
    if params["as_json"]:
        click.echo(json.dumps(data, indent=1))
    else:
        for line in report.summary_lines():
            console.print(line, markup=False, highlight=False)
    if not report.ok:
        ctx.exit(1)


@backfill.command("submit")
@_job_options
@click.option("--cluster", default=None, help="Submit to this existing Dataproc cluster instead of a batch.")
@click.option("--region", default=None, help="Dataproc region [HEDERA_HISTORY_DATAPROC_REGION].")
@click.option(
    "--staging-url", default=None, help="gs://bucket/prefix for the uploads [HEDERA_HISTORY_DATAPROC_STAGING_URL]."
)
@click.option(
    "--container-image",
    default=None,
    help="The batch's image in full (default: --image-repository at --image-tag) "
    "[HEDERA_HISTORY_DATAPROC_CONTAINER_IMAGE].",
)
@click.option(
    "--image-repository",
    default=None,
    help="Where Cloud Build pushes the backfill image (Terraform sets it) [HEDERA_HISTORY_DATAPROC_IMAGE_REPOSITORY].",
)
@click.option(
    "--image-tag",
    default=None,
    help="The image's tag: a commit, or main for the newest main build [HEDERA_HISTORY_DATAPROC_IMAGE_TAG].",
)
@click.option(
    "--wheel",
    "ship_wheel",
    is_flag=True,
    help="Also ship this checkout as a wheel (--py-files), run instead of the image's copy of the project.",
)
@click.option(
    "--service-account",
    default=None,
    help="Identity the batch runs as (Terraform output backfill_service_account) "
    "[HEDERA_HISTORY_DATAPROC_SERVICE_ACCOUNT].",
)
@click.option(
    "--runtime-version",
    default=None,
    help=f"Serverless runtime version (default the pinned {DATAPROC_RUNTIME}, the Spark the tests run).",
)
@click.option("--batch", "batch_id", default=None, help="Batch (or cluster job) id; default from the time.")
@click.option("--property", "properties", multiple=True, metavar="KEY=VALUE", help="An extra Spark property.")
@click.option("--dry-run", is_flag=True, help="Print what would be uploaded and submitted, and stop.")
@click.pass_context
def submit(ctx: click.Context, /, **params: Any) -> None:
    """Submit the backfill of SOURCE to Dataproc: a Serverless batch on the backfill's image, or a cluster job.

    The batch runs the project installed in the container image Cloud Build makes (dataproc-image/);
    without one it is refused. --dry-run prints the batch (image, runtime, identity, staging,
    arguments) and the gcloud command, and calls nothing.
    """
    from hedera_history.deploy import dataproc  # noqa: PLC0415

    _apply_env(params["env"])
    settings = _settings(params)
    staging = params["staging_url"] or settings.dataproc_staging_url
    if not staging:
        raise click.UsageError("a staging location is needed: --staging-url gs://bucket/prefix")
    start = _parse_time(params["start"], "--start")
    _parse_time(params["end"], "--end")
    _source_url(params, settings)
    book = params["address_book"] or bootstrap_book_location(settings, start)
    local_book = Path(book) if book and "://" not in book else None
    if local_book is not None and not local_book.is_file():
        raise click.UsageError(f"no address book at {local_book}")
    job_args = [*_forwarded_args(params), *dataproc.forwarded_environment(os.environ)]
    if book and not params["address_book"]:
        job_args += ["--address-book", book]
    cluster = params["cluster"]
    image = ""
    if not cluster:
        image = dataproc.resolve_container_image(
            params["container_image"] or settings.dataproc_container_image,
            params["image_repository"] or settings.dataproc_image_repository,
            params["image_tag"] or settings.dataproc_image_tag,
        )
    with tempfile.TemporaryDirectory(prefix="hedera-history-submit-") as scratch:
        dry_run = params["dry_run"]
        wheel: Path | None = None
        if cluster or params["ship_wheel"]:
            wheel = Path(scratch) / dataproc.WHEEL_NAME if dry_run else dataproc.build_wheel(Path(scratch))
        target = dataproc.SubmitTarget(
            project=settings.project,
            region=params["region"] or settings.dataproc_region,
            cluster=cluster,
            container_image=image,
            service_account=params["service_account"] or settings.dataproc_service_account,
            runtime_version=params["runtime_version"] or dataproc.DEFAULT_RUNTIME_VERSION,
        )
        plan = dataproc.plan_submission(
            job_args,
            target,
            staging_url=staging,
            batch_id=params["batch_id"] or dataproc.new_batch_id(),
            wheel=wheel,
            address_book=local_book,
            properties=_key_values(params["properties"], "--property"),
        )
        if dry_run:
            if wheel is not None:
                click.echo(f"would build {wheel.name} from {dataproc.project_root()}")
            for line in plan.describe():
                click.echo(line)
            return
        dataproc.upload(plan, settings)
        code = dataproc.submit(plan)
    if code != 0:
        ctx.exit(code)


# ---- helpers ---------------------------------------------------------------------------------------


def _job(params: dict[str, Any]) -> BackfillJob:
    _apply_env(params["env"])
    settings = _settings(params)
    preset = network_named(settings.network)
    layout = LAYOUTS[params["layout"]] if params["layout"] else preset.layout if preset else BucketLayout.ACCOUNT
    folder = params["network_folder"] or (preset.node_id_folder if preset else "")
    if layout is BucketLayout.NODE_ID and not folder:
        raise click.UsageError("the node-id layout needs --network-folder (the first folder) or a --network preset")
    start, end = _parse_time(params["start"], "--start"), _parse_time(params["end"], "--end")
    if end <= start:
        raise click.UsageError("--end must be after --start")
    return BackfillJob(
        source_url=_source_url(params, settings),
        location=StreamLocation(layout, "", folder, params["shard"]),
        settings=settings,
        book=_read_address_book(params["address_book"] or bootstrap_book_location(settings, start), settings),
        start_ns=start,
        end_ns=end,
        ratio=consensus_ratio_of(params["consensus_ratio"], settings),
        first_block=params["first_block"],
        last_block=params["last_block"],
        reprocess=params["reprocess"],
        partitions=params["partitions"],
        fail_after_blocks=params.get("fail_after_blocks"),
    )


def _settings(params: dict[str, Any]) -> Settings:
    return Settings.from_env(
        project=params["project"],
        bigtable_instance=params["instance"],
        table_prefix=params["table_prefix"],
        start_block=params["start_block"],
        sidecars_enabled=params["sidecars"],
        requester_pays_project=params["requester_pays_project"],
        s3_requester_pays=params["s3_requester_pays"],
        backfill_periods_per_partition=params["periods_per_partition"],
        network=params["network"],
        block_pin=params["block_pin"],
    )


def _source_url(params: dict[str, Any], settings: Settings) -> str:
    """SOURCE, or the network preset's bucket on GCS."""
    if params["source"]:
        return str(params["source"])
    if network_named(settings.network) is None:
        raise click.UsageError("SOURCE is needed (gs://, s3:// or a directory) unless --network names a preset")
    prefix = settings.stream_prefix.strip("/")
    return f"gs://{settings.stream_bucket}" + (f"/{prefix}" if prefix else "")


def _apply_env(pairs: tuple[str, ...]) -> None:
    os.environ.update(_key_values(pairs, "--env"))


def _key_values(pairs: tuple[str, ...], option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise click.UsageError(f"{option} takes KEY=VALUE, got {pair!r}")
        out[key] = value
    return out


def _parse_time(text: str, option: str) -> int:
    try:
        return parse_time(text)
    except ConfigError as e:
        raise click.BadParameter(str(e), param_hint=option) from e


def _read_address_book(location: str, settings: Settings) -> bytes:
    """The bootstrap book's bytes from a path or a gs:// / s3:// URL (checked to parse)."""
    from hedera_history.books.parse import parse_address_book  # noqa: PLC0415
    from hedera_history.sources.address_book_file import read_address_book_bytes  # noqa: PLC0415

    if not location:
        raise click.UsageError("an address book is needed: --address-book FILE|URL or HEDERA_HISTORY_ADDRESS_BOOK")
    data = read_address_book_bytes(location, settings)
    parse_address_book(data, location)
    return data


def _forwarded_args(params: dict[str, Any]) -> list[str]:
    args = [params["source"]] if params["source"] else []
    for name, flag in _FORWARDED_FLAGS:
        if params.get(name) not in (None, ""):
            args += [flag, str(params[name])]
    for name, on, off in _FORWARDED_SWITCHES:
        value = params.get(name)
        if value is True:
            args.append(on)
        elif value is False and off is not None:
            args.append(off)
    return args


class _ProgressListener:
    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.listing: TaskID = progress.add_task("listing periods", total=None)
        self.wave: TaskID | None = None

    def listed(self, periods: int) -> None:
        self.progress.update(self.listing, completed=periods, description=f"listed {periods} period(s)")

    def wave_started(self, wave: int, partitions: int) -> None:
        self.progress.update(self.listing, total=1, completed=1)
        if self.wave is not None:
            self.progress.update(self.wave, visible=False)
        title = "partitions" if wave == 1 else f"wave {wave}: partitions run again"
        self.wave = self.progress.add_task(title, total=partitions)

    def partitions_done(self, done: int) -> None:
        if self.wave is not None:
            self.progress.update(self.wave, completed=done)


def _columns() -> tuple[Any, ...]:
    return (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
