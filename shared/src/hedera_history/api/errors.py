"""Errors of the query API, each with its HTTP status and JSON-RPC code."""

from __future__ import annotations

import logging
from typing import NamedTuple

from hedera_history.errors import HistoryError, StoreError, StoreUnavailableError
from hedera_history.logs import event

logger = logging.getLogger("hedera_history.api")


class StoreFault(NamedTuple):
    """The short, safe answer to a store failure, the same over REST and JSON-RPC."""

    unavailable: bool
    """The store could not be reached (503, retry), rather than what it holds not read (500)."""
    message: str


def store_fault(error: StoreError) -> StoreFault:
    """Log why ``error`` happened, and give the caller's short, safe answer: the caller learns no
    more, so without this line the cause (a channel limit, a missing table, an unreadable cell) is lost."""
    unavailable = isinstance(error, StoreUnavailableError)
    event(
        logger,
        "history store unavailable" if unavailable else "stored history unreadable",
        logging.WARNING if unavailable else logging.ERROR,
        reason=str(error),
        error_type=type(error).__name__,
    )
    if unavailable:
        return StoreFault(True, "history store unavailable, retry")
    return StoreFault(False, "stored history could not be read")


class ApiError(HistoryError):
    """A request the API refuses; ``reason`` is safe to show to the caller, and so is ``detail``
    (the error object's ``detail``, as the reference's EVM routes give one; None: no such field)."""

    status = 400
    rpc_code = -32602

    def __init__(self, message: str, *, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail


class ParseError(ApiError):
    rpc_code = -32700


class InvalidRequestError(ApiError):
    rpc_code = -32600


class MethodNotFoundError(ApiError):
    status = 404
    rpc_code = -32601


class InvalidParamsError(ApiError):
    rpc_code = -32602


class NotFoundError(ApiError):
    status = 404
    rpc_code = -32001


class MethodNotAllowedError(ApiError):
    status = 405
    rpc_code = -32600


class PayloadTooLargeError(ApiError):
    status = 413
    rpc_code = -32600


class NotServedError(ApiError):
    """A route or form the reference serves that stored history cannot answer (docs/api.md)."""

    status = 501
    rpc_code = -32601


class ServerError(ApiError):
    """The request was sound but stored history could not answer it (details are logged)."""

    status = 500
    rpc_code = -32603
