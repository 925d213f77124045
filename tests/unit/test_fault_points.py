"""The fault-injection crash points: armed only by their variable, for one block, and a process
that reaches an armed one dies at once (SIGKILL) after saying so in its log."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
from hedera_history.cardinal.chain_blocks import BlockHeader
from hedera_history.errors import ConfigError
from hedera_history.fault_points import FAULT_POINT_VARIABLE, STORE_AFTER_DONE, armed_block, crash_after_done


def header(number: int) -> BlockHeader:
    return BlockHeader(bytes(32), number, bytes(32), number)


def test_unset_nothing_is_armed_and_no_hook_is_installed() -> None:
    assert armed_block(STORE_AFTER_DONE, {}) is None
    assert crash_after_done({}) is None


def test_a_point_is_armed_for_one_block() -> None:
    environ = {FAULT_POINT_VARIABLE: f"{STORE_AFTER_DONE}:12"}
    assert armed_block(STORE_AFTER_DONE, environ) == 12
    hook = crash_after_done(environ)
    assert hook is not None
    hook(header(11))  # another block: nothing happens
    hook(header(13))


@pytest.mark.parametrize("value", ["store-after-done", "store-after-done:x", "nowhere:3"])
def test_a_malformed_point_is_a_config_error(value: str) -> None:
    with pytest.raises(ConfigError, match=FAULT_POINT_VARIABLE):
        armed_block(STORE_AFTER_DONE, {FAULT_POINT_VARIABLE: value})


def test_the_process_reaching_an_armed_point_kills_itself_after_logging_it() -> None:
    script = (
        "import logging, sys\n"
        "logging.basicConfig(stream=sys.stdout, level=logging.INFO)\n"
        "from hedera_history.cardinal.chain_blocks import BlockHeader\n"
        "from hedera_history.fault_points import crash_after_done\n"
        f"hook = crash_after_done({{'{FAULT_POINT_VARIABLE}': '{STORE_AFTER_DONE}:7'}})\n"
        "hook(BlockHeader(bytes(32), 7, bytes(32), 7))\n"
        "print('survived')\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == -signal.SIGKILL
    assert "fault point reached" in result.stdout
    assert "survived" not in result.stdout
