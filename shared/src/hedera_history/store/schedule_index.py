"""The schedule index: the transactions that made each schedule what it is. Pure: keys and what one
transaction contributes.

Its rows live in ``account_history`` beside the entity index (``store.entity_index``), under keys
no account key can take, each with the one cell an account's history entry has (``a:block``: where
the transaction is), so errata correct them and readers check their block's completion alike:

``schedule/<schedule, encoded id hex16>/<consensus ns, hex16>/<change>``, ``<change>`` one of

- ``c``: the successful ScheduleCreate whose receipt names the schedule (body: creator, payer,
  admin key, memo, expiration, wait_for_expiry, the scheduled body; its signatures);
- ``s``: a successful ScheduleSign of it (its signatures);
- ``d``: a successful ScheduleDelete of it;
- ``e``: the record of the scheduled transaction's execution (``scheduleRef``), whatever its status.

The encoded id (``store.keys.encode_entity``) sorts schedules as the reference lists them,
so a page of ``/schedules`` is a scan from a schedule id, and one schedule is one short scan.
"""

from __future__ import annotations

from typing import Any

from hedera_history.errors import RowLayoutError
from hedera_history.store.entity_index import SCHEDULE_PREFIX, SUCCESS
from hedera_history.store.keys import ACCOUNT_SEPARATOR, decode_hex16, encode_entity, hex16, prefix_end

CREATED = b"c"
SIGNED = b"s"
DELETED = b"d"
EXECUTED = b"e"
_CHANGES = {"scheduleSign": SIGNED, "scheduleDelete": DELETED}
_ALL_CHANGES = (CREATED, SIGNED, DELETED, EXECUTED)


def schedule_index_keys(case: str | None, body: Any, record: Any, consensus_ns: int) -> list[bytes]:
    """The index rows of one transaction whose body's ``data`` case is ``case``."""
    keys: list[bytes] = []
    if record.HasField("scheduleRef"):
        executed = schedule_code(record.scheduleRef)
        if executed is not None:
            keys.append(schedule_key(executed, consensus_ns, EXECUTED))
    if record.receipt.status != SUCCESS:
        return keys
    if case == "scheduleCreate":
        created = schedule_code(record.receipt.scheduleID)
        if created is not None:
            keys.append(schedule_key(created, consensus_ns, CREATED))
    elif case in _CHANGES:
        changed = schedule_code(getattr(body, case).scheduleID)
        if changed is not None:
            keys.append(schedule_key(changed, consensus_ns, _CHANGES[case]))
    return keys


def schedule_code(schedule_id: Any) -> int | None:
    """A ScheduleID's encoded id, None when it names no schedule."""
    if schedule_id.scheduleNum <= 0:
        return None
    return encode_entity(schedule_id.shardNum, schedule_id.realmNum, schedule_id.scheduleNum)


def schedule_prefix(schedule: int) -> bytes:
    return SCHEDULE_PREFIX + hex16(schedule) + ACCOUNT_SEPARATOR


def schedule_key(schedule: int, consensus_ns: int, change: bytes) -> bytes:
    return schedule_prefix(schedule) + hex16(consensus_ns) + ACCOUNT_SEPARATOR + change


def schedules_range(low: int, high: int | None) -> tuple[bytes, bytes]:
    """``[start, end)`` of the rows of schedules with encoded ids in ``[low, high]`` (None: no end)."""
    end = prefix_end(SCHEDULE_PREFIX) if high is None else schedule_prefix(high + 1)
    return schedule_prefix(low), end


def decode_schedule_key(key: bytes) -> tuple[int, int, bytes]:
    """``(schedule, consensus ns, change)`` of a schedule row key."""
    parts = key[len(SCHEDULE_PREFIX) :].split(ACCOUNT_SEPARATOR)
    if not key.startswith(SCHEDULE_PREFIX) or len(parts) != 3 or parts[2] not in _ALL_CHANGES:
        raise RowLayoutError(f"not a schedule key: {key!r}")
    return decode_hex16(parts[0]), decode_hex16(parts[1]), parts[2]
