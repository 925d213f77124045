"""Proofs from a deployment's query API: ``GET /api/v1/transactions/{id}/stateproof`` and
``GET /api/v1/blocks/{number}/proof`` in their canonical protobuf form (standard library only)."""

from __future__ import annotations

import json
from urllib.error import HTTPError, URLError
from urllib.parse import quote, urlencode
from urllib.request import Request, urlopen

from hedera_history.errors import ConfigError, ObjectNotFoundError, SourceError, SourceUnavailableError
from hedera_history.proofs.transaction_ids import TransactionQuery

PROTOBUF = "application/x-protobuf"
MAX_PROOF_BYTES = 64 << 20
"""A block proof of 10,000 transactions is a few megabytes: far more is not a proof."""


class ApiProver:
    """Asks the query API at ``base_url`` (``https://…``, without ``/api/v1``) for proofs;
    ``token`` goes in ``Authorization: Bearer`` (a private function: an identity token)."""

    def __init__(self, base_url: str, *, token: str | None = None, timeout: float = 120.0) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"the query API's URL starts with http:// or https://, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def transaction_proof(self, query: TransactionQuery, *, sidecars: bool = False) -> bytes:
        if query.payer is None or query.valid_start_ns is None:
            raise ConfigError("the query API proves a transaction by its id (--transaction), not by consensus time")
        seconds, nanos = divmod(query.valid_start_ns, 1_000_000_000)
        params = {"nonce": str(query.nonce), "scheduled": "true" if query.scheduled else "false"}
        if sidecars:
            params["sidecars"] = "true"
        transaction_id = quote(f"{query.payer}-{seconds}-{nanos:09d}", safe="")
        return self._get(f"/api/v1/transactions/{transaction_id}/stateproof?{urlencode(params)}")

    def block_proof(self, block_number: int) -> bytes:
        return self._get(f"/api/v1/blocks/{block_number}/proof")

    def _get(self, path: str) -> bytes:
        url = self.base_url + path
        headers = {"Accept": PROTOBUF}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        try:
            with urlopen(Request(url, headers=headers), timeout=self.timeout) as response:
                data: bytes = response.read(MAX_PROOF_BYTES + 1)
        except HTTPError as e:
            message = _error_message(e)
            if e.code == 404:
                raise ObjectNotFoundError(message, file=url) from e
            if e.code in (429, 500, 502, 503, 504):
                raise SourceUnavailableError(f"HTTP {e.code}: {message}", file=url) from e
            raise SourceError(f"HTTP {e.code}: {message}", file=url) from e
        except (URLError, TimeoutError, OSError) as e:
            raise SourceUnavailableError(f"the query API did not answer: {e}", file=url) from e
        if len(data) > MAX_PROOF_BYTES:
            raise SourceError(f"the answer is larger than {MAX_PROOF_BYTES} bytes", file=url)
        return data


def _error_message(error: HTTPError) -> str:
    """The mirror node's error shape (``_status.messages[0].message``), else the status text."""
    try:
        body = json.loads(error.read(64 << 10))
        return str(body["_status"]["messages"][0]["message"])
    except (ValueError, KeyError, IndexError, TypeError, OSError):
        return str(error.reason)
