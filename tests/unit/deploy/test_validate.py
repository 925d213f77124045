"""`hedera-history deploy validate`: infra/ against the pinned google provider schema, offline.

The checked-in infra/ must pass (this is how `make test` runs the validator); a copy of it with one
deliberate mistake must fail with exit 1 and a message naming the file, line, resource and fix.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hedera_history.cli.main import cli
from hedera_history.deploy import provider_schema, schema_snapshot
from hedera_history.deploy.validate import satisfies, validate_directory
from hedera_history.errors import DuplicateLocalError

from tests.unit.deploy.infra import INFRA, REPO

BUCKET = """
resource "google_storage_bucket" "scratch" {{
  name     = "scratch"
  location = "EU"
{body}
}}
"""


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """pyproject.toml and the .tf files of infra/ (what validate reads)."""
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(INFRA, tmp_path / "infra", ignore=shutil.ignore_patterns(".terraform*", "*.tfstate*"))
    return tmp_path


def validate(root: Path) -> Result:
    return CliRunner().invoke(cli, ["deploy", "--root", str(root), "validate"])


def add_file(repository: Path, text: str) -> None:
    (repository / "infra" / "scratch.tf").write_text(text)


def assert_fails_with(repository: Path, *expected: str) -> Result:
    result = validate(repository)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    for text in expected:
        assert text in result.stdout, result.stdout
    assert "error: " in result.stderr
    return result


def test_the_checked_in_infra_matches_the_pinned_provider_schema():
    result = validate(REPO)
    assert result.exit_code == 0, result.output
    assert "against google 6.50.0 (@cdktf/provider-google 16.12.1): 0 error(s)" in result.stdout


def test_every_google_resource_of_infra_is_checked():
    report = validate_directory(INFRA)
    assert report.findings == ()
    assert report.resources >= 30
    assert report.data_sources >= 1


def test_a_misspelt_argument_fails_with_a_suggestion(repository):
    versions = repository / "infra" / "versions.tf"
    versions.write_text(versions.read_text().replace("disable_on_destroy = false", "disable_on_destroi = false"))
    line = next(n for n, text in enumerate(versions.read_text().splitlines(), 1) if "disable_on_destroi" in text)
    assert_fails_with(
        repository,
        f"infra/versions.tf:{line}: google_project_service.api: unknown argument disable_on_destroi "
        "(did you mean disable_on_destroy?)",
        "1 error(s)",
    )


def test_a_missing_required_argument_fails(repository):
    add_file(repository, 'resource "google_pubsub_topic" "scratch" {\n  labels = {}\n}\n')
    assert_fails_with(repository, "infra/scratch.tf:1: google_pubsub_topic.scratch: missing required argument name")


def test_a_block_nested_in_the_wrong_place_fails_naming_where_it_belongs(repository):
    add_file(
        repository,
        BUCKET.format(
            body='  lifecycle_rule {\n    action {\n      type = "Delete"\n    }\n  }\n  condition {\n    age = 3\n  }'
        ),
    )
    assert_fails_with(
        repository,
        "google_storage_bucket.scratch: block condition is not expected at the top; it belongs in lifecycle_rule",
        "google_storage_bucket.scratch: missing required block condition in lifecycle_rule",
    )


def test_an_unknown_resource_type_fails_with_a_suggestion(repository):
    add_file(repository, 'resource "google_storge_bucket" "scratch" {\n  name = "x"\n}\n')
    assert_fails_with(
        repository,
        "infra/scratch.tf:1: google_storge_bucket.scratch: unknown resource type google_storge_bucket "
        "(did you mean google_storage_bucket?)",
    )


def test_an_unknown_data_source_fails(repository):
    add_file(repository, 'data "google_projects_list" "scratch" {}\n')
    assert_fails_with(repository, "data.google_projects_list.scratch: unknown data source google_projects_list")


def test_a_dynamic_block_content_is_checked_against_the_block_it_makes(repository):
    body = '  dynamic "cors" {\n    for_each = []\n    content {\n      methods = ["GET"]\n    }\n  }'
    add_file(repository, BUCKET.format(body=body))
    assert_fails_with(repository, "unknown argument methods in cors (did you mean method?)")


def test_a_dynamic_block_of_an_unknown_block_fails(repository):
    body = '  dynamic "corss" {\n    for_each = []\n    content {}\n  }'
    add_file(repository, BUCKET.format(body=body))
    assert_fails_with(repository, "dynamic unknown block corss (did you mean cors?)")


def test_a_local_defined_again_in_another_file_fails_naming_both(repository):
    pubsub = repository / "infra" / "pubsub.tf"
    line = next(n for n, text in enumerate(pubsub.read_text().splitlines(), 1) if "push_function =" in text)
    add_file(repository, 'locals {\n  push_function = "store"\n}\n')
    with pytest.raises(DuplicateLocalError) as raised:
        validate_directory(repository / "infra", root=repository)
    assert raised.value.name == "push_function"
    assert raised.value.places == (f"infra/pubsub.tf:{line}", "infra/scratch.tf:2")
    result = validate(repository)
    assert result.exit_code == 1, result.output
    assert "local.push_function is defined twice, in infra/pubsub.tf" in result.stderr
    assert "Traceback" not in result.output


def test_a_local_defined_twice_in_one_file_fails(repository):
    add_file(repository, "locals {\n  twice = 1\n}\n\nlocals {\n  twice = 2\n}\n")
    with pytest.raises(DuplicateLocalError, match=r"in infra/scratch\.tf:2 and in infra/scratch\.tf:6"):
        validate_directory(repository / "infra", root=repository)


def test_a_module_may_name_a_local_as_the_root_does(repository):
    add_file(repository, "locals {\n  scratch_only = 1\n}\n")
    (repository / "infra" / "modules" / "contract" / "scratch.tf").write_text("locals {\n  scratch_only = 2\n}\n")
    assert validate_directory(repository / "infra", root=repository).findings == ()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('  force_destroy = "yes"', 'force_destroy: a bool is required, got the string "yes"'),
        ('  storage_class = ["STANDARD"]', "storage_class: a string is required, got a list"),
        ('  self_link = "x"', "self_link is computed by the provider and cannot be set"),
        ("  versioning = { enabled = true }", "versioning is a block, not an argument"),
        ('  cors {\n    origin = "*"\n  }', "origin in cors: list(string) is required, got a string"),
        ('  cors {\n    max_age_seconds = "an hour"\n  }', 'a number is required, got the string "an hour"'),
        ("  versioning {\n    enabled = true\n  }\n  versioning {\n    enabled = false\n  }", "at most one versioning"),
        ("  lifecycle {\n    ignore_change = [labels]\n  }", "unknown lifecycle argument ignore_change"),
    ],
)
def test_wrong_values_and_blocks_fail(repository, body, message):
    add_file(repository, BUCKET.format(body=body))
    assert_fails_with(repository, message)


@pytest.mark.parametrize(
    "body",
    [
        '  force_destroy = "true"',  # Terraform converts the string
        "  storage_class = local.storage_class  # an expression: not evaluated",
        '  cors {\n    max_age_seconds = "3600"\n  }',
        '  timeouts {\n    create = "10m"\n  }',
        "  count = 1\n  depends_on = []\n  lifecycle {\n    prevent_destroy = true\n  }",
    ],
)
def test_what_terraform_accepts_passes(repository, body):
    add_file(repository, BUCKET.format(body=body))
    result = validate(repository)
    assert result.exit_code == 0, result.output


def test_a_google_beta_resource_is_not_judged_by_the_google_schema(repository):
    add_file(repository, 'resource "google_pubsub_topic" "scratch" {\n  provider = google-beta\n  beta_only = 1\n}\n')
    assert validate(repository).exit_code == 0


def test_a_pin_the_snapshot_does_not_satisfy_fails(repository):
    versions = repository / "infra" / "versions.tf"
    versions.write_text(versions.read_text().replace('version = "~> 6.50"', 'version = "~> 7.0"'))
    assert_fails_with(repository, "the pin '~> 7.0' does not admit the schema snapshot's google 6.50.0")


@pytest.mark.parametrize(
    ("constraint", "admitted"),
    [
        ("~> 6.50", True),
        ("~> 6.51", False),
        ("~> 6.50.0", True),
        ("~> 7.0", False),
        ("~> 6", True),
        ("~> 5.0", False),
        ("~> 6.49", True),
        (">= 6.0, < 7.0", True),
        ("< 6.50", False),
        ("= 6.50.0", True),
        ("!= 6.50.0", False),
    ],
)
def test_version_constraints(constraint, admitted):
    assert satisfies("6.50.0", constraint) is admitted


def test_a_pessimistic_constraint_admits_later_minor_releases():
    assert satisfies("6.51.2", "~> 6.50")
    assert not satisfies("6.51.0", "~> 6.50.0")
    assert not satisfies("7.0.0", "~> 6.50")


def test_the_snapshot_is_of_the_pinned_package():
    source = provider_schema.load().source
    assert source["package"] == schema_snapshot.PACKAGE == "@cdktf/provider-google"
    assert source["version"] == schema_snapshot.PACKAGE_VERSION == "16.12.1"
    assert source["integrity"] == schema_snapshot.INTEGRITY
    assert source["provider"] == "registry.terraform.io/hashicorp/google"
    assert source["provider_version"] == schema_snapshot.PROVIDER_VERSION == "6.50.0"
