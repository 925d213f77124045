"""Google Pub/Sub client errors as the project's transport errors, classified by type."""

from __future__ import annotations

import concurrent.futures

from google.api_core import exceptions as api_exceptions
from google.auth import exceptions as auth_exceptions

from hedera_history.errors import TransportError, TransportUnavailableError

RETRYABLE_STATUS_ERRORS = (
    api_exceptions.Aborted,
    api_exceptions.Cancelled,
    api_exceptions.DeadlineExceeded,
    api_exceptions.InternalServerError,
    api_exceptions.ResourceExhausted,
    api_exceptions.ServiceUnavailable,
    api_exceptions.Unknown,
)
"""The statuses Pub/Sub documents as retryable: the publisher's own retry tries these again."""

# Those, the HTTP answers that mean the same, plus a retry budget that ran out.
_TRANSIENT = (
    *RETRYABLE_STATUS_ERRORS,
    api_exceptions.BadGateway,
    api_exceptions.GatewayTimeout,
    api_exceptions.TooManyRequests,
    api_exceptions.RetryError,
    auth_exceptions.TransportError,
    concurrent.futures.TimeoutError,
)

CLIENT_ERRORS = (api_exceptions.GoogleAPIError, auth_exceptions.GoogleAuthError)
"""What a Pub/Sub admin or pull call raises when the call itself failed."""


def transport_error(error: BaseException, what: str) -> TransportError:
    """``what`` failed because of ``error``: transient or not, by the error's type."""
    detail = f"{what}: {type(error).__name__}"
    code = getattr(error, "grpc_status_code", None)
    if code is not None:
        detail += f" ({code.name})"
    if isinstance(error, _TRANSIENT):
        return TransportUnavailableError(detail)
    return TransportError(detail)
