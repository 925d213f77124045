"""``backfill submit`` for real against the GCS emulator: files staged, then gcloud called (a stand-in
that records its arguments), with exactly the command a dry run prints."""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.deploy import dataproc

from tests.fixtures.emulators import PROJECT


@pytest.fixture
def fake_gcloud(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``gcloud`` first on the PATH that writes its arguments, one per line, and succeeds."""
    record = tmp_path / "gcloud-args.txt"
    script = tmp_path / "bin" / "gcloud"
    script.parent.mkdir()
    script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {shlex.quote(str(record))}\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{script.parent}:{os.environ['PATH']}")
    return record


def test_submit_stages_the_files_and_runs_the_printed_command(
    gcs_bucket: Any, fake_gcloud: Path, tmp_path: Path, generated_stream_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fake_wheel(out_dir: Path) -> Path:
        wheel = out_dir / dataproc.WHEEL_NAME
        wheel.write_bytes(b"a wheel")
        return wheel

    monkeypatch.setattr(dataproc, "build_wheel", fake_wheel)
    book = generated_stream_dir / "address-book.bin"
    args = ["backfill", "submit", "gs://streams/", "--address-book", str(book), "--start", "2024-06-01"]
    args += ["--end", "2024-06-02", "--staging-url", f"gs://{gcs_bucket.name}/runs", "--batch", "b-7"]
    args += ["--project", PROJECT, "--image-repository", "us-docker.pkg.dev/p/hh-backfill/backfill", "--wheel"]

    dry = CliRunner().invoke(cli, [*args, "--dry-run"], catch_exceptions=False)
    assert dry.exit_code == 0, dry.output
    real = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert real.exit_code == 0, real.output

    printed = shlex.split(dry.output.strip().splitlines()[-1])
    assert ["gcloud", *fake_gcloud.read_text().splitlines()] == printed
    staged = {blob.name: blob.download_as_bytes() for blob in gcs_bucket.list_blobs(prefix="runs/b-7/")}
    assert staged[f"runs/b-7/{dataproc.WHEEL_NAME}"] == b"a wheel"
    assert staged["runs/b-7/address-book.bin"] == book.read_bytes()
    assert staged["runs/b-7/dataproc_job.py"] == dataproc.job_file().read_bytes()
    assert "--container-image=us-docker.pkg.dev/p/hh-backfill/backfill:main" in printed
