"""What a plan changes, read from a recorded `terraform show -json` plan, and reported by
`hedera-history deploy show`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history.cli.main import cli
from hedera_history.deploy.terraform_plan import Action, summarize_plan
from hedera_history.errors import TerraformError

from tests.unit.deploy.infra import REPO

RECORDED_PLAN = Path(__file__).parent / "data" / "plan.json"


def recorded() -> dict[str, Any]:
    return json.loads(RECORDED_PLAN.read_text())  # type: ignore[no-any-return]


def test_summary_counts_like_terraform():
    summary = summarize_plan(recorded())
    assert (summary.adds, summary.updates, summary.destroys) == (3, 1, 2)
    assert summary.line() == "Plan: 3 to add, 1 to change, 2 to destroy."


def test_summary_lists_each_changed_resource_with_its_action():
    changes = {change.address: change.action for change in summarize_plan(recorded()).changes}
    assert changes == {
        'google_bigtable_gc_policy.family["dev_blocks/h"]': Action.CREATE,
        'google_bigtable_table.table["dev_blocks"]': Action.CREATE,
        'google_cloudfunctions2_function.function["ingest"]': Action.UPDATE,
        'google_pubsub_subscription.pipeline["store-history"]': Action.REPLACE,
        'google_storage_bucket_object.function_source["ingest.zip"]': Action.DELETE,
    }


def test_a_plan_without_changes_is_empty():
    plan = recorded()
    plan["resource_changes"] = [c for c in plan["resource_changes"] if c["change"]["actions"] in (["no-op"], ["read"])]
    summary = summarize_plan(plan)
    assert summary.empty
    assert summary.line() == "Plan: 0 to add, 0 to change, 0 to destroy."


def test_unknown_actions_and_foreign_json_are_errors():
    plan = recorded()
    plan["resource_changes"][1]["change"]["actions"] = ["forget"]
    with pytest.raises(TerraformError, match="unknown plan actions"):
        summarize_plan(plan)
    with pytest.raises(TerraformError, match="format_version"):
        summarize_plan({"resources": []})


def test_deploy_show_reports_the_recorded_plan_as_json():
    result = CliRunner().invoke(cli, ["deploy", "--root", str(REPO), "show", str(RECORDED_PLAN), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["add"], report["change"], report["destroy"]) == (3, 1, 2)
    assert {"address": 'google_cloudfunctions2_function.function["ingest"]', "action": "update"} in report["resources"]


def test_deploy_show_prints_a_table_and_terraform_summary_line():
    result = CliRunner().invoke(cli, ["deploy", "--root", str(REPO), "show", str(RECORDED_PLAN)])
    assert result.exit_code == 0, result.output
    assert "Plan: 3 to add, 1 to change, 2 to destroy." in result.stderr
    assert 'google_pubsub_subscription.pipeline["store-history"]' in result.stderr


def test_deploy_show_of_unreadable_json_fails_cleanly(tmp_path):
    broken = tmp_path / "plan.json"
    broken.write_text("{not json")
    result = CliRunner().invoke(cli, ["deploy", "--root", str(REPO), "show", str(broken)])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: cannot read the plan JSON")
