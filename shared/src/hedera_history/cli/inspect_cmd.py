"""``hedera-history inspect FILE``: print any record, sidecar, signature or block file as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import click

from hedera_history.config import Settings, env_name
from hedera_history.errors import HistoryError
from hedera_history.formats.block_json import inspect_block
from hedera_history.formats.dispatch import inspect_file
from hedera_history.formats.names import is_block_file_name
from hedera_history.formats.zstd import is_zstd


@click.command("inspect")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--max-decompressed-bytes",
    type=int,
    default=None,
    help=f"Largest decompressed record, sidecar or block file accepted (env {env_name('max_decompressed_bytes')}).",
)
def inspect(file: Path, max_decompressed_bytes: int | None) -> None:
    """Parse FILE (.rcd, .rcd.gz, sidecar _NN.rcd.gz, .rcd_sig, or a block .blk, .blk.gz, .blk.zstd)
    and print what it holds."""
    try:
        limit = Settings.from_env(max_decompressed_bytes=max_decompressed_bytes).max_decompressed_bytes
        data = file.read_bytes()
        if is_block_file_name(file.name) or is_zstd(data):
            shown = inspect_block(data, file.as_posix(), max_decompressed=limit)
        else:
            shown = inspect_file(data, file.as_posix(), max_decompressed=limit)
    except HistoryError as error:
        raise click.ClickException(str(error)) from error
    click.echo(json.dumps(shown, indent=2))
