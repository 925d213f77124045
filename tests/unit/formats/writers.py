"""Hand-built stream files (V1, V2, V5, V6, sidecars, signatures) for the reader tests.

The files themselves come from the format writers beside each reader (``formats/record_v2.py``,
``record_v5.py``, ``record_v6.py``, ``sidecar.py``, ``signature.py``); this module adds test
items, defaults and the deliberately malformed variants the writers do not make.
"""

from __future__ import annotations

import gzip
import hashlib
import struct
from dataclasses import dataclass

from hedera_history import hapi
from hedera_history.formats.hashing import EMPTY_HASH, item_hash, next_running_hash, v6_metadata_hash
from hedera_history.formats.parsed_files import SidecarMetadata
from hedera_history.formats.record_v2 import file_hash_v2, write_record_v2
from hedera_history.formats.record_v5 import hash_object as hash_object  # noqa: PLC0414 (re-exported)
from hedera_history.formats.record_v5 import metadata_hash_v5, write_record_v5
from hedera_history.formats.record_v6 import write_record_v6
from hedera_history.formats.sidecar import write_sidecar_file
from hedera_history.formats.signature import write_signature_v2 as write_signature_v2  # noqa: PLC0414
from hedera_history.formats.signature import write_signature_v5 as write_signature_v5  # noqa: PLC0414
from hedera_history.formats.signature import write_signature_v6 as write_signature_v6  # noqa: PLC0414
from hedera_history.formats.wire import length_delimited
from hedera_history.formats.wire import varint as varint  # noqa: PLC0414 (re-exported)

NS = 1_000_000_000
SIGNATURE_CLASS_ID = bytes.fromhex("13dc4b399b245c69")
len_field = length_delimited


def i32(value: int) -> bytes:
    return struct.pack(">i", value)


def i64(value: int) -> bytes:
    return struct.pack(">q", value)


@dataclass(frozen=True)
class Item:
    transaction: bytes
    record: bytes
    consensus_ns: int

    @property
    def transaction_bytes(self) -> bytes:
        return self.transaction

    @property
    def record_bytes(self) -> bytes:
        return self.record


def make_item(consensus_ns: int, memo: str = "transfer", payer: int = 1001) -> Item:
    """A small crypto transfer: serialized ``Transaction`` and ``TransactionRecord``."""
    body = hapi.TransactionBody(memo=memo, transactionFee=100_000)
    body.transactionID.accountID.accountNum = payer
    body.transactionID.transactionValidStart.seconds = consensus_ns // NS - 1
    body.nodeAccountID.accountNum = 3
    amounts = body.cryptoTransfer.transfers.accountAmounts
    amounts.add(accountID=hapi.AccountID(accountNum=payer), amount=-5)
    amounts.add(accountID=hapi.AccountID(accountNum=98), amount=5)
    signed = hapi.SignedTransaction(bodyBytes=body.SerializeToString())
    transaction = hapi.Transaction(signedTransactionBytes=signed.SerializeToString())
    record = hapi.TransactionRecord(memo=memo, transactionFee=1234)
    record.receipt.status = 22
    record.transactionHash = hashlib.sha384(transaction.SerializeToString()).digest()
    record.consensusTimestamp.seconds = consensus_ns // NS
    record.consensusTimestamp.nanos = consensus_ns % NS
    record.transactionID.CopyFrom(body.transactionID)
    return Item(transaction.SerializeToString(), record.SerializeToString(), consensus_ns)


def make_items(count: int, start_ns: int = 1_650_000_000 * NS) -> list[Item]:
    return [make_item(start_ns + index * 1000, memo=f"item {index}", payer=1001 + index) for index in range(count)]


def running_hash_of(start: bytes, items: list[Item]) -> bytes:
    running = start
    for item in items:
        running = next_running_hash(running, item_hash(item.record, item.transaction))
    return running


# ---- V1 / V2 -------------------------------------------------------------------------------------


def write_v2(items: list[Item], *, version: int = 2, hapi_version: int = 3, previous: bytes = EMPTY_HASH) -> bytes:
    return write_record_v2(items, previous_file_hash=previous, version=version, header_hapi_int=hapi_version)


def v2_file_hash(data: bytes, version: int) -> bytes:
    return file_hash_v2(version, data)


# ---- V5 ------------------------------------------------------------------------------------------


def write_v5(
    items: list[Item],
    *,
    start: bytes = EMPTY_HASH,
    end: bytes | None = None,
    hapi_version: tuple[int, int, int] = (0, 9, 0),
    object_stream_version: int = 1,
) -> bytes:
    """A V5 file; ``end`` defaults to the true running hash."""
    end = running_hash_of(start, items) if end is None else end
    return write_record_v5(
        items,
        hapi_version=hapi_version,
        start_running_hash=start,
        end_running_hash=end,
        object_stream_version=object_stream_version,
    )


