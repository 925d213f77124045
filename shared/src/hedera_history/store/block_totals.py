"""What a block's contract results add up to, as the reference's blocks show it: the gas used by
its top-level contract calls and creates (children's gas is in their parent's) and the OR of their
logs blooms (256 bytes; all zero for a block without contract results)."""

from __future__ import annotations

from collections.abc import Iterable

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.speedups import record_result_member as compiled_result_member

LOGS_BLOOM_BYTES = 256
_RESULTS = ("contractCallResult", "contractCreateResult")


def contract_totals(items: Iterable[RecordItem]) -> tuple[int, bytes]:
    """``(gas used, logs bloom)`` of the block's top-level contract results (a record that does
    not decode adds nothing)."""
    gas = 0
    bloom = 0
    for item in items:
        if compiled_result_member is not None and compiled_result_member(item.record_bytes) == 0:
            continue  # no contract result: nothing to parse the record for
        try:
            record = hapi.TransactionRecord.FromString(item.record_bytes)
        except DecodeError:
            continue
        which = record.WhichOneof("body")
        if which not in _RESULTS or record.HasField("parent_consensus_timestamp"):
            continue
        result = getattr(record, which)
        gas += int(result.gasUsed)
        bloom |= int.from_bytes(result.bloom[:LOGS_BLOOM_BYTES], "big")
    return gas, bloom.to_bytes(LOGS_BLOOM_BYTES, "big")
