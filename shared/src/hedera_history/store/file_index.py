"""The network files' index: the successful FileUpdate and FileAppend transactions of the fee
schedule (0.0.111) and the exchange rates (0.0.112), as entity changes (``entity/<file>/<one's
complement of the consensus ns>`` rows in ``account_history``, ``store.entity_index``), so a file's
content as of any time is read back from its newest update and the appends after it. Pure."""

from __future__ import annotations

from typing import Any

from hedera_history.store.entity_index import SUCCESS, entity_change_key
from hedera_history.store.keys import entity_id

FEE_SCHEDULE_FILE = 111
EXCHANGE_RATE_FILE = 112
INDEXED_FILES = frozenset({FEE_SCHEDULE_FILE, EXCHANGE_RATE_FILE})
FILE_CASES = frozenset({"fileUpdate", "fileAppend"})


def file_index_keys(case: str | None, body: Any, record: Any, consensus_ns: int) -> list[bytes]:
    """The index row of one transaction whose body's ``data`` case is ``case`` (usually none)."""
    if case not in FILE_CASES:
        return []
    file_id = getattr(body, case).fileID
    if file_id.fileNum not in INDEXED_FILES or record.receipt.status != SUCCESS:
        return []
    return [entity_change_key(entity_id(file_id.shardNum, file_id.realmNum, file_id.fileNum), consensus_ns)]
