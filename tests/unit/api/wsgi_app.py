"""The query function's request handling (``serve_request``) as a Flask app over one reader, for
tests that call it in process the way an HTTP client would (schemathesis, the contract test)."""

from __future__ import annotations

import flask
from hedera_history.api.http import serve_request
from hedera_history.api.proofs import ProofConfig, no_proofs
from hedera_history.store.reader import HistoryReader


def query_app(reader: HistoryReader, proofs: ProofConfig = no_proofs) -> flask.Flask:
    app = flask.Flask(f"query-{id(reader)}")
    methods = ["GET", "HEAD", "POST", "OPTIONS"]

    def run(path: str) -> flask.Response:
        return serve_request(flask.request, lambda: reader, proofs)

    app.add_url_rule("/", "root", run, defaults={"path": ""}, methods=methods)
    app.add_url_rule("/<path:path>", "run", run, methods=methods)
    return app
