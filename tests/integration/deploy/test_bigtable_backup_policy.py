"""The automated backup policy of infra/bigtable.tf evaluated by the real Terraform binary: the
expressions are read from the file and planned in a provider-free module, for backups off, a week
and Bigtable's 90-day ceiling (the provider compares durations as Go prints them: "168h0m0s")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hedera_history.deploy.terraform import Terraform

from tests.unit.deploy.infra import block, expr, load_module

DAYS = {"off": 0, "week": 7, "ceiling": 90}


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    policy = block(load_module().resource("google_bigtable_table", "table"), "automated_backup_policy")
    outputs = []
    for case, days in DAYS.items():
        # each case its own variable value: the expressions name var.bigtable_backup_retention_days
        module = f"module.{case}"
        outputs.append(
            f'module "{case}" {{\n  source = "./policy"\n  bigtable_backup_retention_days = {days}\n}}\n'
            f'output "{case}" {{\n  value = {{ frequency = {module}.frequency, retention = {module}.retention }}\n}}\n'
        )
    folder = tmp_path_factory.mktemp("backup")
    (folder / "policy").mkdir()
    (folder / "policy" / "main.tf").write_text(
        'variable "bigtable_backup_retention_days" {\n  type = number\n}\n'
        f'output "frequency" {{\n  value = {expr(policy["frequency"])}\n}}\n'
        f'output "retention" {{\n  value = {expr(policy["retention_period"])}\n}}\n'
    )
    (folder / "main.tf").write_text("\n".join(outputs))
    terraform = Terraform(folder)
    terraform.init(backend=False)
    plan = Path(folder) / "backup.tfplan"
    terraform.plan(var_files=[], out=plan)
    terraform.apply(plan)
    return terraform.outputs()


def test_zero_days_turns_the_policy_off(evaluated):
    assert evaluated["off"] == {"frequency": "0", "retention": "0"}


def test_a_daily_backup_kept_the_given_days(evaluated):
    assert evaluated["week"] == {"frequency": "24h0m0s", "retention": "168h0m0s"}
    assert evaluated["ceiling"] == {"frequency": "24h0m0s", "retention": "2160h0m0s"}
