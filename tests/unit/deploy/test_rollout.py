"""The order of an environment's Terraform steps, with a stand-in for Terraform (no binary, no cloud)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import pytest
from hedera_history.deploy import rollout
from hedera_history.deploy.repo_paths import Environment
from hedera_history.deploy.terraform import Terraform
from hedera_history.deploy.terraform_plan import PlanSummary, summarize_plan

CREATE_ONE = {
    "format_version": "1.2",
    "resource_changes": [{"address": "google_storage_bucket.streams", "change": {"actions": ["create"]}}],
}
NOTHING = {"format_version": "1.2", "resource_changes": []}


class FakeTerraform:
    def __init__(self, plan: dict[str, Any]) -> None:
        self.plan_json = plan
        self.calls: list[str] = []

    def init(self, *, backend_config: Path | None = None, backend: bool = True) -> str:
        self.calls.append("init")
        return ""

    def plan(self, *, var_files: list[Path], out: Path) -> PlanSummary:
        self.calls.append(f"plan -> {out.name}")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("planned")
        return summarize_plan(self.plan_json)

    def show(self, plan_file: Path) -> dict[str, Any]:
        self.calls.append(f"show {plan_file.name}")
        return self.plan_json

    def apply(self, plan_file: Path) -> str:
        self.calls.append(f"apply {plan_file.name}")
        return ""


@pytest.fixture
def steps() -> list[str]:
    return []


@pytest.fixture(autouse=True)
def _no_inputs_or_credentials_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rollout, "require_plan_inputs", lambda root: None)
    monkeypatch.setattr(rollout, "require_credentials", lambda: (None, None))


def _step(steps: list[str]) -> rollout.Step:
    @contextmanager
    def step(text: str) -> Iterator[None]:
        steps.append(text)
        yield

    return step


DEV = Environment("dev", Path("infra/environments/dev.tfvars"), None)


def test_a_saved_plan_is_shown_applied_and_removed(tmp_path: Path, steps: list[str]) -> None:
    saved = rollout.plan_file(tmp_path, "dev")
    saved.parent.mkdir(parents=True)
    saved.write_text("saved")
    terraform = FakeTerraform(CREATE_ONE)
    summary = rollout.apply_environment(tmp_path, DEV, cast(Terraform, terraform), _step(steps))
    assert terraform.calls == ["init", "show dev.tfplan", "apply dev.tfplan"]
    assert steps == ["terraform init (dev)", f"terraform apply ({summary.line()})"]
    assert not saved.exists()


def test_without_a_saved_plan_it_plans_first_and_applies_what_it_planned(tmp_path: Path, steps: list[str]) -> None:
    terraform = FakeTerraform(CREATE_ONE)
    given = tmp_path / "elsewhere.tfplan"  # named but never made
    rollout.apply_environment(tmp_path, DEV, cast(Terraform, terraform), _step(steps), saved_plan=given)
    assert terraform.calls == ["init", "plan -> dev.tfplan", "apply dev.tfplan"]
    assert steps[:2] == ["terraform init (dev)", "terraform plan (dev)"]


def test_an_empty_plan_applies_nothing_and_keeps_the_file(tmp_path: Path, steps: list[str]) -> None:
    terraform = FakeTerraform(NOTHING)
    summary = rollout.apply_environment(tmp_path, DEV, cast(Terraform, terraform), _step(steps))
    assert summary.empty
    assert "apply" not in " ".join(terraform.calls)
    assert rollout.plan_file(tmp_path, "dev").is_file()
