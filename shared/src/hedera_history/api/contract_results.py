"""Contract results as the mirror node serves them, from the records' ``contractCallResult`` /
``contractCreateResult``: ``/api/v1/contracts/results/{transactionIdOrHash}`` (with logs and state
changes), ``/api/v1/contracts/{contractIdOrAddress}/results`` (newest first) and
``/api/v1/contracts/{contractIdOrAddress}/results/{timestamp}``.

A transaction is named by its id (``nonce`` picks a child, 0 by default), by the first 32 bytes of
its transaction hash (what the reference calls its hash on EVM routes) or its whole 48-byte hash.
An Ethereum transaction's keccak hash is not indexed (history keeps the HAPI hash): it is a 404.
Fields of the wrapped Ethereum transaction (``chain_id``, ``r``, ``s``, ...) are null.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from hedera_history.api import render_contracts
from hedera_history.api.entity_lookup import resolve_entity
from hedera_history.api.errors import InvalidParamsError, NotFoundError, NotServedError
from hedera_history.api.parse import MAX_I64, parse_int, parse_timestamp, parse_transaction_id
from hedera_history.api.query import Query, only, operator, order, page_limit
from hedera_history.api.render import status_name, timestamp
from hedera_history.api.render_contracts import contract_reference, hex_data, render_state_changes
from hedera_history.api.transaction_filters import entity_reference, last_value
from hedera_history.api.transactions_list import SUCCESS_RESULTS, parse_filters
from hedera_history.errors import CorruptFileError, RowDecodeError
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.formats.transactions import transaction_body
from hedera_history.store.contract_index import contract_result
from hedera_history.store.decode import StoredTransaction, decode_sidecar_message
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_contracts import contract_result_entries

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]
TINYBAR_WEIBARS = 10_000_000_000
_RESULT_FILTERS_NOT_SERVED = frozenset({"block.hash", "block.number", "from", "transaction.index"})
"""Filters of the reference's contract results listing this one does not take (501)."""
MAX_HISTORY_PAGES = 10
"""History pages of 100 rows one request reads at most (then links on)."""
_HASH = re.compile(r"^(?:0x)?([0-9a-fA-F]{64}|[0-9a-fA-F]{96})$")
_TIMESTAMP = re.compile(r"^\d{1,10}\.\d{1,9}$")
_ETHEREUM_NULLS = ("max_priority_fee_per_gas", "nonce", "r", "s", "type", "v", "block_gas_used", "gas_consumed")


def find_transaction(reader: HistoryReader, key: str, nonce: int = 0) -> StoredTransaction:
    """The transaction a ``transactionIdOrHash`` path value names (a consensus ``seconds.nanos``
    too, as our own sidecar routes take it)."""
    found: StoredTransaction | None = None
    if _HASH.fullmatch(key):
        found = find_transaction_by_hash(reader, key, "transactionIdOrHash")
    elif _TIMESTAMP.fullmatch(key):
        consensus_ns = parse_timestamp(key, "timestamp")
        found = reader.transaction(consensus_ns)
        if found is None:
            raise NotFoundError(f"no transaction at {timestamp(consensus_ns)}")
    else:
        payer, valid_start = parse_transaction_id(key, "transactionIdOrHash")
        results = [r for r in reader.transactions_by_id(payer, valid_start) if r.nonce == nonce]
        if results:
            found = reader.transaction(results[0])
    if found is None:
        raise NotFoundError(f"transaction {key[:100]} not found")
    return found


def find_transaction_by_hash(reader: HistoryReader, text: str, name: str) -> StoredTransaction | None:
    """The transaction a hash names: its first 32 bytes (what EVM routes call its hash) or all 48."""
    digits = _hash_bytes(text, name)
    return reader.transaction_by_hash(digits) if len(digits) == 48 else reader.transaction_by_hash_prefix(digits)


def _hash_bytes(text: str, name: str) -> bytes:
    """The bytes of the hash ``text`` (hex, ``0x`` optional) the parameter ``name`` gives."""
    match = _HASH.fullmatch(text)
    if match is None:
        raise InvalidParamsError(f"Invalid parameter: {name}")
    return bytes.fromhex(match.group(1))


def block_hash_text(reader: HistoryReader, number: int) -> str | None:
    """The hash the API shows for a block (its end running hash, else its file hash)."""
    block = reader.get_block(number)
    return None if block is None else hex_data(block.end_running_hash or block.file_hash)


