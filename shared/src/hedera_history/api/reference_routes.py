"""The reference mirror node's REST routes we serve (its OpenAPI path templates), and how: the
contract and fuzz tests run over these, docs/api.md lists them."""

from __future__ import annotations

from typing import Literal

Fidelity = Literal["identical", "differences"]

SERVED: dict[str, Fidelity] = {
    "/api/v1/accounts/{idOrAliasOrEvmAddress}": "differences",
    "/api/v1/balances": "differences",
    "/api/v1/blocks": "identical",
    "/api/v1/blocks/{hashOrNumber}": "differences",
    "/api/v1/contracts/results/{transactionIdOrHash}": "differences",
    "/api/v1/contracts/results/{transactionIdOrHash}/actions": "identical",
    "/api/v1/contracts/{contractIdOrAddress}/results": "differences",
    "/api/v1/network/nodes": "differences",
    "/api/v1/transactions": "differences",
    "/api/v1/transactions/{transactionId}": "identical",
}
"""``differences``: served, with the differences docs/api.md names (a filter or form not taken,
fields history cannot know). Every other route of the reference answers 404 (docs/api.md says why)."""
