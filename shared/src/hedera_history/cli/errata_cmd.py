"""``hedera-history errata``: create, sign, verify and apply HIP-639 errata files.

The workflow: ``create`` an unsigned errata file from a readable TOML description; each council
member ``sign --council-key``; then each node ``sign --node-key`` (node signatures cover the whole
file, so they come last); ``verify`` prints the verdict (exit 1 when refused); ``apply --dry-run``
prints exactly which cells would change, ``apply`` writes them. See docs/errata.md.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa
from rich.console import Console
from rich.table import Table

from hedera_history.cli.common import load_address_book
from hedera_history.config import Settings
from hedera_history.errata.authority import CouncilPolicy, Verdict, judge_errata
from hedera_history.errata.cell_changes import CellChange, ErrataPlan
from hedera_history.errata.cells import decode_marker, is_tombstone
from hedera_history.errata.codec import (
    parse_errata_file,
)
from hedera_history.errata.description import errata_from_description
from hedera_history.errata.errata_paths import SIGNATURE_SUFFIX, is_errata_path, parse_errata_path
from hedera_history.errata.ingest import collect_node_signatures
from hedera_history.errata.signing import add_council_signature, node_signature_file
from hedera_history.errors import ConfigError, FormatError, HistoryError
from hedera_history.formats.dispatch import parse_signature_file
from hedera_history.formats.hashing import sha384
from hedera_history.formats.names import format_timestamp
from hedera_history.formats.parsed_files import SignatureFile
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.networks import NAMES
from hedera_history.sources.local import LocalSource
from hedera_history.store import schema as s
from hedera_history.store.keys import check_entity_id

_COUNCIL_KEYS_HELP = (
    "Council public keys (hex, comma-separated) or a file of them [HEDERA_HISTORY_ERRATA_COUNCIL_KEYS]."
)


@click.group("errata")
def errata() -> None:
    """Create, sign, verify and apply HIP-639 errata files."""


# ---- create ----------------------------------------------------------------------------------


@errata.command("create")
@click.argument("description", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--out", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Where to write.")
def create(description: Path, out: Path | None) -> None:
    """Write an unsigned errata file from a TOML DESCRIPTION (see docs/errata.md for its keys)."""
    try:
        document = tomllib.loads(description.read_text())
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read the errata description: {e}", file=str(description)) from e
    data = errata_from_description(document, description.parent)
    errata_file = parse_errata_file(data, description.name)
    target = out or Path(f"{format_timestamp(errata_file.consensus_ns)}.errata")
    target.write_bytes(data)
    click.echo(
        f"{target}: errata {errata_file.errata_id} ({errata_file.entry_kind.value} at {errata_file.time_of_error})"
    )


# ---- sign ------------------------------------------------------------------------------------


@errata.command("sign")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--council-key", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="Ed25519 PEM key.")
@click.option("--node-key", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="A node's RSA PEM key.")
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Council: the signed file (default: FILE itself). Node: the signature file (default: FILE_sig beside it).",
)
def sign(file: Path, council_key: Path | None, node_key: Path | None, out: Path | None) -> None:
    """Add a council signature to FILE, or write a node's signature file for it."""
    if (council_key is None) == (node_key is None):
        raise click.UsageError("give exactly one of --council-key and --node-key")
    data = file.read_bytes()
    if council_key is not None:
        key = _private_key(council_key)
        if not isinstance(key, ed25519.Ed25519PrivateKey):
            raise click.UsageError("--council-key must be an Ed25519 private key")
        target = out or file
        target.write_bytes(add_council_signature(data, key, file.name))
        click.echo(f"{target}: council signature added")
        return
    assert node_key is not None
    node = _private_key(node_key)
    if not isinstance(node, rsa.RSAPrivateKey):
        raise click.UsageError("--node-key must be an RSA private key")
    target = out or file.with_name(file.name.removesuffix(".errata") + SIGNATURE_SUFFIX)
    target.write_bytes(node_signature_file(data, node, file.name))
    click.echo(f"{target}: node signature written (put it in the node's errata/ folder)")