def render_contract_result(
    reader: HistoryReader, stored: StoredTransaction, *, hbar: bool = True, details: bool = False
) -> dict[str, Any] | None:
    """The contract result of a transaction, None when it has none."""
    record = stored.record()
    result = contract_result(record)
    if result is None:
        return None
    try:
        body: Any | None = transaction_body(stored.transaction_bytes)
    except CorruptFileError:
        body = None
    case = body.WhichOneof("data") if body is not None else None
    data = getattr(body, case) if body is not None and case is not None else None
    contract_id, address = contract_reference(result.contractID)
    if address is None and result.HasField("evm_address"):
        address = hex_data(result.evm_address.value)
    payer = record.transactionID.accountID
    sender = result.sender_id if result.HasField("sender_id") else payer
    _, sender_address = render_contracts.account_reference(sender)
    asked = int(getattr(data, "amount", 0) or getattr(data, "initialBalance", 0) or 0)
    amount = int(result.amount) or asked
    parameters = bytes(result.functionParameters) or bytes(
        getattr(data, "functionParameters", b"") or getattr(data, "constructorParameters", b"")
    )
    rendered: dict[str, Any] = {
        "address": address,
        "amount": amount if hbar else amount * TINYBAR_WEIBARS,
        "bloom": hex_data(bytes(result.bloom)),
        "call_result": hex_data(bytes(result.contractCallResult)),
        "contract_id": contract_id if result.HasField("contractID") else None,
        "created_contract_ids": [contract_reference(c)[0] for c in result.createdContractIDs],
        "error_message": result.errorMessage or None,
        "from": sender_address,
        "function_parameters": hex_data(parameters),
        "gas_limit": int(result.gas) or int(getattr(data, "gas", 0) or 0),
        "gas_used": int(result.gasUsed),
        "hash": hex_data(bytes(record.transactionHash)[:32]),
        "result": status_name(record.receipt.status),
        "status": "0x1" if status_name(record.receipt.status) in SUCCESS_RESULTS else "0x0",
        "timestamp": timestamp(stored.consensus_ns),
        "to": address,
        **dict.fromkeys(_ETHEREUM_NULLS),
    }
    if details:
        rendered |= {
            "access_list": [],
            "authorization_list": [],
            "block_hash": block_hash_text(reader, stored.block_number),
            "block_number": stored.block_number,
            "chain_id": None,
            "gas_price": None,
            "max_fee_per_gas": None,
            "logs": [_render_log(log, i) for i, log in enumerate(result.logInfo)],
            "state_changes": _state_changes(reader, stored.consensus_ns),
            "transaction_index": stored.index,
        }
    else:
        rendered |= {"block_hash": None, "block_number": stored.block_number, "transaction_index": stored.index}
    return rendered


def _render_log(log: Any, index: int) -> dict[str, Any]:
    contract_id, address = contract_reference(log.contractID)
    return {
        "address": address,
        "bloom": hex_data(bytes(log.bloom)),
        "contract_id": contract_id,
        "data": hex_data(bytes(log.data)),
        "index": index,
        "topics": [hex_data(bytes(topic).rjust(32, b"\x00")) for topic in log.topic],
    }


def _state_changes(reader: HistoryReader, consensus_ns: int) -> list[dict[str, Any]]:
    records = reader.sidecar_records(consensus_ns, [SidecarType.CONTRACT_STATE_CHANGE])
    return [change for r in records for change in render_state_changes(decode_sidecar_message(r))]


def _bool_param(query: Query, name: str, default: bool) -> bool:
    value = last_value(query, name)
    if value is None:
        return default
    if value not in ("true", "false"):
        raise InvalidParamsError(f"Invalid parameter: {name}")
    return value == "true"


def get_contract_result(get_reader: Reader, key: str, query: Query) -> dict[str, Any]:
    only(query, {"hbar", "nonce"})
    hbar = _bool_param(query, "hbar", True)
    nonce_text = last_value(query, "nonce")
    nonce = 0 if nonce_text is None else parse_int(nonce_text, "nonce", maximum=2**31 - 1)
    reader = get_reader()
    rendered = render_contract_result(reader, find_transaction(reader, key, nonce), hbar=hbar, details=True)
    if rendered is None:
        raise NotFoundError(f"transaction {key[:100]} has no contract result")
    return rendered


