"""Small builders for verification tests: V6 and V2 record files, sidecars, signatures, periods."""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
from hedera_history import hapi
from hedera_history.formats.hashing import running_hash, sha384, v6_metadata_hash
from hedera_history.formats.names import format_timestamp
from hedera_history.formats.parsed_files import RecordItem, SidecarMetadata
from hedera_history.formats.record_v2 import file_hash_v2, write_record_v2
from hedera_history.formats.record_v6 import write_record_v6
from hedera_history.formats.signature import write_signature_v2, write_signature_v6
from hedera_history.formats.stream_paths import NodeIdentity
from hedera_history.formats.wire import length_delimited
from hedera_history.verify.period import FetchedFile
from hedera_history.verify.signatures import sign_hash

HAPI = (0, 28, 0)
SUCCESS = hapi.ResponseCodeEnum.Value("SUCCESS")


def transaction_bytes(body: hapi.TransactionBody | None = None, *, how: str = "signed") -> bytes:
    body = body or hapi.TransactionBody(memo="test")
    if how == "signed":
        signed = hapi.SignedTransaction(bodyBytes=body.SerializeToString())
        return bytes(hapi.Transaction(signedTransactionBytes=signed.SerializeToString()).SerializeToString())
    if how == "body_bytes":
        return bytes(hapi.Transaction(bodyBytes=body.SerializeToString()).SerializeToString())
    transaction = hapi.Transaction()
    transaction.body.CopyFrom(body)
    return bytes(transaction.SerializeToString())


def record_bytes(consensus_ns: int, status: int = SUCCESS) -> bytes:
    record = hapi.TransactionRecord()
    record.receipt.status = status
    record.consensusTimestamp.seconds, record.consensusTimestamp.nanos = divmod(consensus_ns, 1_000_000_000)
    return bytes(record.SerializeToString())


def file_transaction(kind: str, file_num: int, contents: bytes) -> bytes:
    body = hapi.TransactionBody()
    operation = body.fileUpdate if kind == "update" else body.fileAppend
    operation.fileID.fileNum = file_num
    operation.contents = contents
    return transaction_bytes(body)


@dataclass(frozen=True)
class SidecarSpec:
    id: int
    data: bytes
    """Compressed bytes as stored."""
    hash: bytes
    types: tuple[int, ...]


def sidecar(
    sidecar_id: int, consensus_ns: int, types: Sequence[int] = (1,), *, unknown_fields: Sequence[int] = ()
) -> SidecarSpec:
    """Records of ``types`` (1 state changes, 2 actions, else bytecode), then one record per
    ``unknown_fields`` entry whose payload is that ``TransactionSidecarRecord`` field number, as a
    newer HAPI version would write it; the promised types are ``types`` only."""
    message = hapi.SidecarFile()
    for offset, kind in enumerate(types):
        record = message.sidecar_records.add()
        record.consensus_timestamp.seconds, record.consensus_timestamp.nanos = divmod(
            consensus_ns + offset, 1_000_000_000
        )
        if kind == 1:
            record.state_changes.contract_state_changes.add()
        elif kind == 2:
            record.actions.contract_actions.add()
        else:
            record.bytecode.initcode = b"\x60\x00"
    raw = bytes(message.SerializeToString())
    for offset, number in enumerate(unknown_fields, start=len(types)):
        raw += length_delimited(1, unknown_sidecar_record(consensus_ns + offset, number))
    return SidecarSpec(sidecar_id, gzip.compress(raw), sha384(raw), tuple(types))


def unknown_sidecar_record(consensus_ns: int, field_number: int, payload: bytes = b"\x0a\x02\xca\xfe") -> bytes:
    """A ``TransactionSidecarRecord`` whose payload is field ``field_number`` (unknown to this HAPI)."""
    record = hapi.TransactionSidecarRecord()
    record.consensus_timestamp.seconds, record.consensus_timestamp.nanos = divmod(consensus_ns, 1_000_000_000)
    return bytes(record.SerializeToString()) + length_delimited(field_number, payload)


@dataclass(frozen=True)
class V6File:
    name: str
    data: bytes
    file_hash: bytes
    metadata_hash: bytes
    start: bytes
    end: bytes
    block_number: int