def _private_key(path: Path) -> Any:
    try:
        return serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as e:
        raise ConfigError(f"cannot read the private key: {e}", file=str(path)) from e


# ---- verify and apply ------------------------------------------------------------------------


_verify_options = [
    click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path)),
    click.option(
        "--address-book",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="NodeAddressBook in force at the errata's time [HEDERA_HISTORY_ADDRESS_BOOK].",
    ),
    click.option(
        "--signature",
        "signatures",
        multiple=True,
        metavar="NODE=PATH",
        help="A node's signature file (NODE is an account or node id). Default: the node folders of the "
        "bucket layout FILE stands in.",
    ),
    click.option("--council-keys", default=None, help=_COUNCIL_KEYS_HELP),
    click.option(
        "--council-threshold",
        type=int,
        default=None,
        help="Signatures needed [HEDERA_HISTORY_ERRATA_COUNCIL_THRESHOLD].",
    ),
]


@dataclass(frozen=True)
class _Submission:
    """An errata file put to judgement: the file, its node signatures and who may ratify it."""

    file: Path
    address_book: Path | None
    signatures: tuple[str, ...]
    council_keys: str | None
    council_threshold: int | None

    def settings(self) -> Settings:
        return Settings.from_env(
            address_book=str(self.address_book) if self.address_book else None,
            errata_council_keys=self.council_keys,
            errata_council_threshold=self.council_threshold,
        )

    def judge(self, settings: Settings) -> Verdict:
        book = load_address_book(settings.address_book)
        data = self.file.read_bytes()
        signatures = _explicit_signatures(self.signatures) if self.signatures else _signatures_beside(self.file)
        return judge_errata(data, self.file.name, signatures, book, CouncilPolicy.from_settings(settings))


def _with_verify_options(command: Any) -> Any:
    """The verify options, handed to ``command`` as one ``submission``."""

    @functools.wraps(command)
    def with_submission(
        *args: Any,
        file: Path,
        address_book: Path | None,
        signatures: tuple[str, ...],
        council_keys: str | None,
        council_threshold: int | None,
        **kwargs: Any,
    ) -> Any:
        submission = _Submission(file, address_book, signatures, council_keys, council_threshold)
        return command(*args, submission=submission, **kwargs)

    function: Any = with_submission
    for option in reversed(_verify_options):
        function = option(function)
    return function


@errata.command("verify")
@_with_verify_options
@click.pass_context
def verify(ctx: click.Context, *, submission: _Submission) -> None:
    """Judge FILE: council super-majority and node stake; exit 1 when it would be refused."""
    verdict = submission.judge(submission.settings())
    console = Console()
    _print_verdict(console, verdict)
    if not verdict.accepted:
        ctx.exit(1)


@errata.command("apply")
@_with_verify_options
@click.option("--dry-run", is_flag=True, help="Print exactly which cells would change; write nothing.")
@click.option("--project", default=None, help="Google Cloud project [GOOGLE_CLOUD_PROJECT].")
@click.option("--instance", default=None, help="Bigtable instance id [HEDERA_HISTORY_BIGTABLE_INSTANCE].")
@click.option("--table-prefix", default=None, help="Prefix of every table id [HEDERA_HISTORY_TABLE_PREFIX].")
@click.pass_context
def apply(
    ctx: click.Context,
    *,
    submission: _Submission,
    dry_run: bool,
    project: str | None,
    instance: str | None,
    table_prefix: str | None,
) -> None:
    """Verify FILE, then apply it to Bigtable (or, with --dry-run, show what would change)."""
    from hedera_history.errata.apply import apply_plan, record_ratification  # noqa: PLC0415 (Bigtable loads slowly)
    from hedera_history.errata.cell_changes import plan_errata  # noqa: PLC0415
    from hedera_history.store.bigtable_client import open_gateway  # noqa: PLC0415

    settings = submission.settings().with_(
        **{
            k: v
            for k, v in {"project": project, "bigtable_instance": instance, "table_prefix": table_prefix}.items()
            if v
        }
    )
    console = Console()
    verdict = submission.judge(settings)
    _print_verdict(console, verdict)
    if not verdict.accepted or verdict.errata is None:
        ctx.exit(1)
        return
    gateway = open_gateway(settings)
    try:
        plan = plan_errata(verdict.errata, gateway, settings)
        _print_plan(console, plan, dry_run=dry_run)
        if not dry_run and not plan.already_applied:
            written = apply_plan(plan, gateway, settings, ratified_by=verdict.nodes)
            console.print(f"applied: {written} cell(s) written")
        elif not dry_run and verdict.nodes is not None:
            kept = record_ratification(verdict.errata, verdict.nodes, gateway, settings)
            if kept:
                console.print(f"already applied: {kept} ratifying signature file(s) kept")
    finally:
        gateway.close()


