"""The deploy wheel declares no console script whose module it leaves out: the command line
(``hedera-history``) and the Terraform runner are tooling, installed from the source tree."""

from __future__ import annotations

import tomllib
from typing import Any

from hedera_history.deploy.build import NOT_IN_THE_WHEEL, wheel_pyproject

from tests.unit.deploy.infra import REPO

TOOLING_MODULES = tuple(f"hedera_history.{name}." for name in NOT_IN_THE_WHEEL)


def _without_scripts(document: dict[str, Any]) -> dict[str, Any]:
    return {**document, "project": {k: v for k, v in document["project"].items() if k != "scripts"}}


def test_the_wheel_declares_none_of_the_tooling_console_scripts() -> None:
    text = (REPO / "pyproject.toml").read_text()
    source = tomllib.loads(text)
    assert source["project"]["scripts"]["hedera-history"].startswith(TOOLING_MODULES)
    wheel = tomllib.loads(wheel_pyproject(text))
    scripts = wheel["project"].get("scripts", {})
    assert not [target for target in scripts.values() if target.startswith(TOOLING_MODULES)]
    assert _without_scripts(wheel) == _without_scripts(source)


def test_a_runtime_console_script_stays() -> None:
    text = (
        '[project]\nname = "x"\n\n[project.scripts]\n'
        'hedera-history = "hedera_history.cli.main:main"\n'
        '"job" = "hedera_history.backfill.dataproc_job:main"\n'
        'terraform = "hedera_history.deploy.terraform_cli:main"\n\n[tool.other]\nhedera-history = 1\n'
    )
    wheel = tomllib.loads(wheel_pyproject(text))
    assert wheel["project"]["scripts"] == {"job": "hedera_history.backfill.dataproc_job:main"}
    assert wheel["tool"] == {"other": {"hedera-history": 1}}
