"""``backfill submit``: stage the job and hand it to Dataproc.

What is submitted:

- ``backfill/dataproc_job.py`` (from the checkout, beside the image's recipe) as the main Python
  file: it runs the job its arguments describe (the flags of ``hedera-history backfill run``,
  :mod:`hedera_history.backfill.job_spec`) against the master Dataproc configured;
- for a Serverless batch, the custom container image that holds the project and its pinned
  dependencies (backfill/Dockerfile, built by Cloud Build): Dataproc's own images lack
  ``hiero-sdk-python`` and protobuf 7, so a batch without it is refused (:class:`BackfillImageError`);
- for a cluster (which has no such image), or with ``--wheel``, the project as a wheel built from
  the checkout (``--py-files``: Spark puts it on the path of the driver and of every executor);
- the address book, when it is a local file, so the driver can read it from the staging bucket.

By default a Serverless batch is created (``gcloud dataproc batches submit pyspark``) on the pinned
runtime (:mod:`hedera_history.backfill.runtime`); with a cluster name the job goes to that cluster
(``gcloud dataproc jobs submit pyspark``). The gcloud command is the interface, so a dry run prints
exactly what would run.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from hedera_history import __version__
from hedera_history.backfill import runtime
from hedera_history.config import Settings
from hedera_history.deploy.build import build_wheel as build_project_wheel
from hedera_history.deploy.repo_paths import repository_root
from hedera_history.errors import BackfillError, BackfillImageError, ConfigError
from hedera_history.sources.base import open_sink, parse_url

WHEEL_NAME = f"hedera_history-{__version__}-py3-none-any.whl"
DEFAULT_RUNTIME_VERSION = runtime.RUNTIME_VERSION
DEFAULT_PROPERTIES = {
    "spark.speculation": "false",
    "spark.task.maxFailures": "4",
    "spark.python.worker.reuse": "true",
}
FORWARDED_PREFIXES = ("HEDERA_HISTORY_", "GOOGLE_CLOUD_PROJECT")
NOT_FORWARDED = ("BIGTABLE_EMULATOR_HOST", "PUBSUB_EMULATOR_HOST", "STORAGE_EMULATOR_HOST")


@dataclass(frozen=True, slots=True)
class Upload:
    local: Path
    url: str


@dataclass(frozen=True)
class SubmitPlan:
    batch_id: str
    uploads: tuple[Upload, ...]
    command: tuple[str, ...]
    properties: Mapping[str, str] = field(default_factory=dict)
    cluster: str | None = None
    container_image: str = ""
    runtime_version: str = ""
    service_account: str = ""
    staging_folder: str = ""
    job_args: tuple[str, ...] = ()

    def describe(self) -> list[str]:
        """What would be created, one fact a line; the last line is the gcloud command itself."""
        if self.cluster:
            lines = [f"job: {self.batch_id} on the Dataproc cluster {self.cluster}"]
        else:
            lines = [
                f"batch: {self.batch_id} (Dataproc Serverless)",
                f"runtime: {self.runtime_version}" + _runtime_components(self.runtime_version),
                f"image: {self.container_image}",
                "service account: " + (self.service_account or "(none given: the project's default compute account)"),
            ]
        lines.append(f"staging: {self.staging_folder}")
        lines += [f"upload {upload.local} -> {upload.url}" for upload in self.uploads]
        lines.append("properties: " + ", ".join(f"{k}={v}" for k, v in sorted(self.properties.items())))
        lines.append("arguments: " + shlex.join(self.job_args))
        lines.append(shlex.join(self.command))
        return lines


def _runtime_components(version: str) -> str:
    if version != runtime.RUNTIME_VERSION:
        return " (not the pinned runtime " + runtime.RUNTIME_VERSION + ")"
    return f" (Spark {runtime.SPARK_VERSION}, Java {runtime.JAVA_VERSION}, image Python {runtime.PYTHON_VERSION})"


def resolve_container_image(explicit: str, repository: str, tag: str) -> str:
    """The batch's image: ``explicit`` as given, else ``repository:tag`` (tag default ``main``).

    Raises :class:`BackfillImageError`, saying how to get one, when neither is known.
    """
    if explicit:
        return explicit
    if repository:
        return f"{repository.rstrip('/')}:{tag or runtime.DEFAULT_IMAGE_TAG}"
    raise BackfillImageError(
        "a Dataproc Serverless batch needs the backfill's container image (the runtime's own image has "
        "neither hiero-sdk-python nor protobuf 7): build and push it with Cloud Build "
        "(`gcloud builds submit --config cloudbuild.yaml`, step backfill-image) or "
        "`infra/scripts/backfill-image.sh IMAGE`, then set HEDERA_HISTORY_DATAPROC_IMAGE_REPOSITORY "
        "(Terraform output backfill_environment) or pass --container-image IMAGE (docs/backfill.md)"
    )


def new_batch_id(now: datetime | None = None) -> str:
    """``hedera-backfill-YYYYMMDD-HHMMSS``: a valid, unique-enough Dataproc batch or job id."""
    moment = now or datetime.now(UTC)
    return f"hedera-backfill-{moment:%Y%m%d-%H%M%S}"


@dataclass(frozen=True, slots=True)
class SubmitTarget:
    """Where the job runs: an existing ``cluster``, or else a Serverless batch on
    ``container_image`` (as ``service_account``, on ``runtime_version``)."""

    project: str
    region: str
    cluster: str | None = None
    container_image: str = ""
    service_account: str = ""
    runtime_version: str = DEFAULT_RUNTIME_VERSION


def plan_submission(
    job_args: Sequence[str],
    target: SubmitTarget,
    *,
    staging_url: str,
    batch_id: str,
    wheel: Path | None = None,
    address_book: Path | None = None,
    properties: Mapping[str, str] | None = None,
) -> SubmitPlan:
    """Everything one submission does; ``job_args`` are the job's flags (``job_spec.forwarded_args``).

    A Serverless batch needs the target's ``container_image`` (:class:`BackfillImageError`
    without it); a cluster needs the ``wheel``, which a batch takes only to run other code than its
    image's. With a local ``address_book`` the job's ``--address-book`` is pointed at its staged copy.
    """
    cluster, container_image = target.cluster, target.container_image
    service_account, runtime_version = target.service_account, target.runtime_version
    if not cluster and not container_image:
        resolve_container_image("", "", "")  # raises, saying how to build one
    if cluster and wheel is None:
        raise BackfillError("a cluster has no image with the project: submitting to one ships the wheel")
    staged = parse_url(staging_url)
    if staged.scheme != "gs":
        raise ConfigError(f"the staging URL must be gs://bucket/prefix, got {staging_url!r}")
    folder = f"gs://{staged.bucket}/{staged.prefix}{batch_id}/"
    job = job_file()
    main = Upload(job, folder + job.name)
    uploads = [main] if wheel is None else [Upload(wheel, folder + wheel.name), main]
    args = list(job_args)
    if address_book is not None:
        uploads.append(Upload(address_book, folder + "address-book.bin"))
        args = _replace_option(args, "--address-book", uploads[-1].url)
    merged = {**DEFAULT_PROPERTIES, **(properties or {})}
    common = [f"--project={target.project}", f"--region={target.region}"]
    if wheel is not None:
        common.append(f"--py-files={uploads[0].url}")
    common.append("--properties=" + ",".join(f"{k}={v}" for k, v in sorted(merged.items())))
    if cluster:
        command = ["gcloud", "dataproc", "jobs", "submit", "pyspark", main.url, f"--cluster={cluster}"]
        command += [*common, f"--id={batch_id}"]
    else:
        command = ["gcloud", "dataproc", "batches", "submit", "pyspark", main.url, f"--batch={batch_id}"]
        # Dataproc's own files go to the staging bucket too, not to buckets it would make in the
        # project: the batch identity may write that one bucket only (docs/deploy.md).
        command += [*common, f"--version={runtime_version}", f"--staging-bucket={staged.bucket}"]
        command.append(f"--container-image={container_image}")
        if service_account:
            # The least-privilege identity Terraform makes for the job (output backfill_service_account).
            command.append(f"--service-account={service_account}")
    command += ["--", *args]
    return SubmitPlan(
        batch_id,
        tuple(uploads),
        tuple(command),
        merged,
        cluster=cluster,
        container_image="" if cluster else container_image,
        runtime_version="" if cluster else runtime_version,
        service_account="" if cluster else service_account,
        staging_folder=folder,
        job_args=tuple(args),
    )


def forwarded_environment(environ: Mapping[str, str]) -> list[str]:
    """``--env NAME=VALUE`` flags carrying this machine's settings to the job (emulators excluded)."""
    flags: list[str] = []
    for name in sorted(environ):
        if name.startswith(FORWARDED_PREFIXES) and name not in NOT_FORWARDED:
            flags += ["--env", f"{name}={environ[name]}"]
    return flags


def project_root() -> Path:
    """The checkout this module runs from (building the wheel needs the sources)."""
    return repository_root(Path(__file__).resolve().parent)


def job_file() -> Path:
    """The main Python file in the checkout (named by path: it is uploaded, never imported here)."""
    return project_root() / runtime.JOB_FILE


def build_wheel(out_dir: Path) -> Path:
    """The project's wheel, built into ``out_dir`` by the deploy tooling (from a staged copy)."""
    return build_project_wheel(project_root(), out_dir)


def upload(plan: SubmitPlan, settings: Settings) -> None:
    """Copy every file of the plan to its gs:// URL."""
    for item in plan.uploads:
        folder, _, name = item.url.rpartition("/")
        open_sink(folder, settings).write(name, item.local.read_bytes())


def submit(plan: SubmitPlan) -> int:
    """Run the gcloud command; its exit code."""
    if shutil.which(plan.command[0]) is None:
        raise BackfillError("gcloud is not installed: install the Google Cloud CLI, or run the printed command")
    return subprocess.run(list(plan.command), check=False).returncode


def _replace_option(args: list[str], option: str, value: str) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == option:
            skip = True
            continue
        if arg.startswith(option + "="):
            continue
        out.append(arg)
    return [*out, option, value]
