"""``hedera-history serve``: the query API on a local port (the ``query`` function's code)."""

from __future__ import annotations

from pathlib import Path

import click

from hedera_history.api.http import local_app
from hedera_history.cli.common import address_book_option, network_option
from hedera_history.config import Settings


@click.command()
@click.option("--port", type=int, default=8080, show_default=True, help="Port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@network_option
@address_book_option
def serve(port: int, host: str, network: str | None, address_book: Path | None) -> None:
    """Serve the query API (JSON-RPC, REST, /openapi.json) from the configured Bigtable instance.

    Proofs (``/stateproof``, ``/proof``) start from the bootstrap book: --address-book, else the
    --network preset's."""
    settings = Settings.from_env(network=network, address_book=str(address_book) if address_book else None)
    local_app(settings).run(host=host, port=port)
