"""README names every command and subcommand the command line has (hidden ones aside) and links every
page under docs/."""

from __future__ import annotations

import re
from pathlib import Path

import click
from hedera_history.cli.main import COMMANDS, cli

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def _command_cells() -> list[str]:
    """The first cell of each row of README's command table."""
    section = README.read_text().split("## Command line", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [re.split(r"(?<!\\)\|", row)[1] for row in rows]


def _subcommands(name: str) -> list[str]:
    command = cli.get_command(click.Context(cli), name)
    if not isinstance(command, click.Group):
        return []
    return sorted(sub for sub, each in command.commands.items() if not each.hidden)


def test_every_command_and_subcommand_is_in_the_readme_table() -> None:
    cells = _command_cells()
    missing = []
    for name in sorted(COMMANDS):
        own = [cell for cell in cells if cell.strip().startswith(f"`{name}")]
        if not own:
            missing.append(name)
        missing.extend(
            f"{name} {sub}" for sub in _subcommands(name) if not any(re.search(rf"\b{sub}\b", c) for c in own)
        )
    assert not missing, f"README.md's command table does not name: {', '.join(missing)}"


def test_every_docs_page_is_linked_from_the_readme() -> None:
    text = README.read_text()
    missing = [page.name for page in sorted((ROOT / "docs").glob("*.md")) if f"(docs/{page.name})" not in text]
    assert not missing, f"README.md's documentation list does not link: {', '.join(missing)}"
