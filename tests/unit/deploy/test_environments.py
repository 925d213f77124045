"""Every environment's variables exist, and every setting it sets is a real one with a valid value."""

from __future__ import annotations

import re
from dataclasses import fields

import pytest
from hedera_history.config import Settings, env_name
from hedera_history.deploy.repo_paths import environment, environment_names

from tests.unit.deploy.infra import REPO, expr, load_module, load_tfvars

SETTING_FIELDS = {f.name for f in fields(Settings)}
NAMES = environment_names(REPO)


@pytest.fixture(scope="module")
def root():
    return load_module()


def test_there_is_a_dev_and_a_prod_environment():
    assert {"dev", "prod"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_environment_sets_only_declared_variables(root, name):
    values = load_tfvars(environment(REPO, name).var_file)
    assert set(values) <= set(root.variables)
    assert values["project"]
    missing = [v for v, body in root.variables.items() if "default" not in body and v not in values]
    assert not missing


@pytest.mark.parametrize("name", NAMES)
def test_environment_settings_are_real_and_valid(name):
    values = load_tfvars(environment(REPO, name).var_file)
    settings = values.get("settings", {})
    assert set(settings) <= SETTING_FIELDS
    Settings.from_env({env_name(field): str(value) for field, value in settings.items()})


@pytest.mark.parametrize("name", NAMES)
def test_environment_has_a_state_backend(name):
    backend = environment(REPO, name).backend_config
    assert backend is not None
    assert re.search(r'^bucket\s*=\s*"[a-z0-9._-]+"$', backend.read_text(), re.MULTILINE)


@pytest.mark.parametrize("name", NAMES)
def test_environment_name_prefix_is_valid(root, name):
    prefix = load_tfvars(environment(REPO, name).var_file).get("name_prefix", root.variables["name_prefix"]["default"])
    assert re.fullmatch(r"[a-z][a-z0-9-]{0,12}", prefix)


def test_the_deployment_sets_only_real_settings(root):
    decided = root.modules["contract"]["setting_values"]
    text = expr(decided)
    assert text.startswith("merge(var.settings, {")
    keys = set(re.findall(r"[{,]\s*(\w+)\s*=", text))
    assert keys <= SETTING_FIELDS
    assert {"project", "bigtable_instance", "stream_bucket", "quarantine_url", "table_prefix"} <= keys


def test_variables_that_mirror_a_setting_default_to_it(root):
    defaults = Settings()
    for variable in (
        "bigtable_instance",
        "table_prefix",
        "retention_days",
        "sidecar_retention_days",
        "pubsub_topic_prefix",
        "stream_prefix",
        "requester_pays_project",
    ):
        assert root.variables[variable]["default"] == getattr(defaults, variable), variable
