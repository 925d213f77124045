"""Cloud Function ``query``: the history API (JSON-RPC on POST /, REST under /api/v1, /openapi.json)."""

from __future__ import annotations

import functions_framework
from flask import Request, Response
from hedera_history.api.http import lazy_reader, serve_request

READER = lazy_reader()


@functions_framework.http
def query(request: Request) -> Response:
    return serve_request(request, READER)
