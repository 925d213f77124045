"""`hedera-history deploy` against the real Terraform binary, as far as it runs offline: fmt, and
init and plan failing cleanly (typed error, exit code, one-line message) where the providers or
the state backend would be downloaded or reached."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hedera_history.cli.main import cli
from hedera_history.deploy import contracts, repo_paths
from hedera_history.deploy.terraform import PACKAGED_TERRAFORM, Terraform, terraform_binary

from tests.unit.deploy.infra import INFRA, REPO

UNFORMATTED = 'variable "x" {\ntype=string\n    default = "a"\n}\n'


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A copy of what deploy reads: pyproject.toml, infra/, and built function archives."""
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(INFRA, tmp_path / "infra", ignore=shutil.ignore_patterns(".terraform*", "*.tfstate*"))
    archives = tmp_path / repo_paths.FUNCTIONS_BUILD_DIR
    archives.mkdir(parents=True)
    for function in contracts.functions_contract()["functions"].values():
        (archives / function["archive"]).write_bytes(b"PK\x05\x06" + bytes(18))
    return tmp_path


def deploy(root: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["deploy", "--root", str(root), *args])


def assert_clean_failure(result: Result, code: int, text: str) -> None:
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert f"error: {text}" in result.stderr


def test_the_checked_in_terraform_is_formatted():
    assert Terraform(INFRA).fmt(check=True).unformatted == ()
    result = deploy(REPO, "fmt", "--check")
    assert result.exit_code == 0, result.output


def test_fmt_check_names_an_unformatted_file_and_fmt_fixes_it(repository):
    (repository / "infra" / "scratch.tf").write_text(UNFORMATTED)
    result = deploy(repository, "fmt", "--check")
    assert_clean_failure(result, 1, "1 file(s) not formatted")
    assert "not formatted: infra/scratch.tf" in result.stdout
    assert (repository / "infra" / "scratch.tf").read_text() == UNFORMATTED
    assert deploy(repository, "fmt").exit_code == 0
    assert deploy(repository, "fmt", "--check").exit_code == 0


def test_init_without_network_fails_at_provider_download(repository):
    result = deploy(repository, "init", "--env", "dev", "--no-backend")
    assert_clean_failure(result, 3, "terraform init: the providers cannot be downloaded")
    assert "registry.terraform.io" in result.stderr


def test_init_with_the_backend_offline_fails_at_provider_download_first(repository):
    # Terraform 1.15 installs the providers before it initialises the state backend, so offline
    # init stops there; how a backend failure reads is in tests/unit/deploy/test_terraform_errors.py.
    result = deploy(repository, "init", "--env", "dev")
    assert_clean_failure(result, 3, "terraform init: the providers cannot be downloaded")


def test_the_terraform_in_use_is_the_pinned_current_one():
    assert terraform_binary().endswith(PACKAGED_TERRAFORM)
    major, minor = (int(part) for part in Terraform(INFRA).version().split(".")[:2])
    assert (major, minor) >= (1, 5)


def test_plan_without_credentials_says_what_is_missing_with_exit_code_3(repository, monkeypatch):
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(repository / "no-such-key.json"))
    result = deploy(repository, "plan", "--env", "prod")
    assert_clean_failure(result, 3, "no application default credentials: run `gcloud auth application-default login`")
    assert not (repository / repo_paths.PLANS_DIR / "prod.tfplan").exists()


def test_plan_refuses_stale_contracts_and_unbuilt_sources(repository):
    (repository / "infra" / "generated" / "schema.json").write_text("{}\n")
    assert_clean_failure(deploy(repository, "plan", "--env", "dev"), 1, "1 contract file(s) stale")
    contracts.write_contracts(repository)
    (repository / repo_paths.FUNCTIONS_BUILD_DIR / "query.zip").unlink()
    assert_clean_failure(deploy(repository, "plan", "--env", "dev"), 1, "function sources not built (query.zip)")


def test_an_unknown_environment_is_a_usage_error(repository):
    result = deploy(repository, "plan", "--env", "staging")
    assert result.exit_code == 1
    assert "unknown environment 'staging' (known: dev, prod)" in str(result.exception)


def test_the_installed_command_exits_3_with_one_line(repository):
    completed = subprocess.run(
        [sys.executable, "-m", "hedera_history.cli.main", "deploy", "--root", str(repository), "init", "--env", "dev"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 3
    assert completed.stderr.count("error:") == 1
    assert "Traceback" not in completed.stderr
