"""Small builders of HAPI transactions, records and verified blocks for the store tests."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from hedera_history import hapi
from hedera_history.block import ConsensusSummary, NodeSignature, VerifiedBlock
from hedera_history.formats.hashing import running_hash, v6_metadata_hash
from hedera_history.formats.names import record_file_name
from hedera_history.formats.parsed_files import (
    RecordFile,
    RecordItem,
    SidecarFile,
    SidecarMetadata,
    SidecarRecord,
    SidecarType,
)
from hedera_history.formats.rebuild import file_hash_of, rebuild_file_bytes
from hedera_history.formats.wire import length_delimited

NS = 1_000_000_000
BASE_NS = 1_700_000_000 * NS


def account(num: int) -> Any:
    return hapi.AccountID(shardNum=0, realmNum=0, accountNum=num)


def contract(num: int) -> Any:
    return hapi.basic_types.ContractID(shardNum=0, realmNum=0, contractNum=num)


def timestamp(ns: int) -> Any:
    return hapi.Timestamp(seconds=ns // NS, nanos=ns % NS)


def transaction_id(payer: int, valid_start_ns: int, *, nonce: int = 0, scheduled: bool = False) -> Any:
    return hapi.TransactionID(
        accountID=account(payer),
        transactionValidStart=timestamp(valid_start_ns),
        nonce=nonce,
        scheduled=scheduled,
    )


def transfer_list(*amounts: tuple[int, int]) -> Any:
    return hapi.basic_types.TransferList(
        accountAmounts=[hapi.basic_types.AccountAmount(accountID=account(a), amount=v) for a, v in amounts]
    )


def body(payer: int, valid_start_ns: int) -> Any:
    """A TransactionBody with its id and node; set one ``data`` case on it."""
    return hapi.TransactionBody(transactionID=transaction_id(payer, valid_start_ns), nodeAccountID=account(3))


def signed_transaction_bytes(transaction_body: Any) -> bytes:
    signed = hapi.SignedTransaction(bodyBytes=transaction_body.SerializeToString())
    return bytes(hapi.Transaction(signedTransactionBytes=signed.SerializeToString()).SerializeToString())


def record_for(
    transaction_body: Any,
    consensus_ns: int,
    transaction_bytes: bytes,
    *,
    status: int = 22,
    transfers: Sequence[tuple[int, int]] = (),
    nonce: int = 0,
    configure: Callable[[Any], None] | None = None,
) -> Any:
    tid = hapi.TransactionID()
    tid.CopyFrom(transaction_body.transactionID)
    tid.nonce = nonce
    record = hapi.TransactionRecord(
        transactionHash=hashlib.sha384(transaction_bytes).digest(),
        consensusTimestamp=timestamp(consensus_ns),
        transactionID=tid,
        transferList=transfer_list(*transfers),
    )
    record.receipt.status = status
    if configure is not None:
        configure(record)
    return record


@dataclass(frozen=True)
class Tx:
    consensus_ns: int
    transaction_bytes: bytes
    record_bytes: bytes

    @property
    def item(self) -> RecordItem:
        return RecordItem(self.transaction_bytes, self.record_bytes, self.consensus_ns)

    @property
    def record(self) -> Any:
        return hapi.TransactionRecord.FromString(self.record_bytes)


def transfer_tx(
    consensus_ns: int,
    payer: int,
    to: int,
    amount: int = 10,
    *,
    valid_start_ns: int | None = None,
    memo: str = "",
    status: int = 22,
) -> Tx:
    """An hbar transfer ``payer -> to`` with a fee to node 0.0.3 and 0.0.98."""
    start = consensus_ns - 5 * NS if valid_start_ns is None else valid_start_ns
    transfers = ((payer, -amount), (to, amount))
    b = body(payer, start)
    b.cryptoTransfer.transfers.CopyFrom(transfer_list(*transfers))
    b.memo = memo
    tx_bytes = signed_transaction_bytes(b)
    record = record_for(
        b,
        consensus_ns,
        tx_bytes,
        status=status,
        transfers=((payer, -amount - 3), (to, amount), (3, 1), (98, 2)),
    )
    return Tx(consensus_ns, tx_bytes, bytes(record.SerializeToString()))


def make_record_file(
    block_number: int,
    txs: Sequence[Tx],
    *,
    sidecars: Sequence[SidecarFile] = (),
    start_hash: bytes | None = None,
) -> RecordFile:
    """A V6 record file whose hashes (running, metadata, file) are all consistent."""
    start = start_hash if start_hash is not None else hashlib.sha384(b"start %d" % block_number).digest()
    items = tuple(t.item for t in txs)
    end = running_hash(start, ((i.record_bytes, i.transaction_bytes) for i in items))
    first = items[0].consensus_ns if items else BASE_NS + block_number * 2 * NS
    metas = tuple(SidecarMetadata(s.id, tuple(sorted(s.types)), s.hash) for s in sidecars)
    record = RecordFile(
        name=record_file_name(first, compressed=True).name,
        version=6,
        hapi_version=(0, 47, 0),
        items=items,
        file_hash=b"",
        metadata_hash=v6_metadata_hash((0, 47, 0), start, end, block_number),
        start_running_hash=start,
        end_running_hash=end,
        computed_end_running_hash=end,
        previous_file_hash=None,
        block_number=block_number,
        sidecars=metas,
        size=123,
    )
    rebuilt = rebuild_file_bytes(record)
    assert rebuilt is not None
    return replace(record, file_hash=file_hash_of(6, rebuilt))


def make_sidecar(sidecar_id: int, records: Sequence[tuple[int, SidecarType, bytes]]) -> SidecarFile:
    """A sidecar file of ``(consensus ns, type, raw TransactionSidecarRecord)``."""
    parsed = tuple(SidecarRecord(ns, kind, raw) for ns, kind, raw in records)
    content = b"".join(length_delimited(1, r.raw) for r in parsed)
    return SidecarFile(
        name=f"sidecar_{sidecar_id:02d}", id=sidecar_id, hash=hashlib.sha384(content).digest(), records=parsed
    )


def bytecode_sidecar_record(consensus_ns: int, contract_num: int) -> bytes:
    record = hapi.TransactionSidecarRecord(consensus_timestamp=timestamp(consensus_ns))
    record.bytecode.contract_id.CopyFrom(contract(contract_num))
    record.bytecode.runtime_bytecode = b"\x60\x80" * 40
    return bytes(record.SerializeToString())


def make_block(
    block_number: int,
    txs: Sequence[Tx],
    *,
    sidecars: Sequence[SidecarFile] = (),
    signers: Sequence[int] = (3, 4, 5),
) -> VerifiedBlock:
    record = make_record_file(block_number, txs, sidecars=sidecars)
    signatures = tuple(
        NodeSignature(f"0.0.{n}", n - 3, hashlib.sha384(b"file sig %d" % n).digest() * 8, b"meta sig %d" % n)
        for n in signers
    )
    return VerifiedBlock(
        record=record,
        block_number=block_number,
        sidecars=tuple(sidecars),
        signatures=signatures,
        consensus=ConsensusSummary(record.file_hash, record.metadata_hash, len(signers), 4),
    )
