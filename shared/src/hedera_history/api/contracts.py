"""REST routes over the sidecar table: ``/api/v1/contracts/results/{timestamp}/actions``, ``/state``
and ``/sidecars`` (every record as stored, types this HAPI version does not know included).

``{timestamp}`` is the transaction's consensus time ``seconds.nanos`` (``/actions`` also takes the
reference's transaction id or hash). A timestamp with no complete
transaction is a 404; a transaction without such sidecar records (not a contract call, or sidecars
not kept) answers with an empty list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from hedera_history.api.contract_results import find_transaction
from hedera_history.api.errors import NotFoundError
from hedera_history.api.parse import parse_timestamp
from hedera_history.api.query import Query, integer_bounds, only, order, page_limit
from hedera_history.api.render import timestamp
from hedera_history.api.render_contracts import render_action, render_sidecar_record, render_state_changes
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.store.decode import StoredSidecarRecord, decode_sidecar_message
from hedera_history.store.reader import HistoryReader

MAX_ACTION_INDEX = 2**31 - 1
RESULTS_PATH = "/api/v1/contracts/results"

Reader = Callable[[], HistoryReader]


def contract_actions(get_reader: Reader, transaction_text: str, query: Query) -> dict[str, Any]:
    """The transaction's EVM actions in call order, paged by ``index`` like the mirror node; the
    transaction is named by id, hash (``contract_results.find_transaction``) or consensus time."""
    only(query, {"limit", "order", "index"})
    limit = page_limit(query)
    direction = order(query)
    low, high = integer_bounds(query.get("index", []), "index", maximum=MAX_ACTION_INDEX)
    reader = get_reader()
    consensus_ns = find_transaction(reader, transaction_text).consensus_ns
    records = _sidecar_messages(reader, consensus_ns, SidecarType.CONTRACT_ACTION)
    actions = [action for record in records for action in record.actions.contract_actions]
    last = len(actions) - 1 if high is None else min(high, len(actions) - 1)
    positions = range(low, last + 1)
    if direction == "desc":
        positions = positions[::-1]
    page = positions[:limit]
    next_link = None
    if len(positions) > limit:
        params: list[tuple[str, Any]] = [("limit", limit), ("order", direction)]
        if direction == "asc":
            params.append(("index", f"gt:{page[-1]}"))
            if high is not None:
                params.append(("index", f"lte:{high}"))
        else:
            params.append(("index", f"lt:{page[-1]}"))
            if low > 0:
                params.append(("index", f"gte:{low}"))
        next_link = f"{RESULTS_PATH}/{timestamp(consensus_ns)}/actions?" + urlencode(params)
    return {
        "actions": [render_action(actions[i], i, consensus_ns) for i in page],
        "links": {"next": next_link},
    }


def contract_state_changes(get_reader: Reader, timestamp_text: str, query: Query) -> dict[str, Any]:
    """The storage slots the transaction read or wrote, contract by contract."""
    only(query, set())
    consensus_ns = parse_timestamp(timestamp_text, "timestamp")
    records = _sidecar_messages(get_reader(), consensus_ns, SidecarType.CONTRACT_STATE_CHANGE)
    return {"state_changes": [change for record in records for change in render_state_changes(record)]}


def contract_sidecars(get_reader: Reader, timestamp_text: str, query: Query) -> dict[str, Any]:
    """Every sidecar record of the transaction, by sidecar file and position, with its bytes."""
    only(query, set())
    consensus_ns = parse_timestamp(timestamp_text, "timestamp")
    stored = _sidecar_records(get_reader(), consensus_ns, None)
    return {"sidecars": [render_sidecar_record(record, decode_sidecar_message(record)) for record in stored]}


def _sidecar_messages(reader: HistoryReader, consensus_ns: int, kind: SidecarType) -> list[Any]:
    return [decode_sidecar_message(record) for record in _sidecar_records(reader, consensus_ns, [kind])]


def _sidecar_records(
    reader: HistoryReader, consensus_ns: int, kinds: list[SidecarType] | None
) -> list[StoredSidecarRecord]:
    records = reader.sidecar_records(consensus_ns, kinds)
    if not records and reader.transaction(consensus_ns) is None:
        raise NotFoundError(f"no transaction at {timestamp(consensus_ns)}")
    return records
