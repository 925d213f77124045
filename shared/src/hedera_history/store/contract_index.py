"""The contract indexes: contract results by time, and the transactions whose logs a contract
emitted. Pure: keys and what one transaction contributes.

- ``cresult/<bucket>/<one's complement of the consensus ns, hex16>``: one row per record holding a
  contract result (``contractCallResult`` or ``contractCreateResult``), whatever its status, as the
  reference writes a ``contract_result`` row for each. The bucket is the time's
  (``keys.time_bucket``, one hex digit), so a block's rows land on up to 16 key ranges rather than
  the end of one; a page newest first merges the 16 ranges.
- ``clog/<shard.realm.num>/<one's complement of the consensus ns, hex16>``: one row per contract
  that emitted at least one log in a transaction's result (a log's ``contractID``), however many
  logs it emitted there.

Both are pointers to the record, as every row of ``account_history`` is (the pointer cell of an
account's history entry, so errata correct them and readers check their block's completion alike):
the logs, their index, topics and data are read from the record, never copied into the index.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from hedera_history.errors import RowLayoutError
from hedera_history.store.accounts import entity_text
from hedera_history.store.entity_index import CONTRACT_LOG_PREFIX, CONTRACT_RESULT_PREFIX
from hedera_history.store.keys import (
    ACCOUNT_SEPARATOR,
    TIME_BUCKETS,
    bucket_prefix,
    check_entity_id,
    decode_hex16,
    hex16,
    ones_complement,
    time_bucket,
    time_range,
)

_RESULT_MEMBERS = ("contractCallResult", "contractCreateResult")


class ContractLogRow(NamedTuple):
    """What a ``clog/`` row's key says."""

    contract: str
    consensus_ns: int


def contract_result(record: Any) -> Any | None:
    """The record's contract result (call or create), None when it holds none."""
    member = record.WhichOneof("body")
    return getattr(record, member) if member in _RESULT_MEMBERS else None


def contract_index_keys(record: Any, consensus_ns: int) -> list[bytes]:
    """The contract index rows of one record (most records have none)."""
    result = contract_result(record)
    if result is None:
        return []
    keys = [contract_result_key(consensus_ns)]
    emitters = {entity_text(log.contractID) for log in result.logInfo if log.HasField("contractID")}
    keys.extend(contract_log_key(contract, consensus_ns) for contract in sorted(e for e in emitters if e is not None))
    return keys


def contract_result_key(consensus_ns: int) -> bytes:
    return CONTRACT_RESULT_PREFIX + bucket_prefix(time_bucket(consensus_ns)) + hex16(ones_complement(consensus_ns))


def contract_result_ranges(before_ns: int | None, from_ns: int) -> tuple[tuple[bytes, bytes], ...]:
    """``[start, end)`` in each bucket of the results at or after ``from_ns`` and before
    ``before_ns`` (None: no end), each newest first."""
    return tuple(
        time_range(CONTRACT_RESULT_PREFIX + bucket_prefix(bucket), before_ns, from_ns) for bucket in range(TIME_BUCKETS)
    )


def decode_contract_result_key(key: bytes) -> int:
    """The consensus time of a ``cresult/`` row."""
    if not key.startswith(CONTRACT_RESULT_PREFIX):
        raise RowLayoutError(f"not a contract result index key: {key!r}")
    try:
        _, inverted = key[len(CONTRACT_RESULT_PREFIX) :].split(ACCOUNT_SEPARATOR)
        return ones_complement(decode_hex16(inverted))
    except ValueError as e:
        raise RowLayoutError(f"not a contract result index key: {key!r}") from e


def contract_log_key(contract: str, consensus_ns: int) -> bytes:
    return contract_log_prefix(contract) + hex16(ones_complement(consensus_ns))


def contract_log_prefix(contract: str) -> bytes:
    return CONTRACT_LOG_PREFIX + check_entity_id(contract).encode() + ACCOUNT_SEPARATOR


def contract_log_range(contract: str, before_ns: int | None, from_ns: int) -> tuple[bytes, bytes]:
    """``[start, end)`` of the transactions ``contract`` emitted logs in at or after ``from_ns`` and
    before ``before_ns`` (None: no end), newest first."""
    return time_range(contract_log_prefix(contract), before_ns, from_ns)


def decode_contract_log_key(key: bytes) -> ContractLogRow:
    if not key.startswith(CONTRACT_LOG_PREFIX):
        raise RowLayoutError(f"not a contract log index key: {key!r}")
    try:
        contract, inverted = key[len(CONTRACT_LOG_PREFIX) :].split(ACCOUNT_SEPARATOR)
        return ContractLogRow(check_entity_id(contract.decode("ascii")), ones_complement(decode_hex16(inverted)))
    except (ValueError, UnicodeDecodeError) as e:
        raise RowLayoutError(f"not a contract log index key: {key!r}") from e


__all__ = [
    "ContractLogRow",
    "contract_index_keys",
    "contract_log_key",
    "contract_log_range",
    "contract_result",
    "contract_result_key",
    "contract_result_ranges",
    "decode_contract_log_key",
    "decode_contract_result_key",
]
