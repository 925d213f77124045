"""The staking index: the network's NodeStakeUpdate transactions (one a day, closing a staking
period), as ``stake/<one's complement of the consensus ns, hex16>`` rows in ``account_history``
beside the entity index (``store.entity_index``: the same pointer cell, corrected by errata alike),
so the newest update at or before a time is the first row of an ascending scan from it. Pure."""

from __future__ import annotations

from typing import Any

from hedera_history.errors import RowLayoutError
from hedera_history.store.entity_index import STAKE_PREFIX
from hedera_history.store.keys import decode_hex16, hex16, ones_complement, prefix_end

STAKE_CASE = "node_stake_update"


def stake_index_keys(case: str | None, record: Any, consensus_ns: int) -> list[bytes]:
    """The index row of one transaction whose body's ``data`` case is ``case`` (usually none)."""
    if case != STAKE_CASE or record.receipt.status != 22:  # SUCCESS
        return []
    return [STAKE_PREFIX + hex16(ones_complement(consensus_ns))]


def stake_range(at_ns: int | None) -> tuple[bytes, bytes]:
    """``[start, end)`` of the updates at or before ``at_ns`` (None: all), newest first."""
    start = STAKE_PREFIX if at_ns is None else STAKE_PREFIX + hex16(ones_complement(at_ns))
    return start, prefix_end(STAKE_PREFIX)


def decode_stake_key(key: bytes) -> int:
    """The consensus ns of a staking index row."""
    if not key.startswith(STAKE_PREFIX):
        raise RowLayoutError(f"not a staking index key: {key!r}")
    return ones_complement(decode_hex16(key[len(STAKE_PREFIX) :]))
