"""``POST /api/v1/contracts/call``: answered as the reference's EVM service answers a call it
cannot execute, since this service keeps no EVM state to execute against.

The reference (``web3``'s ``GenericControllerAdvice``) answers in its error shape with the HTTP
reason phrase as ``message`` and the cause as ``detail``: a body that is not a JSON object is a 400
(``Bad Request``), a call it cannot carry out a 501 (``Not Implemented``). Here every well-formed
call is the latter, with the reason in ``detail``, so a client gets a parseable error, never a 405.
"""

from __future__ import annotations

import json

from hedera_history.api.errors import ApiError, InvalidParamsError, NotServedError

CONTRACT_CALL_PATH = "/api/v1/contracts/call"
NOT_EXECUTED = (
    "contract calls are executed on the EVM against live contract state; this service keeps the "
    "verified history of the network (transactions, records, sidecars), not state to execute against"
)


def is_contract_call(method: str, path: str) -> bool:
    return method == "POST" and path.rstrip("/") == CONTRACT_CALL_PATH


def refuse_contract_call(body: bytes) -> ApiError:
    """The error a call gets: 400 for a body that is not a JSON object, else 501."""
    try:
        request = json.loads(body) if body else None
    except json.JSONDecodeError as e:
        return InvalidParamsError("Bad Request", detail=f"the body is not JSON: {e.msg}")
    except UnicodeDecodeError:
        return InvalidParamsError("Bad Request", detail="the body is not JSON: not UTF-8")
    if not isinstance(request, dict):
        return InvalidParamsError("Bad Request", detail="the body must be a JSON object (ContractCallRequest)")
    return NotServedError("Not Implemented", detail=NOT_EXECUTED)
