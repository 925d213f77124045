"""The report's two forms, the Dataproc submission plan and the command-line checks (no Spark)."""

from __future__ import annotations

import dataclasses
import json
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hedera_history.backfill import runtime
from hedera_history.cli.backfill_cmd import _parse_time
from hedera_history.cli.main import cli
from hedera_history.deploy import dataproc
from hedera_history.errors import BackfillImageError, ConfigError

from .conftest import SMALL, InProcess

NS = 1_000_000_000


def test_report_json_and_summary(backfill: InProcess) -> None:
    report = backfill.run(partitions=3)
    data = json.loads(json.dumps(report.to_json()))
    assert data["ok"] is True
    assert data["periods"] == SMALL.periods and data["partitions"] == 3 and data["waves"] == 2
    assert data["blocks"] == {"first": 0, "last": SMALL.periods - 1}
    assert data["counts"]["written"] == SMALL.periods
    assert data["counts"]["transactions"] == SMALL.periods * SMALL.transactions
    assert data["boundaries"] == {"checked": 2, "problems": []}
    assert set(data["throughput"]) == {"transactions_per_second", "bytes_per_second", "periods_per_second"}
    assert data["task_cpu_seconds"] > 0 and data["task_seconds"] > 0
    lines = report.summary_lines()
    assert lines[0].startswith(f"{SMALL.periods} period(s) in 3 partition(s), 2 wave(s): blocks 0-")
    assert any("re-ran partition(s)" in line for line in lines)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1717200000000000000", 1_717_200_000 * NS),
        ("2024-06-01", 1_717_200_000 * NS),
        ("2024-06-01T00:00:02Z", 1_717_200_002 * NS),
        ("2024-06-01T00:00:02.5Z", 1_717_200_002 * NS + 500_000_000),
        ("2024-06-01T00_00_02.000000007Z", 1_717_200_002 * NS + 7),
        ("2024-06-01T02:00:00+02:00", 1_717_200_000 * NS),
    ],
)
def test_times_in_every_accepted_form(text: str, expected: int) -> None:
    assert _parse_time(text, "--start") == expected


def test_a_time_that_is_not_one() -> None:
    with pytest.raises(click.BadParameter):
        _parse_time("yesterday", "--start")


def test_run_checks_its_options_before_starting_anything(tmp_path: Path) -> None:
    base = ["backfill", "run", str(tmp_path), "--address-book", str(tmp_path / "none.bin")]
    result = CliRunner().invoke(cli, [*base, "--start", "2024-06-02", "--end", "2024-06-01"])
    assert result.exit_code == 2 and "--end must be after --start" in result.output
    result = CliRunner().invoke(cli, [*base, "--start", "2024-06-01", "--end", "2024-06-02", "--layout", "node-id"])
    assert result.exit_code == 2 and "--network" in result.output


# ---- Dataproc --------------------------------------------------------------------------------------

IMAGE = "europe-docker.pkg.dev/p/hh-backfill/backfill:abc1"


_TARGET_FIELDS = [field.name for field in dataclasses.fields(dataproc.SubmitTarget)]


def _plan(**changes: object) -> dataproc.SubmitPlan:
    arguments: dict[str, object] = {
        "project": "p",
        "region": "europe-west1",
        "staging_url": "gs://staging/runs",
        "batch_id": "hedera-backfill-1",
        "container_image": IMAGE,
        **changes,
    }
    target = {name: arguments.pop(name) for name in _TARGET_FIELDS if name in arguments}
    return dataproc.plan_submission(
        ["gs://streams/", "--start", "2024-06-01"],
        dataproc.SubmitTarget(**target),  # type: ignore[arg-type]
        **arguments,  # type: ignore[arg-type]
    )


def test_a_serverless_batch_on_the_image_and_the_pinned_runtime_by_default() -> None:
    plan = _plan(properties={"spark.executor.cores": "8"})
    command = list(plan.command)
    assert command[:6] == [
        "gcloud",
        "dataproc",
        "batches",
        "submit",
        "pyspark",
        "gs://staging/runs/hedera-backfill-1/dataproc_job.py",
    ]
    assert "--batch=hedera-backfill-1" in command and "--region=europe-west1" in command
    assert f"--container-image={IMAGE}" in command
    assert f"--version={runtime.RUNTIME_VERSION}" in command
    # The image carries the project: no wheel, so no checkout is needed
    assert not any(c.startswith("--py-files") for c in command)
    assert [u.url.rsplit("/", 1)[1] for u in plan.uploads] == ["dataproc_job.py"]
    assert plan.uploads[0].local.read_bytes() == dataproc.job_file().read_bytes()
    # Dataproc stages into the bucket of the staging URL, the one its identity may write
    assert "--staging-bucket=staging" in command
    properties = next(c for c in command if c.startswith("--properties="))
    assert "spark.executor.cores=8" in properties and "spark.speculation=false" in properties
    assert command[command.index("--") + 1 :] == ["gs://streams/", "--start", "2024-06-01"]


def test_a_batch_may_run_the_checkouts_wheel_over_its_image() -> None:
    plan = _plan(wheel=Path("/tmp/x") / dataproc.WHEEL_NAME)
    assert f"--py-files=gs://staging/runs/hedera-backfill-1/{dataproc.WHEEL_NAME}" in plan.command
    assert [u.url.rsplit("/", 1)[1] for u in plan.uploads] == [dataproc.WHEEL_NAME, "dataproc_job.py"]


