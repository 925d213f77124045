"""How ``verify`` shows a block's report: one JSON object, or a few readable lines.

JSON fields: ``version`` is ``"block"`` for every block file (HIP-1056 blocks and wrapped record
blocks alike); a wrapped record block also gives the version of the record file it wraps in
``record_version`` (2, 5 or 6; null for a native block). ``signature`` is the proof's outcome:
``scheme`` (``rsa``, ``tss``, ``none``), ``verified``, and for RSA the agreeing ``node_ids`` with
their ``stake`` of ``total_stake`` and each node's outcome, for TSS the signers' ``weight`` of
``total_weight``. ``reason`` and ``error_kind`` name the typed failure when ``ok`` is false (a proof
that could not be checked is ``unverified_proof``).
"""

from __future__ import annotations

from typing import Any

from hedera_history.formats.block_json import block_summary
from hedera_history.formats.hashing import hex_or_none
from hedera_history.verify.block_proofs import RSA, SignatureCheck
from hedera_history.verify.blocks import BlockReport

VERSION = "block"


def block_report_to_json(report: BlockReport) -> dict[str, Any]:
    block, wrapped, links = report.block, report.wrapped, report.links
    shown: dict[str, Any] = {"kind": "block", "name": report.name, "number": None, "version": VERSION}
    if block is not None:
        shown.update(block_summary(block))
        shown["name"] = report.name
        shown["items"] = shown.pop("item_counts")
        shown["proofs"] = [proof.kind for proof in block.proofs]
    shown["record_version"] = wrapped.version if wrapped is not None else None
    shown["root_hash"] = hex_or_none(report.hashes.root if report.hashes else None)
    shown["layout"] = report.hashes.layout.value if report.hashes else None
    shown["signature"] = _signature(report.signature) if report.signature else None
    shown["link"] = (
        {
            "previous": links.previous,
            "previous_root": links.previous_root.value,
            "all_block_hashes_root": links.all_block_hashes_root.value,
            "reason": links.reason or None,
        }
        if links
        else None
    )
    if wrapped is not None:
        record = wrapped.record
        shown["record_file"] = {
            "name": record.name,
            "file_hash": record.file_hash.hex(),
            "previous_hash": record.previous_hash.hex(),
            "hash": record.hash.hex(),
            "item_count": len(record.items),
            "consensus_start": record.consensus_start,
            "consensus_end": record.consensus_end,
            "sidecars": len(wrapped.sidecars),
            "amendments": len(wrapped.amendments),
        }
    shown["ok"] = report.ok
    shown["reason"] = str(report.error) if report.error else None
    shown["error_kind"] = report.error.kind if report.error else None
    return shown


def _signature(check: SignatureCheck) -> dict[str, Any]:
    shown: dict[str, Any] = {"scheme": check.scheme, "verified": check.verified, "proof": check.proof}
    if check.scheme == RSA:
        shown.update(
            node_ids=list(check.node_ids), stake=check.stake, total_stake=check.total_stake, nodes=dict(check.outcomes)
        )
    else:
        shown.update(weight=check.stake, total_weight=check.total_stake, placeholder=check.placeholder)
    return shown


def block_report_to_text(report: BlockReport) -> str:
    block = report.block
    head = f"{'OK  ' if report.ok else 'FAIL'} {report.name}"
    if block is not None:
        head += f"  block {block.number}  HAPI {block.hapi_version}  {len(block.items)} items"
    if report.wrapped is not None:
        head += f"  wraps V{report.wrapped.version}"
    if report.hashes is not None:
        head += f"  root {report.hashes.root.hex()[:16]}… ({report.hashes.layout.value})"
    check = report.signature
    if check is not None:
        head += f"  {check.scheme} {'verified' if check.verified else 'not verified'}"
        if check.scheme == RSA and check.total_stake:
            head += f" stake {check.stake}/{check.total_stake} nodes {list(check.node_ids)}"
    lines = [head]
    if report.links is not None and not report.links.ok and report.links.reason:
        lines.append(f"     chain: {report.links.reason}")
    if report.error is not None:
        lines.append(f"     error ({report.error.kind}): {report.error}")
    return "\n".join(lines)
