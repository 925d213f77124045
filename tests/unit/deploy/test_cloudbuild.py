"""cloudbuild.yaml parses, and every step runs a Makefile target or a script of this repository."""

from __future__ import annotations

import os
import re

import pytest
import yaml

from tests.unit.deploy.infra import REPO

EXPECTED_STAGES = (
    "lint",
    "typecheck",
    "tests",
    "functions",
    "terraform-fmt",
    "terraform-validate",
    "terraform-plan",
    "terraform-apply",
    "backfill-image",
)


def makefile_targets() -> set[str]:
    text = (REPO / "Makefile").read_text()
    return set(re.findall(r"^([A-Za-z0-9_.-]+):(?!=)", text, re.MULTILINE))


@pytest.fixture(scope="module")
def build():
    return yaml.safe_load((REPO / "cloudbuild.yaml").read_text())


def test_every_stage_is_there_in_order(build):
    assert tuple(step["id"] for step in build["steps"]) == EXPECTED_STAGES


def test_every_step_command_exists(build):
    targets = makefile_targets()
    for step in build["steps"]:
        entrypoint, args = step["entrypoint"], step.get("args", [])
        if entrypoint == "make":
            named = [arg for arg in args if not arg.startswith("-") and "=" not in arg]
            assert named, step["id"]
            assert set(named) <= targets, f"{step['id']}: {set(named) - targets} not in the Makefile"
        elif entrypoint == "bash":
            script = REPO / args[0]
            assert script.is_file(), f"{step['id']}: {args[0]} missing"
            assert os.access(script, os.X_OK), f"{step['id']}: {args[0]} not executable"
        else:
            pytest.fail(f"{step['id']}: runs {entrypoint}, neither make nor a repository script")


def test_scripts_call_only_existing_targets(build):
    targets = makefile_targets()
    calls = 0
    for step in build["steps"]:
        if step["entrypoint"] == "bash":
            text = (REPO / step["args"][0]).read_text()
            for called in re.findall(r"^\s*(?:exec\s+)?make\s+([a-z][\w-]*)", text, re.MULTILINE):
                assert called in targets, f"{step['args'][0]} calls make {called}"
                calls += 1
    assert calls == 2


def test_waits_refer_to_earlier_steps(build):
    seen: set[str] = set()
    for step in build["steps"]:
        for wanted in step.get("waitFor", []):
            assert wanted == "-" or wanted in seen, f"{step['id']} waits for {wanted}"
        seen.add(step["id"])


def test_apply_runs_only_on_main(build):
    apply = next(step for step in build["steps"] if step["id"] == "terraform-apply")
    assert "BRANCH_NAME=${BRANCH_NAME}" in apply["env"]
    script = (REPO / apply["args"][0]).read_text()
    assert '"${BRANCH_NAME:-}" != "main"' in script
    assert apply["waitFor"] == ["terraform-plan"]


def test_plan_and_apply_use_the_same_environment(build):
    steps = {step["id"]: step for step in build["steps"]}
    assert "DEPLOY_ENV=${_ENV}" in steps["terraform-plan"]["args"]
    assert "${_ENV}" in steps["terraform-apply"]["args"]
    assert "_ENV" in build["substitutions"]


def test_the_wheel_is_built_where_a_compiler_is(build):
    # The functions step builds the wheel and its compiled core (hedera_history._speedups): the full
    # python:3.11 image has gcc and the Python headers, its -slim variant neither.
    functions = next(step for step in build["steps"] if step["id"] == "functions")
    assert functions["name"] == "python:3.11"
    assert "gcc" in (REPO / "infra/scripts/ci-tests.sh").read_text()  # the test image compiles it too
