"""JSON-RPC 2.0 over POST /: single and batched requests, standard error codes."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hedera_history.api.balances import rpc_get_balance
from hedera_history.api.errata import block_transactions, markers_at, original_answer
from hedera_history.api.errors import (
    ApiError,
    InvalidParamsError,
    InvalidRequestError,
    MethodNotFoundError,
    NotFoundError,
    ParseError,
    store_fault,
)
from hedera_history.api.parse import (
    parse_account,
    parse_hash,
    parse_int,
    parse_options,
    parse_timestamp,
    parse_transaction_key,
)
from hedera_history.api.proofs import ProofConfig, block_proof, no_proofs, transaction_proof
from hedera_history.api.render import (
    UNSIGNED,
    render_block,
    render_status,
    render_transaction,
    render_transactions,
    timestamp,
)
from hedera_history.api.rest import log_skipped_rows
from hedera_history.api.unsigned_blocks import mark_unsigned
from hedera_history.errors import StoreError
from hedera_history.store.decode import StoredTransaction
from hedera_history.store.reader import MAX_BLOCK_RANGE, MAX_HISTORY_LIMIT, HistoryReader

MAX_BATCH = 100
MAX_STATUS_HASHES = 1000
DEFAULT_HISTORY_LIMIT = 100
STORE_UNAVAILABLE = -32000
INTERNAL_ERROR = -32603

Params = dict[str, Any]
Reader = Callable[[], HistoryReader]
Method = Callable[[Reader, Params], Any]


def get_first_available_block(get_reader: Reader, params: Params) -> Any:
    return get_reader().first_available_block()


def get_latest_block(get_reader: Reader, params: Params) -> Any:
    return get_reader().latest_block()


def get_block(get_reader: Reader, params: Params) -> Any:
    number = parse_int(params["number"], "number")
    reader = get_reader()
    block = reader.get_block(number)
    if block is None:
        return None
    transactions, errors = block_transactions(reader, number)
    rendered, skipped = render_transactions(transactions)
    log_skipped_rows([*errors, *skipped])
    if block.unsigned:
        for transaction in rendered:
            transaction[UNSIGNED] = True
    return {**render_block(block), "transactions": rendered}


def get_blocks(get_reader: Reader, params: Params) -> Any:
    """Without ``end``: up to the latest complete block, at most MAX_BLOCK_RANGE numbers on."""
    start = parse_int(params["start"], "start")
    if params.get("end") is not None:
        end = parse_int(params["end"], "end")
        if end < start:
            raise InvalidParamsError("end must not be below start")
        if end - start + 1 > MAX_BLOCK_RANGE:
            raise InvalidParamsError(f"a range may span at most {MAX_BLOCK_RANGE} blocks")
        return get_reader().get_blocks(start, end)
    reader = get_reader()
    latest = reader.latest_block()
    if latest is None or latest < start:
        return []
    return reader.get_blocks(start, min(latest, start + MAX_BLOCK_RANGE - 1))


def get_block_time(get_reader: Reader, params: Params) -> Any:
    number = parse_int(params["number"], "number")
    ns = get_reader().block_time(number)
    return None if ns is None else timestamp(ns)


def get_transaction(get_reader: Reader, params: Params) -> Any:
    key = params["key"]
    transaction_key = parse_transaction_key(key, "transaction (hash or id)")
    if isinstance(transaction_key, bytes):
        reader = get_reader()
        return _rendered_one(reader, reader.transaction_by_hash(transaction_key))
    payer, valid_start = transaction_key
    reader = get_reader()
    results = reader.transactions_by_id(payer, valid_start)
    primary = next((r for r in results if r.nonce == 0 and not r.scheduled), results[0] if results else None)
    if primary is None:
        return None
    return _rendered_one(reader, reader.transaction(primary))


def _rendered_one(reader: HistoryReader, stored: StoredTransaction | None) -> dict[str, Any] | None:
    if stored is None:
        return None
    rendered = render_transaction(stored)
    mark_unsigned(reader, [rendered])
    return rendered


def get_transaction_statuses(get_reader: Reader, params: Params) -> Any:
    hashes = params["hashes"]
    if not isinstance(hashes, list):
        raise InvalidParamsError("hashes must be a list of hex transaction hashes")
    if len(hashes) > MAX_STATUS_HASHES:
        raise InvalidParamsError(f"at most {MAX_STATUS_HASHES} hashes per call")
    parsed = [parse_hash(h, f"hashes[{i}]") for i, h in enumerate(hashes)]
    reader = get_reader()
    statuses = reader.transaction_statuses(parsed).statuses
    markers, broken = markers_at(reader, (r.consensus_ns for r in statuses.values() if r is not None))
    log_skipped_rows(list(broken.values()))
    answers: list[dict[str, Any] | None] = []
    for transaction_hash in parsed:
        result = statuses.get(transaction_hash)
        if result is None or result.consensus_ns in broken:
            answers.append(None)  # unknown: whether an errata corrected it cannot be read
            continue
        answers.append(render_status(transaction_hash, result, markers.get(result.consensus_ns)))
    return answers


def get_transactions_for_account(get_reader: Reader, params: Params) -> Any:
    account = parse_account(params["account"])
    options = parse_options(params.get("options"), ("before", "until", "limit"))
    before = parse_timestamp(options["before"], "before") if options.get("before") is not None else None
    until = parse_timestamp(options["until"], "until") if options.get("until") is not None else None
    limit = DEFAULT_HISTORY_LIMIT
    if options.get("limit") is not None:
        limit = parse_int(options["limit"], "limit", minimum=1, maximum=MAX_HISTORY_LIMIT)
    reader = get_reader()
    page = reader.account_history(account, before=before, until=until, limit=limit)
    stored, errors = reader.transactions(page.entries)
    rendered, skipped = render_transactions(stored)
    log_skipped_rows([*errors, *skipped])
    mark_unsigned(reader, rendered)
    return {
        "transactions": rendered,
        "next_before": None if page.next_before is None else timestamp(page.next_before),
    }


def get_transaction_original(get_reader: Reader, params: Params) -> Any:
    """The errata record of one consensus time (the original entry and the errata), or None."""
    return original_answer(get_reader(), parse_timestamp(params["timestamp"], "timestamp"))


def get_transaction_proof(get_reader: Reader, proofs: ProofConfig, params: Params) -> Any:
    """``{proof_base64}``: the canonical bundle of a transaction id (options nonce, scheduled,
    sidecars), or None when no complete block holds it."""
    transaction_id = params["transactionId"]
    # Any false value (an empty list, 0) counts as no options here, as it always has.
    options = parse_options(params.get("options") or None, ("nonce", "scheduled", "sidecars"))
    for name in ("scheduled", "sidecars"):
        if not isinstance(options.get(name, False), bool):
            raise InvalidParamsError(f"{name} must be true or false")
    nonce = parse_int(options.get("nonce", 0), "nonce", maximum=2**31 - 1)
    if not isinstance(transaction_id, str):
        raise InvalidParamsError("transactionId must look like 0.0.1001-1657701968-041986003")
    try:
        data = transaction_proof(
            get_reader,
            proofs,
            transaction_id,
            nonce=nonce,
            scheduled=options.get("scheduled", False),
            sidecars=options.get("sidecars", False),
        )
    except NotFoundError:
        return None
    return _proof_answer(data)


def get_block_proof(get_reader: Reader, proofs: ProofConfig, params: Params) -> Any:
    """``{proof_base64}``: the canonical bundle of every item of a complete block, or None."""
    try:
        data = block_proof(get_reader, proofs, parse_int(params["number"], "number"))
    except NotFoundError:
        return None
    return _proof_answer(data)


def _proof_answer(data: bytes) -> dict[str, Any]:
    return {"proof_base64": base64.b64encode(data).decode()}


# name -> (function, parameter names, how many are required)
METHODS: dict[str, tuple[Method, tuple[str, ...], int]] = {
    "getFirstAvailableBlock": (get_first_available_block, (), 0),
    "getLatestBlock": (get_latest_block, (), 0),
    "getBlock": (get_block, ("number",), 1),
    "getBlocks": (get_blocks, ("start", "end"), 1),
    "getBlockTime": (get_block_time, ("number",), 1),
    "getTransaction": (get_transaction, ("key",), 1),
    "getTransactionStatuses": (get_transaction_statuses, ("hashes",), 1),
    "getTransactionsForAccount": (get_transactions_for_account, ("account", "options"), 1),
    "getTransactionOriginal": (get_transaction_original, ("timestamp",), 1),
    "getBalance": (rpc_get_balance, ("account", "options"), 1),
}
ProofMethod = Callable[[Reader, ProofConfig, Params], Any]
PROOF_METHODS: dict[str, tuple[ProofMethod, tuple[str, ...], int]] = {
    "getTransactionProof": (get_transaction_proof, ("transactionId", "options"), 1),
    "getBlockProof": (get_block_proof, ("number",), 1),
}
"""Methods that also need the deployment's proof settings (its bootstrap book)."""


