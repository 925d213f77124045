"""Cloud Function ``query``: the history API (JSON-RPC on POST /, REST under /api/v1, /openapi.json)."""

from __future__ import annotations

import functions_framework
from flask import Request, Response
from hedera_history.api.http import lazy_reader, serve_request
from hedera_history.api.proofs import settings_proofs
from hedera_history.logs import traced_http

READER = lazy_reader()
PROOFS = settings_proofs()


@functions_framework.http
@traced_http
def query(request: Request) -> Response:
    return serve_request(request, READER, PROOFS)
