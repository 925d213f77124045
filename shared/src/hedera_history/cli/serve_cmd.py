"""``hedera-history serve``: the query API on a local port (the ``query`` function's code)."""

from __future__ import annotations

import click
from flask import Flask, Response, request

from hedera_history.api.http import lazy_reader, serve_request
from hedera_history.api.proofs import settings_proofs


def make_app() -> Flask:
    app = Flask("hedera-history")
    reader = lazy_reader()
    proofs = settings_proofs()

    @app.route("/", defaults={"path": ""}, methods=["GET", "POST", "PUT", "DELETE", "PATCH"])
    @app.route("/<path:path>", methods=["GET", "POST", "PUT", "DELETE", "PATCH"])
    def everything(path: str) -> Response:
        return serve_request(request, reader, proofs)

    return app


@click.command()
@click.option("--port", type=int, default=8080, show_default=True, help="Port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
def serve(port: int, host: str) -> None:
    """Serve the query API (JSON-RPC, REST, /openapi.json) from the configured Bigtable instance."""
    make_app().run(host=host, port=port)
