"""Planning and applying an environment: the order of Terraform's steps, and where a plan is kept.

A plan goes to ``build/plans/<env>.tfplan``. ``apply`` takes that saved plan (after an init, so the
backend is there) or plans first when there is none, applies nothing when the plan is empty, and
removes the plan file once applied. Each step runs inside ``step(text)``, which the command line
draws as a spinner.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from hedera_history.deploy import repo_paths
from hedera_history.deploy.bootstrap import require_credentials
from hedera_history.deploy.build import require_plan_inputs
from hedera_history.deploy.terraform import Terraform
from hedera_history.deploy.terraform_plan import PlanSummary, summarize_plan

Step = Callable[[str], AbstractContextManager[object]]
"""Runs one named step: ``with step("terraform plan (dev)"): ...``."""


def plan_file(root: Path, environment: str) -> Path:
    return root / repo_paths.PLANS_DIR / f"{environment}.tfplan"


def plan_environment(root: Path, environment: repo_paths.Environment, terraform: Terraform, step: Step) -> PlanSummary:
    """Init and plan ``environment`` into its plan file; what the plan changes."""
    require_plan_inputs(root)
    require_credentials()  # before init, whose own failure would only say the backend is unreachable
    with step(f"terraform init ({environment.name})"):
        terraform.init(backend_config=environment.backend_config)
    with step(f"terraform plan ({environment.name})"):
        return terraform.plan(var_files=[environment.var_file], out=plan_file(root, environment.name))


def apply_environment(
    root: Path,
    environment: repo_paths.Environment,
    terraform: Terraform,
    step: Step,
    saved_plan: Path | None = None,
) -> PlanSummary:
    """Apply ``saved_plan`` (default the environment's plan file; planned now when missing); what it
    changed (empty: nothing was applied)."""
    saved = saved_plan or plan_file(root, environment.name)
    if saved.is_file():
        with step(f"terraform init ({environment.name})"):
            terraform.init(backend_config=environment.backend_config)
        summary = summarize_plan(terraform.show(saved))
    else:
        summary = plan_environment(root, environment, terraform, step)
        saved = plan_file(root, environment.name)  # where it was just planned
    if summary.empty:
        return summary
    with step(f"terraform apply ({summary.line()})"):
        terraform.apply(saved)
    saved.unlink(missing_ok=True)
    return summary