def handle_jsonrpc(
    reader: Callable[[], HistoryReader], body: bytes, *, proofs: ProofConfig = no_proofs
) -> tuple[int, Any]:
    """HTTP status and JSON body (None: nothing to send) for a POSTed JSON-RPC body."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return 200, _error(None, ParseError("body is not valid JSON"))
    if isinstance(message, list):
        if not message:
            return 200, _error(None, InvalidRequestError("empty batch"))
        if len(message) > MAX_BATCH:
            return 200, _error(None, InvalidRequestError(f"a batch holds at most {MAX_BATCH} requests"))
        answers = [a for a in (_one(reader, proofs, m) for m in message) if a is not None]
        return (200, answers) if answers else (204, None)
    answer = _one(reader, proofs, message)
    return (200, answer) if answer is not None else (204, None)


def _one(reader: Callable[[], HistoryReader], proofs: ProofConfig, message: Any) -> dict[str, Any] | None:
    if not isinstance(message, dict):
        return _error(None, InvalidRequestError("a request must be a JSON object"))
    request_id = message.get("id")
    if "id" in message and (isinstance(request_id, bool) or not isinstance(request_id, str | int | None)):
        return _error(None, InvalidRequestError("id must be a string, an integer or null"))
    notification = "id" not in message
    try:
        if message.get("jsonrpc") != "2.0":
            raise InvalidRequestError('jsonrpc must be "2.0"')
        name = message.get("method")
        if not isinstance(name, str):
            raise InvalidRequestError("method must be a string")
        if name in PROOF_METHODS:
            proof_function, names, required = PROOF_METHODS[name]
            result = proof_function(reader, proofs, _bind(message.get("params"), names, required))
        else:
            entry = METHODS.get(name)
            if entry is None:
                raise MethodNotFoundError(f"method not found: {name[:80]}")
            function, names, required = entry
            result = function(reader, _bind(message.get("params"), names, required))
    except ApiError as e:
        return None if notification else _error(request_id, e)
    except StoreError as e:
        fault = store_fault(e)
        code = STORE_UNAVAILABLE if fault.unavailable else INTERNAL_ERROR
        return None if notification else _fault(request_id, code, fault.message)
    return None if notification else {"jsonrpc": "2.0", "id": request_id, "result": result}


def _bind(params: Any, names: Sequence[str], required: int) -> Params:
    if params is None:
        params = []
    if isinstance(params, list):
        if len(params) > len(names):
            raise InvalidParamsError(f"expected at most {len(names)} parameters, got {len(params)}")
        bound = dict(zip(names, params, strict=False))
    elif isinstance(params, Mapping):
        unknown = set(params) - set(names)
        if unknown:
            raise InvalidParamsError(f"unknown parameters: {', '.join(sorted(str(u) for u in unknown))}")
        bound = dict(params)
    else:
        raise InvalidRequestError("params must be an array or an object")
    missing = [n for n in names[:required] if n not in bound]
    if missing:
        raise InvalidParamsError(f"missing parameters: {', '.join(missing)}")
    return bound


def _error(request_id: Any, error: ApiError) -> dict[str, Any]:
    return _fault(request_id, error.rpc_code, error.reason)


def _fault(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