@errata.command("network")
@click.option(
    "--network",
    type=click.Choice(NAMES, case_sensitive=False),
    default=None,
    help="Network preset whose known errata to apply [HEDERA_HISTORY_NETWORK].",
)
@click.option("--blocks", default=None, metavar="FIRST-LAST", help="Only these blocks (default: from the progress on).")
@click.option("--apply", "write", is_flag=True, help="Write to Bigtable (without it, or with --dry-run: show only).")
@click.option("--dry-run", is_flag=True, help="Print exactly which cells would change; write nothing.")
@click.option("--project", default=None, help="Google Cloud project [GOOGLE_CLOUD_PROJECT].")
@click.option("--instance", default=None, help="Bigtable instance id [HEDERA_HISTORY_BIGTABLE_INSTANCE].")
@click.option("--table-prefix", default=None, help="Prefix of every table id [HEDERA_HISTORY_TABLE_PREFIX].")
@click.pass_context
def network(
    ctx: click.Context,
    *,
    network: str | None,
    blocks: str | None,
    write: bool,
    dry_run: bool,
    project: str | None,
    instance: str | None,
    table_prefix: str | None,
) -> None:
    """Show the known errata of a network preset (mainnet: 113 missing transactions and the 2019
    spurious-transfer rule); with --apply or --dry-run, apply them to stored blocks."""
    from hedera_history.errata.network import network_errata_for  # noqa: PLC0415
    from hedera_history.errata.network_pass import NetworkErrataPass  # noqa: PLC0415

    settings = Settings.from_env(
        network=network, project=project, bigtable_instance=instance, table_prefix=table_prefix
    )
    console = Console()
    known = network_errata_for(settings)
    if known is None:
        console.print(f"network {settings.network}: no known errata")
        return
    authority = known.authority
    console.print(
        f"network {authority.network}: {len(known.missing)} missing transaction(s) "
        f"({format_timestamp(known.missing[0].time_of_error)} .. {format_timestamp(known.missing[-1].time_of_error)}), "
        f"spurious-transfer rule before {format_timestamp(known.rule_before_ns)}"
    )
    console.print(f"authority: the preset; data sha256 {authority.data_sha256} from {authority.source}")
    if not (write or dry_run):
        return
    from hedera_history.store.bigtable_client import open_gateway  # noqa: PLC0415 (the Bigtable client loads slowly)

    gateway = open_gateway(settings)
    try:
        errata_pass = NetworkErrataPass(gateway, settings, known, dry_run=dry_run)
        if blocks:
            first, last = _block_range(blocks)
            report = errata_pass.apply_blocks(first, last)
        else:
            report = errata_pass.run()
        for plan in report.plans:
            _print_plan(console, plan, dry_run=dry_run)
        console.print(
            f"{len(report.visited)} block(s) visited, {len(report.plans)} errata "
            f"{'would be applied' if dry_run else 'applied'}, {len(report.skipped)} carried by the stream"
            + (f"; stopped at block {report.stopped_at}" if report.stopped_at is not None else "")
            + (f" ({report.pending})" if report.pending else "")
        )
        if report.pending:
            ctx.exit(1)
    finally:
        gateway.close()


