"""``backfill submit``: package the library, stage it, and hand the job to Dataproc.

What is submitted:

- the project as a wheel (``--py-files``: Spark puts it on the path of the driver and of every
  executor's Python worker), built by the deploy tooling from a staged copy of the sources;
- ``backfill/job.py`` as the main Python file: it runs ``hedera-history backfill run`` with the
  job's arguments, against the master Dataproc configured;
- the address book, when it is a local file, so the driver can read it from the staging bucket.

The library's dependencies (the Google Cloud clients, ``hiero-sdk-python``, ...) are not in
Dataproc's images: a Serverless batch takes them from a custom container image
(``--container-image``), a cluster from its own Python environment (see docs/backfill.md).

By default a Serverless batch is created (``gcloud dataproc batches submit pyspark``); with a
cluster name the job goes to that cluster (``gcloud dataproc jobs submit pyspark``). The gcloud
command is the interface, so a dry run prints exactly what would run.
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
from hedera_history.config import Settings
from hedera_history.deploy.build import build_wheel as build_project_wheel
from hedera_history.deploy.layout import repository_root
from hedera_history.errors import BackfillError, ConfigError
from hedera_history.sources.base import open_sink, parse_url

JOB_FILE = Path("backfill") / "job.py"
"""The main Python file, relative to the checkout."""
WHEEL_NAME = f"hedera_history-{__version__}-py3-none-any.whl"
DEFAULT_RUNTIME_VERSION = "2.2"
"""Serverless runtime 2.2: Spark 3.5, Python 3.12, Java 17."""
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

    def describe(self) -> list[str]:
        lines = [f"upload {upload.local} -> {upload.url}" for upload in self.uploads]
        lines.append("properties: " + ", ".join(f"{k}={v}" for k, v in sorted(self.properties.items())))
        lines.append(shlex.join(self.command))
        return lines


def new_batch_id(now: datetime | None = None) -> str:
    """``hedera-backfill-YYYYMMDD-HHMMSS``: a valid, unique-enough Dataproc batch or job id."""
    moment = now or datetime.now(UTC)
    return f"hedera-backfill-{moment:%Y%m%d-%H%M%S}"


def plan_submission(
    job_args: Sequence[str],
    *,
    project: str,
    region: str,
    staging_url: str,
    batch_id: str,
    wheel: Path,
    address_book: Path | None = None,
    cluster: str | None = None,
    container_image: str = "",
    service_account: str = "",
    runtime_version: str = DEFAULT_RUNTIME_VERSION,
    properties: Mapping[str, str] | None = None,
) -> SubmitPlan:
    """Everything one submission does; ``job_args`` are ``backfill run`` flags (no ``--local``).

    With a local ``address_book`` the job's ``--address-book`` is pointed at its staged copy.
    """
    job_file = project_root() / JOB_FILE
    if not job_file.is_file():
        raise BackfillError(f"{job_file} not found: submit from a checkout of the project")
    staged = parse_url(staging_url)
    if staged.scheme != "gs":
        raise ConfigError(f"the staging URL must be gs://bucket/prefix, got {staging_url!r}")
    folder = f"gs://{staged.bucket}/{staged.prefix}{batch_id}/"
    uploads = [Upload(wheel, folder + wheel.name), Upload(job_file, folder + job_file.name)]
    args = list(job_args)
    if address_book is not None:
        uploads.append(Upload(address_book, folder + "address-book.bin"))
        args = _replace_option(args, "--address-book", uploads[-1].url)
    merged = {**DEFAULT_PROPERTIES, **(properties or {})}
    common = [
        f"--project={project}",
        f"--region={region}",
        f"--py-files={uploads[0].url}",
        "--properties=" + ",".join(f"{k}={v}" for k, v in sorted(merged.items())),
    ]
    if cluster:
        command = ["gcloud", "dataproc", "jobs", "submit", "pyspark", uploads[1].url, f"--cluster={cluster}"]
        command += [*common, f"--id={batch_id}"]
    else:
        command = ["gcloud", "dataproc", "batches", "submit", "pyspark", uploads[1].url, f"--batch={batch_id}"]
        # Dataproc's own files go to the staging bucket too, not to buckets it would make in the
        # project: the batch identity may write that one bucket only (docs/deploy.md).
        command += [*common, f"--version={runtime_version}", f"--staging-bucket={staged.bucket}"]
        if container_image:
            command.append(f"--container-image={container_image}")
        if service_account:
            # The least-privilege identity Terraform makes for the job (output backfill_service_account).
            command.append(f"--service-account={service_account}")
    command += ["--", *args]
    return SubmitPlan(batch_id, tuple(uploads), tuple(command), merged)


def forwarded_environment(environ: Mapping[str, str]) -> list[str]:
    """``--env NAME=VALUE`` flags carrying this machine's settings to the job (emulators excluded)."""
    flags: list[str] = []
    for name in sorted(environ):
        if name.startswith(FORWARDED_PREFIXES) and name not in NOT_FORWARDED:
            flags += ["--env", f"{name}={environ[name]}"]
    return flags


def project_root() -> Path:
    """The checkout this module runs from (``submit`` needs the sources and ``backfill/job.py``)."""
    return repository_root(Path(__file__).resolve().parent)


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
