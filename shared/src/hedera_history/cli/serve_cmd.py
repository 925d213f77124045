"""``hedera-history serve``: the query API on a local port (the ``query`` function's code)."""

from __future__ import annotations

import click

from hedera_history.api.http import local_app


@click.command()
@click.option("--port", type=int, default=8080, show_default=True, help="Port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
def serve(port: int, host: str) -> None:
    """Serve the query API (JSON-RPC, REST, /openapi.json) from the configured Bigtable instance."""
    local_app().run(host=host, port=port)