def v5_metadata_hash(data: bytes) -> bytes:
    return metadata_hash_v5(data)


# ---- V6 ------------------------------------------------------------------------------------------


def hash_object_v6(value: bytes) -> hapi.HashObject:
    return hapi.HashObject(algorithm=1, length=len(value), hash=value)


def v6_item_bytes(item: Item) -> bytes:
    return len_field(1, item.transaction) + len_field(2, item.record)


def write_v6_content(
    items: list[Item],
    *,
    start: bytes = EMPTY_HASH,
    end: bytes | None = None,
    block_number: int = 7,
    hapi_version: tuple[int, int, int] = (0, 28, 0),
    sidecars: list[tuple[int, list[int], bytes]] | None = None,
    item_bytes: list[bytes] | None = None,
    extra: bytes = b"",
) -> bytes:
    """Decompressed V6 bytes: int32 6, header fields, items (field 3), end hash, block number.

    ``item_bytes`` replaces the encoded items (to test unusual encodings); ``extra`` is appended.
    """
    end = running_hash_of(start, items) if end is None else end
    if item_bytes is None:
        metadata = [SidecarMetadata(sidecar_id, tuple(types), digest) for sidecar_id, types, digest in sidecars or []]
        written = write_record_v6(
            items,
            hapi_version=hapi_version,
            start_running_hash=start,
            end_running_hash=end,
            block_number=block_number,
            sidecars=metadata,
        )
        return written + extra
    head = hapi.RecordStreamFile()
    head.hapi_proto_version.major, head.hapi_proto_version.minor, head.hapi_proto_version.patch = hapi_version
    head.start_object_running_hash.CopyFrom(hash_object_v6(start))
    encoded = item_bytes if item_bytes is not None else [v6_item_bytes(i) for i in items]
    tail = hapi.RecordStreamFile(block_number=block_number)
    tail.end_object_running_hash.CopyFrom(hash_object_v6(end))
    for sidecar_id, types, digest in sidecars or []:
        meta = tail.sidecars.add(id=sidecar_id, types=types)
        meta.hash.CopyFrom(hash_object_v6(digest))
    head_bytes: bytes = head.SerializeToString()
    tail_bytes: bytes = tail.SerializeToString()
    return i32(6) + head_bytes + b"".join(len_field(3, e) for e in encoded) + tail_bytes + extra


def gz(content: bytes, mtime: int = 0) -> bytes:
    return gzip.compress(content, mtime=mtime)


def v6_metadata_hash_of(
    start: bytes, end: bytes, block_number: int, hapi_version: tuple[int, int, int] = (0, 28, 0)
) -> bytes:
    return v6_metadata_hash(hapi_version, start, end, block_number)


# ---- sidecars ------------------------------------------------------------------------------------


def state_change_record(consensus_ns: int, contract: int, value: bytes) -> bytes:
    record = hapi.TransactionSidecarRecord()
    record.consensus_timestamp.seconds = consensus_ns // NS
    record.consensus_timestamp.nanos = consensus_ns % NS
    change = record.state_changes.contract_state_changes.add()
    change.contract_id.contractNum = contract
    change.storage_changes.add().value_written.value = value
    encoded: bytes = record.SerializeToString()
    return encoded


def bytecode_record(consensus_ns: int, contract: int, runtime: bytes) -> bytes:
    record = hapi.TransactionSidecarRecord()
    record.consensus_timestamp.seconds = consensus_ns // NS
    record.consensus_timestamp.nanos = consensus_ns % NS
    record.bytecode.contract_id.contractNum = contract
    record.bytecode.runtime_bytecode = runtime
    record.bytecode.initcode = b"\x60\x80" + runtime
    encoded: bytes = record.SerializeToString()
    return encoded


def actions_record(consensus_ns: int) -> bytes:
    record = hapi.TransactionSidecarRecord()
    record.consensus_timestamp.seconds = consensus_ns // NS
    record.consensus_timestamp.nanos = consensus_ns % NS
    record.actions.contract_actions.add(gas=21_000)
    encoded: bytes = record.SerializeToString()
    return encoded


def write_sidecar_content(records: list[bytes]) -> bytes:
    return write_sidecar_file(records)


# ---- signature files -----------------------------------------------------------------------------


def signature_object_v5(signature: bytes, *, checksum: int | None = None, kind: int = 1) -> bytes:
    checksum = 101 - len(signature) if checksum is None else checksum
    return SIGNATURE_CLASS_ID + i32(1) + i32(kind) + i32(len(signature)) + i32(checksum) + signature


def signature_object_v6(file_hash: bytes, signature: bytes) -> hapi.SignatureObject:
    return hapi.SignatureObject(
        type=1,
        length=len(signature),
        checksum=101 - len(signature),
        signature=signature,
        hash_object=hash_object_v6(file_hash),
    )