def contract_results(get_reader: Reader, contract_text: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    """The results of calls to (or the creation of) a contract, newest first."""
    only(query, {"limit", "order", "timestamp", "internal", *_RESULT_FILTERS_NOT_SERVED})
    unserved = sorted(set(query) & _RESULT_FILTERS_NOT_SERVED)
    if unserved:
        raise NotServedError(f"contract results are not filtered by {', '.join(unserved)} here")
    entity_reference(contract_text, "contractIdOrAddress")  # a bad name is a 400 before any read
    limit = page_limit(query)
    if order(query, default="desc") != "desc":
        raise NotServedError("contract results are served newest first only (order=desc)")
    internal = _bool_param(query, "internal", False)
    filters = parse_filters({"timestamp": list(query.get("timestamp", []))})
    reader = get_reader()
    contract = resolve_entity(reader, contract_text, "contractIdOrAddress")
    before = filters.high_ns + 1 if filters.high_ns < MAX_I64 else None
    until = filters.low_ns - 1 if filters.low_ns > 0 else None
    found: list[dict[str, Any]] = []
    cursor: int | None = None
    for _ in range(MAX_HISTORY_PAGES):
        page = reader.account_history(contract, before=before, until=until, limit=100)
        skipped(page.errors)
        stored, errors = reader.transactions(page.entries)
        skipped(errors)
        for transaction in stored:
            rendered = None
            if internal or not transaction.record().transactionID.nonce:
                rendered = render_contract_result(reader, transaction)
            if rendered is not None and rendered["contract_id"] == contract:
                found.append(rendered)
                if len(found) == limit:
                    cursor = transaction.consensus_ns
                    break
        before = page.next_before
        if len(found) == limit or before is None:
            break
        cursor = before  # the history goes on past the rows this request reads
    next_link = None
    if cursor is not None:
        params: list[tuple[str, Any]] = [("limit", limit), ("timestamp", f"lt:{timestamp(cursor)}")]
        params.extend(("timestamp", c) for c in query.get("timestamp", []) if c.startswith(("gt:", "gte:")))
        if internal:
            params.append(("internal", "true"))
        next_link = f"/api/v1/contracts/{contract}/results?" + urlencode(params)
    return {"results": found, "links": {"next": next_link}}


def contract_result_at(get_reader: Reader, contract_text: str, timestamp_text: str, query: Query) -> dict[str, Any]:
    """The result of the transaction at ``timestamp`` if it called (or created) the contract."""
    only(query, {"hbar"})
    hbar = _bool_param(query, "hbar", True)
    entity_reference(contract_text, "contractIdOrAddress")
    at_ns = parse_timestamp(timestamp_text, "timestamp")
    reader = get_reader()
    contract = resolve_entity(reader, contract_text, "contractIdOrAddress")
    stored = reader.transaction(at_ns)
    rendered = None if stored is None else render_contract_result(reader, stored, hbar=hbar, details=True)
    if rendered is None or rendered["contract_id"] != contract:
        raise NotFoundError(f"no result of contract {contract} at {timestamp_text[:40]}")
    return rendered


_LIST_NOT_SERVED = frozenset({"from", "transaction.index"})
"""Filters of the reference's listing of every contract result this one does not take (501)."""


def list_contract_results(get_reader: Reader, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    """Every contract result (``/api/v1/contracts/results``), newest first by default: the
    contract results index (``store.contract_index``) read by time; ``block.number`` and
    ``block.hash`` (eq) narrow the time range to the block's."""
    only(query, {"limit", "order", "timestamp", "internal", "block.hash", "block.number", *_LIST_NOT_SERVED})
    unserved = sorted(set(query) & _LIST_NOT_SERVED)
    if unserved:
        raise NotServedError(f"contract results are not filtered by {', '.join(unserved)} here")
    limit = page_limit(query)
    descending = order(query, default="desc") == "desc"
    internal = _bool_param(query, "internal", False)
    filters = parse_filters({"timestamp": list(query.get("timestamp", []))})
    reader = get_reader()
    low, high = filters.low_ns, filters.high_ns
    span = _block_span(reader, query)
    if span is not None:
        low, high = max(low, span[0]), min(high, span[1])
    found: list[dict[str, Any]] = []
    before = high + 1 if high < MAX_I64 else None
    last_read: int | None = None
    more = False
    for _ in range(MAX_HISTORY_PAGES):
        if low > high:
            break
        page = contract_result_entries(reader, low, before, 100, descending=descending)
        skipped(page.errors)
        stored, errors = reader.transactions(page.entries)
        skipped(errors)
        for transaction in stored:
            if internal or not transaction.record().transactionID.nonce:
                rendered = render_contract_result(reader, transaction)
                if rendered is not None:
                    found.append(rendered)
        more = page.more and bool(page.entries)
        if len(found) >= limit or not more:
            break
        last_read = page.entries[-1].consensus_ns
        before, low = (last_read, low) if descending else (before, last_read + 1)
    cursor = _ns_of(found[limit - 1]) if len(found) >= limit else (last_read if more else None)
    next_link = None
    if cursor is not None:
        near, far = ("lt", ("gt", "gte")) if descending else ("gt", ("lt", "lte"))
        params: list[tuple[str, Any]] = [("limit", limit), ("order", "desc" if descending else "asc")]
        params.extend(("timestamp", c) for c in query.get("timestamp", []) if c.startswith(far))
        params.append(("timestamp", f"{near}:{timestamp(cursor)}"))
        params.extend((name, value) for name in ("block.hash", "block.number") for value in query.get(name, []))
        if internal:
            params.append(("internal", "true"))
        next_link = "/api/v1/contracts/results?" + urlencode(params)
    return {"results": found[:limit], "links": {"next": next_link}}


def _ns_of(rendered: dict[str, Any]) -> int:
    return parse_timestamp(rendered["timestamp"], "timestamp")


def _block_span(reader: HistoryReader, query: Query) -> tuple[int, int] | None:
    """The consensus range of the block ``block.number`` or ``block.hash`` names; an empty range
    when it is not stored; None when neither is asked."""
    number_text, hash_text = last_value(query, "block.number"), last_value(query, "block.hash")
    number: int | None = None
    if number_text is not None:
        op, value = operator(number_text, "block.number")
        if op != "eq":
            raise InvalidParamsError("Invalid parameter: block.number")
        number = parse_int(value, "block.number")
    elif hash_text is not None:
        number = reader.block_number_for_hash(_hash_bytes(hash_text, "block.hash"))
    else:
        return None
    block = None if number is None else reader.get_block(number)
    if block is None:
        return (1, 0)
    return block.consensus_start, block.consensus_end
