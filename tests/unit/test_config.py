from __future__ import annotations

from pathlib import Path

import pytest
from hedera_history.config import Settings, docs_markdown, env_name
from hedera_history.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_defaults_need_no_environment() -> None:
    settings = Settings.from_env({})
    assert settings.consensus_ratio == pytest.approx(1 / 3)
    assert settings.sidecars_enabled is True


def test_environment_and_overrides() -> None:
    env = {
        "HEDERA_HISTORY_START_BLOCK": "7",
        "HEDERA_HISTORY_SIDECARS_ENABLED": "false",
        "GOOGLE_CLOUD_PROJECT": "p",
    }
    settings = Settings.from_env(env, start_block=9)
    assert settings.start_block == 9
    assert settings.sidecars_enabled is False
    assert settings.project == "p"


def test_standard_variables_keep_their_names() -> None:
    assert env_name("bigtable_emulator_host") == "BIGTABLE_EMULATOR_HOST"
    assert env_name("start_block") == "HEDERA_HISTORY_START_BLOCK"


def test_bad_value_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="HEDERA_HISTORY_START_BLOCK"):
        Settings.from_env({"HEDERA_HISTORY_START_BLOCK": "seven"})


def test_configuration_docs_are_current() -> None:
    documented = (ROOT / "docs" / "configuration.md").read_text()
    assert documented == docs_markdown(), "run: hedera-history config docs > docs/configuration.md"
