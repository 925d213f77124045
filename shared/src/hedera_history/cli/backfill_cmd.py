"""``hedera-history backfill run|submit``: verify a range of a bucket and write it into Bigtable with Spark.

``run`` plans the range here and runs it on Spark (``--local[=N]`` for local mode; without it, the
master ``spark-submit`` configured, as on Dataproc). ``submit`` packages the library and sends the
same ``run`` to Dataproc (a Serverless batch by default, an existing cluster with ``--cluster``).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from hedera_history import logs
from hedera_history.backfill import job_spec
from hedera_history.backfill.block_driver import BlockBackfillReport
from hedera_history.backfill.cutover import HistoryReport
from hedera_history.backfill.job_spec import LAYOUTS, JobArguments
from hedera_history.backfill.partition_messages import BackfillJob
from hedera_history.backfill.runtime import RUNTIME_VERSION as DATAPROC_RUNTIME
from hedera_history.cli.common import network_options
from hedera_history.config import Settings
from hedera_history.errors import JobArgumentError
from hedera_history.name_values import name_values


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
            "--start",
            default="",
            help="First period time: 2024-06-01, 2024-06-01T00:00:00Z, stream form or ns (record files).",
        ),
        click.option("--end", default="", help="End of the range (exclusive), same forms as --start (record files)."),
        click.option(
            "--blocks",
            is_flag=True,
            help="SOURCE holds block files (HIP-1056): the range is --first-block to --last-block. Without SOURCE, "
            "the --network preset's block bucket.",
        ),
        click.option(
            "--block-node",
            default=None,
            metavar="HOST:PORT[,...]",
            help="Read blocks --first-block to --last-block from these block nodes (gRPC) instead of SOURCE.",
        ),
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
    from hedera_history.backfill.launch import launch_backfill, launch_block_backfill  # noqa: PLC0415 (Spark)

    if job_spec.is_block_job(JobArguments.from_params(params)):
        _run_blocks(ctx, params, launch_block_backfill)
        return
    job = _job(params)
    if params["local"] is None:
        # On a cluster nobody watches a progress bar: the driver logs JSON lines instead.
        logs.configure("backfill", job.settings.log_level)
    console = Console(stderr=True)
    with Progress(*_columns(), console=console, transient=True) as progress:
        report = launch_backfill(
            job,
            local_cores=params["local"],
            create_tables=params["create_tables"],
            listener=_ProgressListener(progress),
        )
    _show(ctx, params, report)


def _show(ctx: click.Context, params: dict[str, Any], report: HistoryReport | BlockBackfillReport) -> None:
    """The report as JSON (``--json``, ``--report``) or its summary; exit 1 unless it is ok."""
    data = report.to_json()
    if params["report_path"] is not None:
        params["report_path"].write_text(json.dumps(data, indent=1) + "\n")
    if params["as_json"]:
        click.echo(json.dumps(data, indent=1))
    else:
        for line in report.summary_lines():
            click.echo(line, err=True)
    if not report.ok:
        ctx.exit(1)


def _run_blocks(ctx: click.Context, params: dict[str, Any], launch: Callable[..., BlockBackfillReport]) -> None:
    with _usage_errors():
        job = job_spec.build_block_job(JobArguments.from_params(params))
    if params["local"] is None:
        logs.configure("backfill", job.settings.log_level)
    _show(ctx, params, launch(job, local_cores=params["local"], create_tables=params["create_tables"]))


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

    The batch runs the project installed in the container image Cloud Build makes (backfill/Dockerfile);
    without one it is refused. --dry-run prints the batch (image, runtime, identity, staging,
    arguments) and the gcloud command, and calls nothing.
    """
    from hedera_history.deploy import dataproc  # noqa: PLC0415

    args = JobArguments.from_params(params)
    with _usage_errors():
        job_spec.apply_env(args)
        settings = job_spec.job_settings(args)
        staging = params["staging_url"] or settings.dataproc_staging_url
        if not staging:
            raise click.UsageError("a staging location is needed: --staging-url gs://bucket/prefix")
        properties = name_values(params["properties"], "--property")
        book = _submitted_book(args, settings)
    local_book = Path(book) if book and "://" not in book else None
    if local_book is not None and not local_book.is_file():
        raise click.UsageError(f"no address book at {local_book}")
    job_args = [*job_spec.forwarded_args(args), *dataproc.forwarded_environment(os.environ)]
    if book and not args.address_book:
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
            properties=properties,
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


def _submitted_book(args: JobArguments, settings: Settings) -> str:
    """The book the job reads, its arguments checked first (a block job needs none but the one given)."""
    if job_spec.is_block_job(args):
        job_spec.build_block_job(args)
        return args.address_book or ""
    start = job_spec.job_time(args.start, "--start")
    job_spec.job_time(args.end, "--end")
    job_spec.source_url(args, settings)
    return job_spec.book_location(args, settings, start)


def _job(params: dict[str, Any]) -> BackfillJob:
    with _usage_errors():
        return job_spec.build_job(JobArguments.from_params(params))


def _parse_time(text: str, option: str) -> int:
    with _usage_errors():
        return job_spec.job_time(text, option)


@contextmanager
def _usage_errors() -> Iterator[None]:
    """The library's complaints about a job's arguments, shown as click's usage errors (exit 2)."""
    try:
        yield
    except JobArgumentError as e:
        if e.option is not None:
            raise click.BadParameter(e.reason, param_hint=e.option) from e
        raise click.UsageError(e.reason) from e


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
