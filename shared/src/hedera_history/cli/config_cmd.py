"""``hedera-history config``: show the effective settings, or print docs/configuration.md."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from hedera_history.config import Settings, docs_markdown


@click.group("config")
def config() -> None:
    """Inspect configuration."""


@config.command("show")
def show() -> None:
    """Print the settings in force (environment applied) as JSON."""
    click.echo(json.dumps(asdict(Settings.from_env()), indent=2, sort_keys=True))


@config.command("docs")
def docs() -> None:
    """Print the configuration reference (the text of docs/configuration.md)."""
    click.echo(docs_markdown(), nl=False)
