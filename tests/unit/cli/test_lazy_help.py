"""``hedera-history --help`` lists the commands from a table, without importing any of them."""

from __future__ import annotations

import subprocess
import sys

import click
from hedera_history.cli.main import COMMANDS, SUMMARIES, cli


def _listing(format_commands: object) -> str:
    ctx = click.Context(cli, info_name="hedera-history")
    formatter = ctx.make_formatter()
    format_commands(cli, ctx, formatter)  # type: ignore[operator]
    return formatter.getvalue()


def test_every_command_has_a_summary() -> None:
    assert set(SUMMARIES) == set(COMMANDS)


def test_the_listing_is_what_click_prints_from_the_commands_themselves() -> None:
    # click.Group's own listing imports every command and shortens its help.
    assert _listing(type(cli).format_commands) == _listing(click.Group.format_commands), (
        "a command's help changed: update SUMMARIES in hedera_history/cli/main.py"
    )


def test_help_imports_no_command_module() -> None:
    script = (
        "import sys\n"
        "from hedera_history.cli.main import cli\n"
        "try:\n"
        "    cli(['--help'], standalone_mode=False)\n"
        "finally:\n"
        "    loaded = [m for m in sys.modules if m.startswith('hedera_history.cli.')]\n"
        "    print(sorted(m for m in loaded if m != 'hedera_history.cli.main'))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    assert "Commands:" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "[]"
