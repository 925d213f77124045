"""``stack up --network``: the preset reaches the functions; the stack keeps its own bucket and book."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hedera_history.cli import stack_cmd
from hedera_history.localstack import stack as local_stack


class _StartedError(Exception):
    pass


def test_the_network_goes_to_the_functions_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    class Recorder:
        def __init__(self, config: local_stack.StackConfig, **_: Any) -> None:
            seen["config"] = config
            raise _StartedError

    monkeypatch.setattr(local_stack, "LocalStack", Recorder)
    monkeypatch.delenv("HEDERA_HISTORY_NETWORK", raising=False)
    result = CliRunner().invoke(
        stack_cmd.stack, ["up", "--state-dir", str(tmp_path), "--network", "mainnet", "--env", "X=1"], env={}
    )
    assert isinstance(result.exception, _StartedError)
    config = seen["config"]
    assert dict(config.extra_env) == {"HEDERA_HISTORY_NETWORK": "mainnet", "X": "1"}
    assert config.bucket == "hedera-streams" and config.address_book is None
