"""What following decides, evaluated by the real Terraform binary: the expressions of infra/ (the
locals of follow.tf and the grants of iam.tf, taken from the parsed files, not copied) in a module
without providers, for a deployment fed by its own bucket, one following GCS, one following S3 with
an AWS key, and one billed to another project. Which functions are deployed, which grants apply,
who pays the reads, how many follower instances run, which secrets the follower reads."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hedera_history.deploy.catalogue import FUNCTIONS
from hedera_history.deploy.terraform import Terraform

from tests.unit.deploy.infra import expr, load_module

DECISIONS = (
    "following",
    "follow_function",
    "reads_gcs_blocks",
    "idle_identities",
    "deployed_functions",
    "function_max_instances",
    "requester_pays_project",
    "follow_aws_secrets",
    "grants_by_key",
)

# name -> the variables of that deployment
CASES: dict[str, dict[str, Any]] = {
    "own_bucket": {"follow_source": "", "max_instances": {"ingest": 10}},
    "gcs": {"follow_source": "gs://hedera-mainnet-streams", "max_instances": {"follow": 10, "store": 5}},
    "s3": {
        "follow_source": "s3://hedera-mainnet-streams",
        "follow_aws_access_key_secret": "key-id",
        "follow_aws_secret_access_key_secret": "secret-key",
    },
    "s3_blocks_too": {
        "follow_source": "s3://hedera-mainnet-streams",
        "follow_block_source": "s3://hedera-mainnet-recent-block-streams",
        "follow_aws_access_key_secret": "key-id",
        "follow_aws_secret_access_key_secret": "secret-key",
    },
    "billed_elsewhere": {"follow_source": "gs://hedera-mainnet-streams", "requester_pays_project": "billing"},
    "own_bucket_billed": {"follow_source": "", "requester_pays_project": "billing"},
}
DEFAULTS: dict[str, Any] = {
    "follow_source": "",
    "follow_block_source": "",
    "requester_pays_project": "",
    "follow_aws_access_key_secret": "",
    "follow_aws_secret_access_key_secret": "",
    "max_instances": {},
    "stream_bucket_iam": True,
}


def decisions_module() -> str:
    """The decisions of infra/ as a module: its variables, the contract's functions as a variable."""
    root = load_module()
    lines = [f'variable "{name}" {{}}' for name in (*DEFAULTS, "project", "contract_functions")]
    lines.append("locals {")
    lines.append('  backfill_worker_role = "projects/p/roles/backfill_worker"')
    lines.append(f"  grants = {json.dumps(root.locals['grants'])}")
    for name in DECISIONS:
        lines.append(f"  {name} = {hcl(root.locals[name])}")
    lines.append("}")
    lines += [f'output "{name}" {{\n  value = local.{name}\n}}' for name in DECISIONS]
    return "\n".join(lines) + "\n"


def hcl(value: Any) -> str:
    """A parsed value back to HCL: an expression as written, a literal string quoted."""
    text = expr(value)
    if isinstance(value, str) and text != value:
        return text.replace("module.contract.functions", "var.contract_functions")
    return json.dumps(value)


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("follow-decisions")
    (folder / "decisions").mkdir()
    (folder / "decisions" / "main.tf").write_text(decisions_module())
    functions = {spec.name: {"trigger": str(spec.trigger)} for spec in FUNCTIONS}
    blocks = []
    for case, values in CASES.items():
        arguments = {**DEFAULTS, **values, "project": "proj", "contract_functions": functions}
        body = "\n".join(f"  {name} = {json.dumps(value)}" for name, value in arguments.items())
        blocks.append(f'module "{case}" {{\n  source = "./decisions"\n{body}\n}}\n')
        blocks.append(f'output "{case}" {{\n  value = module.{case}\n}}\n')
    (folder / "main.tf").write_text("\n".join(blocks))
    terraform = Terraform(folder)
    terraform.init(backend=False)
    plan = folder / "decisions.tfplan"
    terraform.plan(var_files=[], out=plan)
    terraform.apply(plan)
    return terraform.outputs()


def granted(case: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(g["identity"], g["on"], g["target"]) for g in case["grants_by_key"].values()}


def test_a_deployment_fed_by_its_own_bucket_has_no_follower(evaluated: dict[str, Any]) -> None:
    case = evaluated["own_bucket"]
    assert case["following"] is False
    assert set(case["deployed_functions"]) == {spec.name for spec in FUNCTIONS} - {"follow"}
    assert case["idle_identities"] == ["follow"]
    grants = granted(case)
    assert not {g for g in grants if "follow" in (g[0], g[2])}
    assert ("ingest", "stream_bucket", "") in grants and ("events", "function", "ingest") in grants
    assert case["requester_pays_project"] == ""
    assert case["follow_aws_secrets"] == {}
    assert case["function_max_instances"]["ingest"] == 10


def test_a_deployment_following_gcs_runs_the_follower_instead_of_the_eventarc_ingest(
    evaluated: dict[str, Any],
) -> None:
    case = evaluated["gcs"]
    assert case["following"] is True
    assert set(case["deployed_functions"]) == {spec.name for spec in FUNCTIONS} - {"ingest"}
    grants = granted(case)
    assert ("scheduler", "function", "follow") in grants
    assert ("follow", "topic", "history") in grants and ("follow", "config_bucket", "") in grants
    # nothing on the followed bucket, nothing for the idle Eventarc path
    assert not {g for g in grants if g[1] == "stream_bucket"}
    assert not {g for g in grants if g[0] in ("ingest", "events") or g[2] == "ingest"}
    # the reads are billed to the deployment's project; two instances whatever max_instances says
    assert case["requester_pays_project"] == "proj"
    assert case["function_max_instances"] == {"follow": 2, "store": 5}
    assert case["follow_aws_secrets"] == {}


def test_a_deployment_following_s3_reads_its_aws_key_from_secret_manager(evaluated: dict[str, Any]) -> None:
    case = evaluated["s3"]
    assert case["follow_aws_secrets"] == {"AWS_ACCESS_KEY_ID": "key-id", "AWS_SECRET_ACCESS_KEY": "secret-key"}
    # the blocks come from the preset's GCS block bucket unless named: those reads bill the project
    assert case["reads_gcs_blocks"] is True and case["requester_pays_project"] == "proj"
    assert "follow" in case["deployed_functions"]
    blocks_on_s3 = evaluated["s3_blocks_too"]
    assert blocks_on_s3["reads_gcs_blocks"] is False
    assert blocks_on_s3["requester_pays_project"] == ""  # S3 bills the key's AWS account


def test_an_explicit_billing_project_wins(evaluated: dict[str, Any]) -> None:
    assert evaluated["billed_elsewhere"]["requester_pays_project"] == "billing"
    assert evaluated["own_bucket_billed"]["requester_pays_project"] == "billing"
