"""Entry point of the ``hedera-history`` command.

Commands are loaded lazily so that ``hedera-history verify`` does not import Spark or the
Bigtable client. Each command lives in its own module under ``hedera_history.cli``.
"""

from __future__ import annotations

import importlib
import sys

import click

from hedera_history import __version__
from hedera_history.errors import HistoryError

# command name -> "module:attribute" (a click.Command)
COMMANDS: dict[str, str] = {
    "verify": "hedera_history.cli.verify_cmd:verify",
    "inspect": "hedera_history.cli.inspect_cmd:inspect",
    "generate": "hedera_history.cli.generate_cmd:generate",
    "config": "hedera_history.cli.config_cmd:config",
    "demo": "hedera_history.cli.demo_cmd:demo",
    "doctor": "hedera_history.cli.doctor_cmd:doctor",
    "load": "hedera_history.cli.load_cmd:load",
    "serve": "hedera_history.cli.serve_cmd:serve",
    "errata": "hedera_history.cli.errata_cmd:errata",
    "backfill": "hedera_history.cli.backfill_cmd:backfill",
    "balances": "hedera_history.cli.balances_cmd:balances",
    "stack": "hedera_history.cli.stack_cmd:stack",
    "deploy": "hedera_history.cli.deploy_cmd:deploy",
    "deadletters": "hedera_history.cli.deadletters_cmd:deadletters",
    "follow": "hedera_history.cli.follow_cmd:follow",
    "proof": "hedera_history.cli.proof_cmd:proof",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hedera-history")
def cli() -> None:
    """Verified Hedera record-stream history in Cloud Bigtable."""


def main() -> None:
    try:
        # Without standalone mode click returns (not raises) the code of a command's ctx.exit(n).
        code = cli(standalone_mode=False)
        if isinstance(code, int) and code != 0:
            sys.exit(code)
    except click.exceptions.Exit as stop:
        sys.exit(stop.exit_code)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except HistoryError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
