"""``hedera-history verify DIR``: verify the periods and block files under a directory, one result each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from hedera_history.cli.block_reports import block_report_to_json, block_report_to_text
from hedera_history.cli.common import consensus_ratio as consensus_ratio_of
from hedera_history.cli.common import (
    load_address_book,
    local_stream,
    local_stream_arguments,
    local_stream_settings,
    network_options,
)
from hedera_history.formats.hashing import hex_or_none
from hedera_history.pipeline.local_load import verify_numbered
from hedera_history.sources.ledger_trust import ledger_tss_check
from hedera_history.sources.local_blocks import find_block_runs
from hedera_history.sources.local_periods import find_local_periods
from hedera_history.verify.blocks import BlockCheckOptions, verify_blocks
from hedera_history.verify.stream import PeriodResult


@click.command("verify")
@local_stream_arguments
@click.option(
    "--consensus-ratio",
    default=None,
    help="Share of total stake that must sign one file hash, e.g. 1/3. [HEDERA_HISTORY_CONSENSUS_RATIO]",
)
@click.option(
    "--start-block",
    type=int,
    default=None,
    help="Block number of the first file before V6. [HEDERA_HISTORY_START_BLOCK]",
)
@click.option(
    "--sidecars/--no-sidecars",
    default=None,
    help="Fetch and verify sidecar files. [HEDERA_HISTORY_SIDECARS_ENABLED]",
)
@click.option(
    "--ledger-publication",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Check native blocks' TSS signatures against this ledger id publication (a SignedTransaction, "
    "as generate writes ledger-id-publication.bin); a native block 0 in DIR publishes its own. "
    "[HEDERA_HISTORY_LEDGER_PUBLICATION]",
)
@network_options
@click.option("--json", "as_json", is_flag=True, help="One JSON object a line.")
@click.pass_context
def verify(
    ctx: click.Context,
    *,
    directory: Path,
    address_book: Path | None,
    consensus_ratio: str | None,
    start_block: int | None,
    sidecars: bool | None,
    network: str | None,
    block_pin: str | None,
    ledger_publication: Path | None,
    as_json: bool,
) -> None:
    """Verify every period and every block file under DIR in order.

    Record files in either bucket layout, at any level of it; block files (.blk, .blk.gz,
    .blk.zstd) in the block bucket layout or flat, each folder its own chain (docs/block-streams.md).
    Exits 0 only when every period and every block verified: a block whose proof cannot be
    checked here (TSS) is not verified.
    """
    settings = local_stream_settings(
        address_book,
        start_block,
        sidecars,
        network,
        block_pin,
        ledger_publication=str(ledger_publication) if ledger_publication is not None else None,
    )
    ratio = consensus_ratio_of(consensus_ratio, settings)
    periods = find_local_periods(directory)
    block_runs = find_block_runs(directory, max_decompressed=settings.max_decompressed_bytes)
    if not periods and not block_runs:
        raise click.ClickException(f"no stream files in a known bucket layout and no block files under {directory}")
    all_ok = True
    if periods:
        stream = local_stream(directory, settings, periods)
        results = verify_numbered(stream.periods, stream.book, stream.numbering, ratio=ratio, settings=settings)
        for result in results:
            all_ok &= result.ok
            if as_json:
                shown = result_to_json(result, sidecars=settings.sidecars_enabled)
                click.echo(json.dumps(shown, separators=(",", ":")))
            else:
                click.echo(result_to_text(result))
    book = load_address_book(settings.address_book, settings) if settings.address_book else None
    # A native block 0 in DIR publishes its own ledger; without it or a ledger publication a later
    # native block is reported unverifiable, never passed.
    tss = ledger_tss_check(settings)
    options = BlockCheckOptions(ratio=ratio, tss=tss, max_decompressed=settings.max_decompressed_bytes)
    for run in block_runs:
        for report in verify_blocks(run, book, options):
            all_ok &= report.ok
            if as_json:
                click.echo(json.dumps(block_report_to_json(report), separators=(",", ":")))
            else:
                click.echo(block_report_to_text(report))
    if not all_ok:
        ctx.exit(1)


def result_to_json(result: PeriodResult, *, sidecars: bool = True) -> dict[str, Any]:
    """One period's result as a JSON-ready dict (hashes as lowercase hex, times as ns integers)."""
    report = result.report
    record = report.record
    block = report.block
    fetched = {s.id: s for s in block.sidecars} if block else {}
    consensus = report.consensus
    return {
        "name": record.name if record else report.period_key,
        "period": report.period_key,
        "version": record.version if record else None,
        "block_number": result.block_number if record else None,
        "item_count": len(record.items) if record else None,
        "size": record.size if record else None,
        "consensus_start": record.consensus_start if record else None,
        "consensus_end": record.consensus_end if record else None,
        "hapi_version": ".".join(str(part) for part in record.hapi_version) if record else None,
        "start_running_hash": hex_or_none(record.start_running_hash if record else None),
        "end_running_hash": hex_or_none(record.end_running_hash if record else None),
        "previous_file_hash": hex_or_none(record.previous_file_hash if record else None),
        # The chain link in the reference's terms, whatever the version: what this file names as its
        # predecessor's end, and what its successor must name.
        "previous_hash": hex_or_none(record.previous_hash if record else None),
        "hash": hex_or_none(record.hash if record else None),
        "file_hash": hex_or_none(record.file_hash if record else None),
        "metadata_hash": hex_or_none(record.metadata_hash if record else None),
        "sidecars": [
            {
                "id": meta.id,
                "types": sorted(meta.types),
                "hash": meta.hash.hex(),
                "record_count": len(fetched[meta.id].records) if meta.id in fetched else None,
            }
            for meta in (record.sidecars if record else ())
        ],
        "sidecars_checked": sidecars and block is not None,
        "nodes": dict(consensus.outcomes) if consensus else {},
        "consensus": {
            "file_hash": hex_or_none(consensus.file_hash),
            "stake": consensus.stake,
            "total_stake": consensus.total_stake,
            "ratio": str(consensus.ratio),
            "reached": consensus.reached,
            "fork": consensus.fork,
            "rival_stake": consensus.rival_stake,
        }
        if consensus
        else None,
        "link": {
            "previous": result.link.previous,
            "status": result.link.status.value,
            "reason": result.link.reason or None,
        }
        if result.link
        else None,
        "address_book_changed": result.new_book is not None,
        "node_stakes_changed": (
            {str(node): stake for node, stake in result.new_stakes.entries} if result.new_stakes else None
        ),
        "ok": result.ok,
        "error": str(result.error) if result.error else None,
        "error_kind": result.error.kind if result.error else None,
    }


def result_to_text(result: PeriodResult) -> str:
    """One period's result as a few readable lines."""
    report = result.report
    record = report.record
    name = record.name if record else report.period_key
    head = f"{'OK  ' if result.ok else 'FAIL'} {name}"
    if record:
        head += f"  V{record.version}  block {result.block_number}  {len(record.items)} items"
    if report.consensus and report.consensus.file_hash is not None:
        c = report.consensus
        head += f"  stake {c.stake}/{c.total_stake}"
    lines = [head]
    if result.link and not result.link.ok:
        lines.append(f"     chain: {result.link.status.value}: {result.link.reason}")
    if result.new_book is not None:
        lines.append(f"     address book changes: {len(result.new_book.nodes)} nodes from the next period")
    if result.new_stakes is not None:
        lines.append(f"     node stakes change: {len(result.new_stakes.entries)} nodes from the next period")
    if result.error:
        lines.append(f"     error ({result.error.kind}): {result.error}")
    if report.consensus:
        bad = {node: outcome for node, outcome in report.consensus.outcomes.items() if outcome != "ok"}
        lines.extend(f"     node {node}: {outcome}" for node, outcome in bad.items())
    return "\n".join(lines)