def v6_record(
    consensus_ns: int,
    *,
    start: bytes,
    block_number: int,
    items: Sequence[tuple[bytes, bytes]] | None = None,
    sidecars: Sequence[SidecarSpec] = (),
    claimed_end: bytes | None = None,
    sidecar_types: dict[int, tuple[int, ...]] | None = None,
) -> V6File:
    """A gzip V6 record file; ``items`` are (transaction, record) bytes; ``claimed_end`` lies."""
    items = list(items) if items is not None else [(transaction_bytes(), record_bytes(consensus_ns))]
    end = running_hash(start, [(rec, tx) for tx, rec in items])
    stated_end = claimed_end if claimed_end is not None else end
    content = write_record_v6(
        [RecordItem(tx, rec, consensus_ns) for tx, rec in items],
        hapi_version=HAPI,
        start_running_hash=start,
        end_running_hash=stated_end,
        block_number=block_number,
        sidecars=[
            SidecarMetadata(spec.id, tuple((sidecar_types or {}).get(spec.id, spec.types)), spec.hash)
            for spec in sidecars
        ],
    )
    return V6File(
        name=f"{format_timestamp(consensus_ns)}.rcd.gz",
        data=gzip.compress(content),
        file_hash=sha384(content),
        metadata_hash=v6_metadata_hash(HAPI, start, stated_end, block_number),
        start=start,
        end=stated_end,
        block_number=block_number,
    )


def v2_record(consensus_ns: int, *, previous_file_hash: bytes) -> tuple[str, bytes, bytes]:
    """A V2 record file: (name, bytes, file hash)."""
    item = RecordItem(transaction_bytes(), record_bytes(consensus_ns), consensus_ns)
    data = write_record_v2([item], previous_file_hash=previous_file_hash, version=2, header_hapi_int=28)
    return f"{format_timestamp(consensus_ns)}.rcd", data, file_hash_v2(2, data)


def v6_signature(key: RSAPrivateKey, file_hash: bytes, metadata_hash: bytes) -> bytes:
    return write_signature_v6(file_hash, sign_hash(key, file_hash), metadata_hash, sign_hash(key, metadata_hash))


def v2_signature(key: RSAPrivateKey, file_hash: bytes) -> bytes:
    return write_signature_v2(file_hash, sign_hash(key, file_hash))


@dataclass
class MemoryPeriod:
    """A PeriodFiles over dicts, counting fetches."""

    period_key: str
    signatures: dict[NodeIdentity, FetchedFile] = field(default_factory=dict)
    records: dict[NodeIdentity, FetchedFile] = field(default_factory=dict)
    sidecars: dict[tuple[NodeIdentity, int], FetchedFile] = field(default_factory=dict)
    fetches: list[tuple[str, NodeIdentity]] = field(default_factory=list)

    def nodes(self) -> list[NodeIdentity]:
        found = {*self.signatures, *self.records, *(node for node, _ in self.sidecars)}
        return sorted(found, key=str)

    def signature(self, node: NodeIdentity) -> FetchedFile | None:
        self.fetches.append(("signature", node))
        return self.signatures.get(node)

    def record(self, node: NodeIdentity) -> FetchedFile | None:
        self.fetches.append(("record", node))
        return self.records.get(node)

    def sidecar(self, node: NodeIdentity, sidecar_id: int) -> FetchedFile | None:
        self.fetches.append(("sidecar", node))
        return self.sidecars.get((node, sidecar_id))


def account(num: int) -> NodeIdentity:
    return NodeIdentity(account=f"0.0.{num}")


def v6_period(
    keys: dict[int, RSAPrivateKey],
    record: V6File,
    *,
    sidecars: Sequence[SidecarSpec] = (),
    signers: Sequence[int] | None = None,
    record_holders: Sequence[int] | None = None,
) -> MemoryPeriod:
    """Every node (account num -> key) uploads the record, its sidecars and a signature."""
    key = record.name.removesuffix(".rcd.gz")
    period = MemoryPeriod(key)
    for num, private in keys.items():
        node = account(num)
        if signers is None or num in signers:
            period.signatures[node] = FetchedFile(
                f"{key}.rcd_sig", v6_signature(private, record.file_hash, record.metadata_hash)
            )
        if record_holders is None or num in record_holders:
            period.records[node] = FetchedFile(record.name, record.data)
            for spec in sidecars:
                period.sidecars[(node, spec.id)] = FetchedFile(f"{key}_{spec.id:02d}.rcd.gz", spec.data)
    return period
