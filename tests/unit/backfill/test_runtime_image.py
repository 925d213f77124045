"""The pinned Dataproc runtime agrees everywhere, and the backfill image's recipe fits it.

One constant (``hedera_history.backfill.runtime``) against: the Terraform default, pyproject's
pyspark pins (the Spark the tests run), the image's Python, the image lock resolved for that Python
(offline: the committed pins satisfy pyproject's ranges; the networked resolve is ``deploy lock``),
the Dockerfile's documented requirements, and the image's name in Cloud Build and Terraform.
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from typing import Any

import pytest
from hedera_history.backfill import runtime
from hedera_history.deploy import lock
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.unit.deploy.infra import INFRA, REPO, expr, load_module, load_tfvars

DOCKERFILE = REPO / runtime.IMAGE_DIR / "Dockerfile"
IMAGE_SCRIPT = REPO / "infra" / "scripts" / "backfill-image.sh"


def _pyproject() -> dict[str, Any]:
    with (REPO / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)


def test_terraform_defaults_to_the_pinned_runtime():
    assert load_module().variables["dataproc_runtime_version"]["default"] == runtime.RUNTIME_VERSION


@pytest.mark.parametrize("extra", ["backfill", "dev"])
def test_the_tests_run_the_runtimes_spark(extra):
    pins = [Requirement(text) for text in _pyproject()["project"]["optional-dependencies"][extra]]
    (pyspark,) = [pin for pin in pins if canonicalize_name(pin.name) == "pyspark"]
    assert str(pyspark.specifier) == f"=={runtime.SPARK_VERSION}"


def test_the_image_lock_is_resolved_for_the_runtimes_python_and_fits_pyproject():
    assert lock.BACKFILL_IMAGE.python_version == runtime.PYTHON_VERSION
    assert lock.lock_problems(REPO, lock.BACKFILL_IMAGE) == []
    text = (REPO / lock.BACKFILL_IMAGE.file).read_text()
    assert f"# Resolved for Python {runtime.PYTHON_VERSION} on " in text
    pins = lock.read_lock(REPO, lock.BACKFILL_IMAGE).pins
    # What has no Dataproc image: the reason the image exists.
    assert {"hiero-sdk-python", "protobuf"} <= set(pins)
    # The runtime mounts Spark: neither it nor its gateway may come with the image.
    assert not {"pyspark", "py4j"} & set(pins)
    # The job runs no command line and serves no function: their libraries stay out.
    assert not {"click", "rich", "functions-framework", "flask", "google-cloud-pubsub"} & set(pins)


IMPORTED_AS = {
    "hiero-sdk-python": "hiero_sdk_python",
    "protobuf": "google.protobuf",
    "cryptography": "cryptography",
    "google-cloud-bigtable": "google.cloud.bigtable",
    "google-cloud-pubsub": "google.cloud.pubsub_v1",
    "google-cloud-storage": "google.cloud.storage",
    "functions-framework": "functions_framework",
    "cloudevents": "cloudevents",
    "fastavro": "fastavro",
    "click": "click",
    "rich": "rich",
    "boto3": "boto3",
    "zstandard": "zstandard",
    "py-arkworks-bls12381": "py_arkworks_bls12381",
    "py-ecc": "py_ecc",
    "pycryptodome": "Crypto",
}
"""Each direct dependency of pyproject.toml by the module the project imports it as."""


def test_the_image_installs_exactly_the_dependencies_the_job_imports():
    from tests.unit.test_layers import DATAPROC_JOB, SOURCES, import_closure  # noqa: PLC0415

    dependencies = {canonicalize_name(Requirement(text).name) for text in _pyproject()["project"]["dependencies"]}
    assert set(IMPORTED_AS) == dependencies
    (job,) = [source for source in SOURCES if source.path == DATAPROC_JOB]
    _, outside = import_closure(job)
    imported = {
        name
        for name, module in IMPORTED_AS.items()
        if any(found == module or found.startswith(module + ".") for found in outside)
    }
    assert dependencies - lock.NOT_IN_THE_BACKFILL_IMAGE == imported


def test_the_image_lock_is_stale_when_the_runtimes_python_changes(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text((REPO / "pyproject.toml").read_text())
    copy = tmp_path / lock.BACKFILL_IMAGE.file
    copy.parent.mkdir(parents=True)
    copy.write_text((REPO / lock.BACKFILL_IMAGE.file).read_text())
    moved = lock.LockTarget(lock.BACKFILL_IMAGE.file, "3.12", "backfill image", "a newer runtime")
    assert any("deploy lock" in problem for problem in lock.lock_problems(tmp_path, moved))


def test_deploy_lock_resolves_the_image_requirements_for_the_runtimes_python(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\ndependencies = ['click>=8']\n")
    commands: list[list[str]] = []

    def fake_run(command: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        return subprocess.CompletedProcess(command, 0, "click==8.3.0 \\\n    --hash=sha256:bb\n", "")

    monkeypatch.setattr(subprocess, "run", fake_run)
    monkeypatch.setattr(lock, "_uv", lambda: "uv")
    path = lock.generate_lock(tmp_path, lock.BACKFILL_IMAGE)
    (command,) = commands
    assert command[command.index("--python-version") + 1] == runtime.PYTHON_VERSION
    assert "--generate-hashes" in command
    assert path == tmp_path / lock.BACKFILL_IMAGE.file
    assert lock.lock_problems(tmp_path, lock.BACKFILL_IMAGE) == []


def test_the_dockerfile_meets_the_custom_container_requirements():
    text = DOCKERFILE.read_text()
    instructions = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert instructions[0] == f"FROM python:{runtime.PYTHON_VERSION}-slim-bookworm"  # Debian 12
    assert "useradd -u 1099 -g 1099 -d /home/spark -m spark" in text and "groupadd -g 1099 spark" in text
    assert instructions[-1] == "USER spark"
    assert re.search(r"^ENV PYSPARK_PYTHON=/usr/local/bin/python$", text, re.MULTILINE)
    assert "--require-hashes -r /opt/hedera-history/requirements.lock" in text
    assert f"COPY {lock.BACKFILL_IMAGE.file} " in text
    assert "--no-deps --no-index" in text  # the project adds no unpinned package
    # Spark and Java come from the runtime, mounted at run time.
    body = "\n".join(instructions).lower().replace("pyspark_python", "")
    for forbidden in ("openjdk", "jdk", "jre", "pyspark", "spark-3", "spark-4"):
        assert forbidden not in body


@pytest.mark.parametrize("environment", ["dev", "prod"])
def test_cloud_build_pushes_where_terraform_makes_the_repository(environment):
    tfvars = load_tfvars(INFRA / "environments" / f"{environment}.tfvars")
    variables = load_module().variables
    region = tfvars.get("region", variables["region"]["default"])
    prefix = tfvars.get("name_prefix", variables["name_prefix"]["default"])
    printed = subprocess.run(
        ["bash", str(IMAGE_SCRIPT), environment, "--print"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert printed == f"{region}-docker.pkg.dev/{tfvars['project']}/{prefix}backfill/{runtime.IMAGE_NAME}"

    repository = load_module().resource("google_artifact_registry_repository", "backfill")
    assert repository["repository_id"] == "${var.name_prefix}backfill" and repository["format"] == "DOCKER"
    assert expr(load_module().locals["backfill_image_repository"]).endswith(
        "${google_artifact_registry_repository.backfill.repository_id}/" + runtime.IMAGE_NAME
    )
    assert load_module().variables["backfill_image_tag"]["default"] == runtime.DEFAULT_IMAGE_TAG


def test_batches_may_pull_the_image_and_the_template_names_it():
    pull = load_module().resource("google_artifact_registry_repository_iam_member", "backfill_pull")
    assert pull["role"] == "roles/artifactregistry.reader"
    assert 'identity["backfill"]' in pull["member"]
    config = load_module().locals["backfill_batch"]["runtimeConfig"]
    assert expr(config["containerImage"]) == "local.backfill_container_image"
    assert expr(config["version"]) == "var.dataproc_runtime_version"


def test_the_job_file_sits_beside_the_image_recipe_as_the_functions_main_files_do():
    from hedera_history.deploy import dataproc  # noqa: PLC0415

    assert dataproc.job_file() == REPO / "backfill" / "dataproc_job.py" and dataproc.job_file().is_file()
    assert DOCKERFILE.parent == dataproc.job_file().parent == REPO / runtime.IMAGE_DIR
    assert (REPO / "functions" / "ingest" / "main.py").is_file()  # the functions' entry points, alike
    # The Spark library stays in the package; the entry point is not part of it.
    assert not (REPO / "shared/src/hedera_history/backfill/dataproc_job.py").exists()
