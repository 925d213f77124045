"""Stored history as mirror-node shaped JSON."""

from __future__ import annotations

import base64
from collections.abc import Iterable
from typing import Any

from hedera_history import hapi
from hedera_history.api.entities import transaction_entity_id, transaction_type_name
from hedera_history.errata.cells import ErrataMarker, decode_marker
from hedera_history.errata.read import mirror_errata_field
from hedera_history.errors import CorruptFileError, RowDecodeError
from hedera_history.formats.transactions import transaction_body
from hedera_history.store.decode import HashResult, StoredBlock, StoredTransaction

NS = 1_000_000_000


def timestamp(ns: int) -> str:
    """``seconds.nanos`` as the mirror node writes consensus timestamps."""
    return f"{ns // NS}.{ns % NS:09d}"


def transaction_id_string(payer: str, valid_start_ns: int) -> str:
    return f"{payer}-{valid_start_ns // NS}-{valid_start_ns % NS:09d}"


def status_name(status: int) -> str:
    try:
        return str(hapi.ResponseCodeEnum.Name(status))
    except ValueError:
        return str(status)


def _entity(identifier: Any, field: str) -> str | None:
    num = getattr(identifier, field, 0)
    if not num:
        return None
    return f"{identifier.shardNum}.{identifier.realmNum}.{num}"


def _ns(stamp: Any) -> int:
    return int(stamp.seconds) * NS + int(stamp.nanos)


UNSIGNED = "unsigned"
"""Beyond the reference (docs/api.md): ``true`` on a block stored unsigned and on each of its
transactions; absent on every other."""


def render_block(block: StoredBlock) -> dict[str, Any]:
    rendered = {
        "count": block.item_count,
        "hapi_version": ".".join(str(v) for v in block.hapi_version),
        # As the mirror node: the hash the next block names (end running hash; V1/V2: file hash).
        "hash": "0x" + (block.end_running_hash or block.file_hash).hex(),
        "file_hash": "0x" + block.file_hash.hex(),
        "name": block.name,
        "number": block.number,
        "previous_hash": "0x" + block.previous_hash.hex(),
        "size": None,
        "timestamp": {"from": timestamp(block.consensus_start), "to": timestamp(block.consensus_end)},
        "gas_used": block.gas_used,
        "logs_bloom": None if block.logs_bloom is None else "0x" + block.logs_bloom.hex(),
        "record_file_version": block.version,
        "end_running_hash": None if block.end_running_hash is None else "0x" + block.end_running_hash.hex(),
        "signatures": len(block.signatures),
    }
    if block.unsigned:
        rendered[UNSIGNED] = True
    return rendered


def errata_field(stored: StoredTransaction) -> str | None:
    """The mirror node's ``errata`` field: INSERT, UPDATE or DELETE when an errata corrected the
    entry, None when it stands as the stream delivered it."""
    if stored.errata_marker is None:
        return None
    try:
        return mirror_errata_field(decode_marker(stored.errata_marker))
    except RowDecodeError as e:
        raise RowDecodeError(f"transactions row at {timestamp(stored.consensus_ns)}: {e.reason}") from e


def render_transactions(stored: Iterable[StoredTransaction]) -> tuple[list[dict[str, Any]], list[RowDecodeError]]:
    """A listing: every transaction that renders, and the errors of those left out."""
    rendered: list[dict[str, Any]] = []
    errors: list[RowDecodeError] = []
    for transaction in stored:
        try:
            rendered.append(render_transaction(transaction))
        except RowDecodeError as e:
            errors.append(e)
    return rendered, errors


def render_transaction(stored: StoredTransaction) -> dict[str, Any]:
    record = stored.record()
    tid = record.transactionID
    payer = _entity(tid.accountID, "accountNum") or "0.0.0"
    valid_start = _ns(tid.transactionValidStart)
    try:
        body: Any | None = transaction_body(stored.transaction_bytes)
    except CorruptFileError:
        body = None
    case = body.WhichOneof("data") if body is not None else None
    parent = _ns(record.parent_consensus_timestamp) if record.HasField("parent_consensus_timestamp") else None
    return {
        "consensus_timestamp": timestamp(stored.consensus_ns),
        "transaction_id": transaction_id_string(payer, valid_start),
        "transaction_hash": base64.b64encode(record.transactionHash).decode(),
        "result": status_name(record.receipt.status),
        "name": transaction_type_name(case),
        "charged_tx_fee": int(record.transactionFee),
        "max_fee": str(body.transactionFee) if body is not None else None,
        "memo_base64": base64.b64encode(record.memo.encode()).decode(),
        "node": _entity(body.nodeAccountID, "accountNum") if body is not None else None,
        "nonce": int(tid.nonce),
        "scheduled": bool(tid.scheduled),
        "parent_consensus_timestamp": None if parent is None else timestamp(parent),
        "valid_start_timestamp": timestamp(valid_start),
        "valid_duration_seconds": str(body.transactionValidDuration.seconds) if body is not None else None,
        "entity_id": transaction_entity_id(body, case, record.receipt),
        "transfers": [
            {"account": _entity(aa.accountID, "accountNum"), "amount": int(aa.amount), "is_approval": aa.is_approval}
            for aa in record.transferList.accountAmounts
        ],
        "token_transfers": [
            {
                "token_id": _entity(tl.token, "tokenNum"),
                "account": _entity(aa.accountID, "accountNum"),
                "amount": int(aa.amount),
                "is_approval": aa.is_approval,
            }
            for tl in record.tokenTransferLists
            for aa in tl.transfers
        ],
        "nft_transfers": [
            {
                "token_id": _entity(tl.token, "tokenNum"),
                "sender_account_id": _entity(nft.senderAccountID, "accountNum"),
                "receiver_account_id": _entity(nft.receiverAccountID, "accountNum"),
                "serial_number": int(nft.serialNumber),
                "is_approval": nft.is_approval,
            }
            for tl in record.tokenTransferLists
            for nft in tl.nftTransfers
        ],
        "block_number": stored.block_number,
        "index": stored.index,
        "errata": errata_field(stored),
    }


def render_status(
    transaction_hash: bytes, result: HashResult | None, marker: ErrataMarker | None = None
) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        "transaction_hash": transaction_hash.hex(),
        "consensus_timestamp": timestamp(result.consensus_ns),
        "block_number": result.block_number,
        "result": status_name(result.status),
        "errata": mirror_errata_field(marker),
    }
