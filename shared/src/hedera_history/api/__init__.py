"""The query API over a HistoryReader: JSON-RPC 2.0 on POST /, mirror-node shaped REST under
/api/v1, and /openapi.json. Pure request -> response logic; the HTTP adapters live in
``api.http`` (Flask) and ``functions/query/main.py``."""

from hedera_history.api.app import MAX_BODY_BYTES, ApiResponse, handle

__all__ = ["MAX_BODY_BYTES", "ApiResponse", "handle"]
