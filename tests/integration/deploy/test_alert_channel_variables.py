"""The alert channel variables evaluated by the real Terraform binary (infra/variables.tf alone has
no provider, so it plans offline): production refuses to plan without a channel, and a channel id
must be a real one's shape, not a placeholder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hedera_history.deploy.terraform import Terraform
from hedera_history.errors import TerraformError

from tests.unit.deploy.infra import INFRA

PROD = INFRA / "environments" / "prod.tfvars"
DEV = INFRA / "environments" / "dev.tfvars"


@pytest.fixture(scope="module")
def variables_only(tmp_path_factory: pytest.TempPathFactory) -> Terraform:
    folder = tmp_path_factory.mktemp("variables")
    shutil.copy(INFRA / "variables.tf", folder / "variables.tf")
    terraform = Terraform(folder)
    terraform.init(backend=False)
    return terraform


def plan(terraform: Terraform, *var_files: Path) -> None:
    terraform.plan(var_files=list(var_files), out=terraform.directory / "variables.tfplan")


def extra(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "extra.tfvars"
    path.write_text(text)
    return path


def test_prod_without_a_channel_stops_the_plan(variables_only):
    with pytest.raises(TerraformError, match="requires an alert channel"):
        plan(variables_only, PROD)


def test_prod_with_an_email_or_a_channel_id_plans(variables_only, tmp_path):
    plan(variables_only, PROD, extra(tmp_path, 'alert_email = "oncall@example.org"\n'))
    channel = 'notification_channels = ["projects/hedera-history-prod/notificationChannels/1234567890"]\n'
    plan(variables_only, PROD, extra(tmp_path, channel))


def test_dev_needs_no_channel(variables_only):
    plan(variables_only, DEV)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('notification_channels = ["projects/p/notificationChannels/on-call"]\n', "existing channel's id"),
        ('alert_email = "on-call"\n', "email address"),
        ("bigtable_backup_retention_days = 1\n", "from 3 to 90"),
        ('bigtable_replica_zone = "us-central1-b"\n', "must differ from bigtable_zone"),
    ],
)
def test_invalid_values_stop_the_plan(variables_only, tmp_path, text, message):
    with pytest.raises(TerraformError, match=message):
        plan(variables_only, DEV, extra(tmp_path, text))