def test_a_batch_without_an_image_is_refused_saying_how_to_build_one() -> None:
    with pytest.raises(BackfillImageError, match=r"cloudbuild\.yaml") as raised:
        _plan(container_image="")
    assert "HEDERA_HISTORY_DATAPROC_IMAGE_REPOSITORY" in str(raised.value)


def test_the_image_is_the_repository_at_the_tag_unless_given_in_full() -> None:
    assert dataproc.resolve_container_image("", "r/p/repo/backfill", "") == "r/p/repo/backfill:main"
    assert dataproc.resolve_container_image("", "r/p/repo/backfill/", "abc1") == "r/p/repo/backfill:abc1"
    assert dataproc.resolve_container_image("x/y:2", "r/p/repo/backfill", "abc1") == "x/y:2"
    with pytest.raises(BackfillImageError):
        dataproc.resolve_container_image("", "", "abc1")


def test_an_existing_cluster_and_a_local_address_book(tmp_path: Path) -> None:
    book = tmp_path / "book.bin"
    plan = _plan(cluster="history", address_book=book, container_image="", wheel=Path("/tmp/x") / dataproc.WHEEL_NAME)
    command = list(plan.command)
    assert command[:5] == ["gcloud", "dataproc", "jobs", "submit", "pyspark"]
    assert "--cluster=history" in command and "--id=hedera-backfill-1" in command
    assert not any(c.startswith("--container-image") for c in command)
    staged = "gs://staging/runs/hedera-backfill-1/address-book.bin"
    assert command[-2:] == ["--address-book", staged]
    assert plan.uploads[-1] == dataproc.Upload(book, staged)


def test_the_staging_location_must_be_a_bucket() -> None:
    with pytest.raises(ConfigError):
        _plan(staging_url="/tmp/staging")


def test_settings_travel_as_env_flags_but_emulators_do_not() -> None:
    environ = {
        "HEDERA_HISTORY_RETENTION_DAYS": "30",
        "GOOGLE_CLOUD_PROJECT": "p",
        "BIGTABLE_EMULATOR_HOST": "127.0.0.1:1",
        "HOME": "/root",
    }
    assert dataproc.forwarded_environment(environ) == [
        "--env",
        "GOOGLE_CLOUD_PROJECT=p",
        "--env",
        "HEDERA_HISTORY_RETENTION_DAYS=30",
    ]


def test_submit_dry_run_prints_the_command_and_builds_nothing(small_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HEDERA_HISTORY_TABLE_PREFIX", raising=False)
    monkeypatch.setattr(dataproc, "build_wheel", _must_not_run)
    monkeypatch.setattr(dataproc, "upload", _must_not_run)
    args = ["backfill", "submit", "s3://hedera-streams/", "--address-book", str(small_dir / "address-book.bin")]
    args += ["--start", "2024-06-01", "--end", "2024-07-01", "--staging-url", "gs://staging/x", "--batch", "b-1"]
    args += ["--s3-requester-pays", "--instance", "history", "--service-account", "bf@p.iam", "--dry-run"]
    args += ["--image-repository", "us-docker.pkg.dev/p/hh-backfill/backfill"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    image = "us-docker.pkg.dev/p/hh-backfill/backfill:main"
    assert f"image: {image}" in lines
    assert f"runtime: {runtime.RUNTIME_VERSION} (Spark {runtime.SPARK_VERSION}, Java 17, image Python 3.11)" in lines
    assert "service account: bf@p.iam" in lines
    assert "staging: gs://staging/x/b-1/" in lines
    assert any(line.startswith("arguments: s3://hedera-streams/ ") for line in lines)
    command = shlex.split(lines[-1])
    assert command[:5] == ["gcloud", "dataproc", "batches", "submit", "pyspark"]
    assert "--service-account=bf@p.iam" in command[: command.index("--")]
    assert f"--container-image={image}" in command and f"--version={runtime.RUNTIME_VERSION}" in command
    job_args = command[command.index("--") + 1 :]
    assert job_args[0] == "s3://hedera-streams/"
    assert {"--s3-requester-pays", "--instance", "history", "--start", "2024-06-01"} <= set(job_args)
    assert job_args[-2:] == ["--address-book", "gs://staging/x/b-1/address-book.bin"]
    assert "--local" not in job_args and "--dry-run" not in job_args


def test_submit_refuses_a_batch_without_an_image(small_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HEDERA_HISTORY_DATAPROC_CONTAINER_IMAGE", "HEDERA_HISTORY_DATAPROC_IMAGE_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(dataproc, "build_wheel", _must_not_run)
    args = ["backfill", "submit", "gs://b/", "--address-book", str(small_dir / "address-book.bin")]
    args += ["--start", "2024-06-01", "--end", "2024-06-02", "--staging-url", "gs://staging/x", "--dry-run"]
    result = CliRunner().invoke(cli, args)
    assert isinstance(result.exception, BackfillImageError)
    assert "--container-image" in str(result.exception)


def test_submit_needs_a_staging_location(small_dir: Path) -> None:
    args = ["backfill", "submit", "gs://b/", "--address-book", str(small_dir / "address-book.bin")]
    result = CliRunner().invoke(cli, [*args, "--start", "2024-06-01", "--end", "2024-06-02", "--dry-run"])
    assert result.exit_code == 2 and "--staging-url" in result.output


def _must_not_run(*_: object) -> None:
    raise AssertionError("a dry run must not build or upload anything")
