"""A native block as the record file (and sidecar file) the row builder reads.

The reference mirror node stores a block as a record file of version 7 with the block's root hash
as its hash and the footer's previous block root as its previous hash, its HAPI version from the
header, and a block without transactions starts and ends at its header's timestamp. Here the
same values fill the fields the chain link reads from V5 on (the start running hash is the
previous block's root, the end running hash this block's), so a block links to the one before
it as record files do. Sidecar records the trace data gives stand in one sidecar file
of id 1, with no hash (nothing signs them apart from the block).
"""

from __future__ import annotations

from hedera_history.formats.block import BlockFile
from hedera_history.formats.block_hash import block_root_hash
from hedera_history.formats.block_records import BlockRecords, block_records
from hedera_history.formats.block_transactions import block_file_transactions
from hedera_history.formats.parsed_files import RecordFile, SidecarFile

BLOCK_FILE_VERSION = 7
"""The version the reference gives a block-stream block in its record file table."""
BLOCK_SIDECAR_ID = 1


def block_record_file(
    name: str,
    number: int,
    hapi_version: tuple[int, int, int],
    records: BlockRecords,
    *,
    timestamp_ns: int,
    root_hash: bytes,
    previous_root_hash: bytes,
    size: int,
) -> RecordFile:
    """The record file of native block ``number``: ``hapi_version`` and ``timestamp_ns`` from its
    header, ``records`` its transactions' records, the hashes its root and its footer's previous block root, ``size``
    its bytes as stored."""
    return RecordFile(
        name=name,
        version=BLOCK_FILE_VERSION,
        hapi_version=hapi_version,
        items=records.items,
        file_hash=root_hash,
        metadata_hash=None,
        start_running_hash=previous_root_hash,
        end_running_hash=root_hash,
        computed_end_running_hash=root_hash,
        previous_file_hash=None,
        block_number=number,
        size=size,
        block_timestamp_ns=timestamp_ns,
    )


def block_sidecar_files(name: str, records: BlockRecords) -> tuple[SidecarFile, ...]:
    """The block's sidecar records as one sidecar file, or none when the block has none."""
    if not records.sidecar_records:
        return ()
    return (SidecarFile(name=name, id=BLOCK_SIDECAR_ID, hash=b"", records=records.sidecar_records),)


def native_block_files(block: BlockFile, root_hash: bytes | None = None) -> tuple[RecordFile, tuple[SidecarFile, ...]]:
    """A parsed native block as the record file and sidecar files the row builder reads (a wrapped
    block carries its record file instead, and has no transactions of its own here); ``root_hash``
    the block's root when its check computed it already."""
    records = block_records(block_file_transactions(block))
    record = block_record_file(
        block.name,
        block.number,
        block.hapi_version.numbers,
        records,
        timestamp_ns=block.timestamp_ns,
        root_hash=block_root_hash(block) if root_hash is None else root_hash,
        previous_root_hash=block.footer.previous_block_root_hash,
        size=block.size,
    )
    return record, block_sidecar_files(block.name, records)
