"""Entry point of the ``hedera-history`` command.

Commands are loaded lazily so that ``hedera-history verify`` does not import Spark or the
Bigtable client. Each command lives in its own module under ``hedera_history.cli``; the
listing of ``hedera-history --help`` comes from ``SUMMARIES`` and imports none of them.
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


# command name -> the first sentence of its help, for the listing (a unit test keeps them equal)
SUMMARIES: dict[str, str] = {
    "backfill": "Backfill or reprocess a range of a bucket into Bigtable with Spark.",
    "balances": "Derived hbar balances (docs/errata.md).",
    "config": "Inspect configuration.",
    "deadletters": "Dead letters of the store subscriptions (docs/transport.md).",
    "demo": "Play a generated signed network live into the local stack's bucket, follow it, query the result.",
    "deploy": "Generate the Terraform contracts, build function sources, and plan or apply infra/.",
    "doctor": "Check Python, Java, the Cloud CLI and its emulators; exit 1 if anything required is missing.",
    "errata": "Create, sign, verify and apply HIP-639 errata files.",
    "follow": "Follow the network's bucket, seconds behind, into the verification and publication path.",
    "generate": "Generate a signed V6 stream into OUT, with address-book.bin, keys/ and ground-truth.json.",
    "inspect": "Parse FILE (.rcd, .rcd.gz, sidecar _NN.rcd.gz, .rcd_sig, or a block .blk, .blk.gz, .blk.zstd) "
    "and print what it holds.",
    "load": "Verify every period under DIR (either bucket layout) and write the verified blocks.",
    "proof": "Proof bundles: one transaction or block, checkable offline (docs/proofs.md).",
    "serve": "Serve the query API (JSON-RPC, REST, /openapi.json) from the configured Bigtable instance.",
    "stack": "The local stack: emulators, the four functions and the event bridges on loopback.",
    "verify": "Verify every period and every block file under DIR in order.",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The listing click would print, from ``SUMMARIES`` instead of importing every command."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(name, click.Command(name, help=SUMMARIES.get(name, "")).get_short_help_str(limit)) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

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
