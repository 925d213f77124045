"""One request in, one response out: routes to JSON-RPC, REST and the OpenAPI document."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hedera_history.api import jsonrpc, rest
from hedera_history.api.contract_call import is_contract_call, refuse_contract_call
from hedera_history.api.errors import (
    ApiError,
    MethodNotAllowedError,
    NotFoundError,
    NotServedError,
    PayloadTooLargeError,
    store_fault,
)
from hedera_history.api.openapi import openapi_document
from hedera_history.api.proof_routes import proof_route
from hedera_history.api.proofs import ProofConfig, no_proofs
from hedera_history.api.reference_routes import not_served_method_reason
from hedera_history.errors import StoreError
from hedera_history.store.reader import HistoryReader

MAX_BODY_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class ApiResponse:
    status: int
    body: Any
    """JSON-serialisable, or bytes of ``media_type``; None: no body."""
    media_type: str = "application/json"


def handle(
    reader: Callable[[], HistoryReader],
    method: str,
    path: str,
    query: Mapping[str, Sequence[str]],
    body: bytes,
    *,
    proofs: ProofConfig = no_proofs,
    accept: str | None = None,
) -> ApiResponse:
    """Answer one HTTP request. ``reader`` is called only when the store is needed, ``proofs``
    only when a proof is asked for; ``accept`` is the request's ``Accept`` header."""
    rpc = path in ("", "/")
    try:
        if len(body) > MAX_BODY_BYTES:
            raise PayloadTooLargeError(f"body larger than {MAX_BODY_BYTES} bytes")
        if rpc:
            return _jsonrpc(reader, method, body, proofs)
        if is_contract_call(method, path):
            raise refuse_contract_call(body)
        return _rest(reader, method, path, query, proofs=proofs, accept=accept)
    except ApiError as e:
        return _api_error(e, rpc)
    except StoreError as e:
        fault = store_fault(e)
        return ApiResponse(503 if fault.unavailable else 500, _rest_error(fault.message))


def _jsonrpc(reader: Callable[[], HistoryReader], method: str, body: bytes, proofs: ProofConfig) -> ApiResponse:
    if method != "POST":
        raise MethodNotAllowedError("JSON-RPC requests are POSTed to /")
    status, answer = jsonrpc.handle_jsonrpc(reader, body, proofs=proofs)
    return ApiResponse(status, answer)


def _rest(
    reader: Callable[[], HistoryReader],
    method: str,
    path: str,
    query: Mapping[str, Sequence[str]],
    *,
    proofs: ProofConfig,
    accept: str | None,
) -> ApiResponse:
    if method not in ("GET", "HEAD"):
        reason = not_served_method_reason(method, path)
        if reason is not None:
            raise NotServedError(f"not served from history: {reason}")
        raise MethodNotAllowedError(f"{method[:10]} is not allowed on {path[:200]}")
    if path == "/openapi.json":
        return ApiResponse(200, openapi_document())
    if not path.startswith("/api/v1/"):
        raise NotFoundError(f"no route {path[:200]}")
    proof = proof_route(reader, proofs, path, query, accept)
    if proof is not None:
        return ApiResponse(200, proof.body, proof.media_type)
    return ApiResponse(200, rest.route(reader, path, query))


def _api_error(error: ApiError, rpc: bool) -> ApiResponse:
    """An ApiError in the shape of the protocol asked: JSON-RPC's error object or the REST one."""
    if rpc:
        rpc_error = {"code": error.rpc_code, "message": error.reason}
        return ApiResponse(error.status, {"jsonrpc": "2.0", "id": None, "error": rpc_error})
    return ApiResponse(error.status, _rest_error(error.reason, error.detail))


def _rest_error(message: str, detail: str | None = None) -> dict[str, Any]:
    """The mirror node's error shape (``detail`` as its EVM routes give one)."""
    entry = {"message": message} if detail is None else {"message": message, "detail": detail}
    return {"_status": {"messages": [entry]}}