def _block_range(text: str) -> tuple[int, int]:
    first, sep, last = text.partition("-")
    if not (first.isdigit() and (not sep or last.isdigit())):
        raise click.UsageError(f"--blocks takes FIRST-LAST, got {text!r}")
    return int(first), int(last or first)


def _explicit_signatures(options: tuple[str, ...]) -> dict[NodeIdentity, SignatureFile | HistoryError]:
    found: dict[NodeIdentity, SignatureFile | HistoryError] = {}
    for option in options:
        node, sep, path = option.partition("=")
        if not sep:
            raise click.UsageError(f"--signature takes NODE=PATH, got {option!r}")
        identity = NodeIdentity(node_id=int(node)) if node.isdigit() else NodeIdentity(account=check_entity_id(node))
        try:
            found[identity] = parse_signature_file(Path(path).read_bytes(), path, node=node)
        except OSError as e:
            raise ConfigError(f"cannot read the signature file: {e}", file=path) from e
        except FormatError as e:
            found[identity] = e
    return found


def _signatures_beside(file: Path) -> dict[NodeIdentity, SignatureFile | HistoryError]:
    resolved = file.resolve()
    if len(resolved.parents) < 3:
        return {}
    root = resolved.parents[2]
    relative = resolved.relative_to(root).as_posix()
    if not is_errata_path(relative):
        return {}
    return collect_node_signatures(LocalSource(str(root)), parse_errata_path(relative))


def _print_verdict(console: Console, verdict: Verdict) -> None:
    if verdict.errata is not None:
        errata_file = verdict.errata
        console.print(
            f"errata {errata_file.errata_id}: {errata_file.entry_kind.value} at {errata_file.time_of_error} "
            f"({format_timestamp(errata_file.time_of_error)}), issued at {errata_file.consensus_ns}, "
            f"{len(errata_file.body.compensating_items)} compensating item(s), file sha384 "
            f"{sha384(errata_file.data).hex()[:16]}…",
            highlight=False,
        )
    table = Table("authority", "who", "outcome")
    if verdict.council is not None:
        for key, outcome in verdict.council.outcomes.items():
            table.add_row("council", key[:16] + "…", outcome)
    if verdict.nodes is not None:
        for node, outcome in verdict.nodes.outcomes.items():
            table.add_row("node", node, outcome)
    if table.row_count:
        console.print(table)
    if verdict.accepted:
        console.print("[green]accepted[/green]")
        return
    reasons = verdict.reasons or ((verdict.error.reason,) if verdict.error is not None else ())
    for reason in reasons:
        console.print(f"[red]refused[/red]: {reason}", highlight=False)


def _print_plan(console: Console, plan: ErrataPlan, *, dry_run: bool) -> None:
    state = "superseded by " + plan.in_force if plan.superseded else "in force"
    console.print(
        f"{plan.entry_kind.value} at block {plan.block_number} index {plan.index} ({state}); "
        f"{len(plan.changes)} cell(s) {'would change' if dry_run else 'to write'}",
        highlight=False,
    )
    if plan.already_applied:
        console.print("already applied: nothing changes")
        return
    # One line per cell, never wrapped: the exact list of what changes.
    for change in plan.changes:
        console.print(
            f"{change.table} {change.key.decode('ascii', 'replace')} "
            f"{change.family}:{change.qualifier.decode('ascii', 'replace')}: "
            f"{_describe(change, change.before)} -> {_describe(change, change.value)} @ {change.timestamp_micros} µs",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )


def _describe(change: CellChange, value: bytes | None) -> str:
    if value is None:
        return "(none)"
    if is_tombstone(value):
        return "(removed)"
    if change.table == s.TRANSACTIONS and change.qualifier == b"errata":
        try:
            marker = decode_marker(value)
        except HistoryError:
            return f"{len(value)} bytes"
        return f"errata {marker.kind.value} {marker.errata_id[:12]}…"
    return f"{len(value)} bytes sha384 {sha384(value).hex()[:12]}…"


__all__ = ["errata"]
