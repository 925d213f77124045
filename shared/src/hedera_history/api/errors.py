"""Errors of the query API, each with its HTTP status and JSON-RPC code."""

from __future__ import annotations

from hedera_history.errors import HistoryError


class ApiError(HistoryError):
    """A request the API refuses; ``reason`` is safe to show to the caller."""

    status = 400
    rpc_code = -32602


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
