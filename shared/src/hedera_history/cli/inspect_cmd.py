"""``hedera-history inspect FILE``: print any record, sidecar or signature file as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import click

from hedera_history.config import Settings, env_name
from hedera_history.errors import HistoryError
from hedera_history.formats.dispatch import inspect_file


@click.command("inspect")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--max-decompressed-bytes",
    type=int,
    default=None,
    help=f"Largest decompressed record or sidecar file accepted (env {env_name('max_decompressed_bytes')}).",
)
def inspect(file: Path, max_decompressed_bytes: int | None) -> None:
    """Parse FILE (.rcd, .rcd.gz, sidecar _NN.rcd.gz or .rcd_sig) and print what it holds."""
    try:
        limit = Settings.from_env(max_decompressed_bytes=max_decompressed_bytes).max_decompressed_bytes
        shown = inspect_file(file.read_bytes(), file.as_posix(), max_decompressed=limit)
    except HistoryError as error:
        raise click.ClickException(str(error)) from error
    click.echo(json.dumps(shown, indent=2))
