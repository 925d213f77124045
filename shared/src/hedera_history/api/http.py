"""The Flask (functions-framework) side: a request in, ``api.handle``, a JSON response out."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from flask import Flask, Request, Response, request

from hedera_history.api.app import MAX_BODY_BYTES, ApiResponse, handle
from hedera_history.api.caching import (
    CORS_HEADERS,
    cache_control,
    entity_tag,
    matches,
    preflight_headers,
    varies_on_accept,
)
from hedera_history.api.proofs import ProofConfig, no_proofs, settings_proofs
from hedera_history.errors import StoreUnavailableError
from hedera_history.store.reader import HistoryReader

if TYPE_CHECKING:  # the settings module is read on first use, not at a cold start
    from hedera_history.config import Settings


def serve_request(request: Request, reader: Callable[[], HistoryReader], proofs: ProofConfig = no_proofs) -> Response:
    if request.method == "OPTIONS":
        return Response(status=204, headers=preflight_headers(request.headers.get("Access-Control-Request-Headers")))
    length = request.content_length
    if length is not None and length > MAX_BODY_BYTES:
        answer = ApiResponse(413, {"_status": {"messages": [{"message": f"body larger than {MAX_BODY_BYTES} bytes"}]}})
    else:
        body = request.stream.read(MAX_BODY_BYTES + 1)
        query = {k: request.args.getlist(k) for k in request.args}
        answer = handle(
            reader, request.method, request.path, query, body, proofs=proofs, accept=request.headers.get("Accept")
        )
    headers = dict(CORS_HEADERS)
    if varies_on_accept(request.path):
        headers["Vary"] = "Accept"
    if answer.body is None:
        return Response(status=answer.status, headers=headers)
    body = answer.body if isinstance(answer.body, bytes) else json.dumps(answer.body).encode()
    cache = cache_control(request.method, request.path, answer.status)
    if cache is not None:
        headers["Cache-Control"] = cache
        headers["ETag"] = entity_tag(body)
        if matches(request.headers.get("If-None-Match"), headers["ETag"]):
            return Response(status=304, headers=headers)
    return Response(body, status=answer.status, mimetype=answer.media_type, headers=headers)


def local_app(settings: Settings | None = None) -> Flask:
    """The ``query`` function's code as a Flask app: every path and method to :func:`serve_request`
    (``hedera-history serve``); ``settings`` default to the environment's."""
    app = Flask("hedera-history")
    reader = lazy_reader(settings)
    proofs = settings_proofs(settings)

    @app.route("/", defaults={"path": ""}, methods=["GET", "POST", "PUT", "DELETE", "PATCH"])
    @app.route("/<path:path>", methods=["GET", "POST", "PUT", "DELETE", "PATCH"])
    def everything(path: str) -> Response:
        return serve_request(request, reader, proofs)

    return app


def lazy_reader(settings: Settings | None = None) -> Callable[[], HistoryReader]:
    """A reader built from ``settings`` (default the environment's) on first use (the Bigtable
    client is imported then)."""
    made: list[HistoryReader] = []

    def get() -> HistoryReader:
        if not made:
            from google.auth.exceptions import GoogleAuthError  # noqa: PLC0415

            from hedera_history.config import Settings  # noqa: PLC0415
            from hedera_history.store.bigtable_client import open_gateway  # noqa: PLC0415

            try:
                made.append(HistoryReader(open_gateway(settings or Settings.from_env())))
            except GoogleAuthError as e:
                raise StoreUnavailableError(f"no credentials for Bigtable: {e}") from e
        return made[0]

    return get
