"""The reference mirror node's REST routes (its OpenAPI path templates) and what we do with each:
served, served with documented differences, or not served and why. The contract and fuzz tests run
over ``SERVED``; a route in ``NOT_SERVED`` answers 501 with its reason; docs/api.md lists both."""

from __future__ import annotations

import re
from typing import Literal

Fidelity = Literal["identical", "differences"]

SERVED: dict[str, Fidelity] = {
    "/api/v1/accounts": "differences",
    "/api/v1/accounts/{idOrAliasOrEvmAddress}": "differences",
    "/api/v1/accounts/{idOrAliasOrEvmAddress}/airdrops/outstanding": "differences",
    "/api/v1/accounts/{idOrAliasOrEvmAddress}/airdrops/pending": "differences",
    "/api/v1/accounts/{idOrAliasOrEvmAddress}/allowances/crypto": "differences",
    "/api/v1/accounts/{idOrAliasOrEvmAddress}/allowances/nfts": "differences",
    "/api/v1/accounts/{idOrAliasOrEvmAddress}/allowances/tokens": "differences",
    "/api/v1/accounts/{idOrAliasOrEvmAddress}/nfts": "differences",
    "/api/v1/accounts/{idOrAliasOrEvmAddress}/rewards": "differences",
    "/api/v1/accounts/{idOrAliasOrEvmAddress}/tokens": "differences",
    "/api/v1/balances": "differences",
    "/api/v1/blocks": "identical",
    "/api/v1/blocks/{hashOrNumber}": "identical",
    "/api/v1/contracts/{contractIdOrAddress}": "differences",
    "/api/v1/contracts/results": "differences",
    "/api/v1/contracts/results/logs": "differences",
    "/api/v1/contracts/results/{transactionIdOrHash}": "differences",
    "/api/v1/contracts/results/{transactionIdOrHash}/actions": "identical",
    "/api/v1/contracts/{contractIdOrAddress}/results": "differences",
    "/api/v1/contracts/{contractIdOrAddress}/results/logs": "differences",
    "/api/v1/contracts/{contractIdOrAddress}/results/{timestamp}": "differences",
    "/api/v1/network/exchangerate": "identical",
    "/api/v1/network/fees": "identical",
    "/api/v1/network/nodes": "differences",
    "/api/v1/network/registered-nodes": "differences",
    "/api/v1/network/stake": "identical",
    "/api/v1/network/supply": "differences",
    "/api/v1/tokens": "differences",
    "/api/v1/tokens/{tokenId}": "differences",
    "/api/v1/tokens/{tokenId}/balances": "differences",
    "/api/v1/tokens/{tokenId}/nfts": "differences",
    "/api/v1/tokens/{tokenId}/nfts/{serialNumber}": "differences",
    "/api/v1/tokens/{tokenId}/nfts/{serialNumber}/transactions": "differences",
    "/api/v1/schedules": "differences",
    "/api/v1/schedules/{scheduleId}": "differences",
    "/api/v1/topics/{topicId}": "differences",
    "/api/v1/topics/{topicId}/messages": "differences",
    "/api/v1/topics/{topicId}/messages/{sequenceNumber}": "identical",
    "/api/v1/topics/messages/{timestamp}": "identical",
    "/api/v1/transactions": "differences",
    "/api/v1/transactions/{transactionId}": "identical",
}
"""``differences``: served, with the differences docs/api.md names (a filter or form not taken,
fields history cannot know)."""

_LIVE = "live entity state, which the record stream does not carry as state"
_NO_INDEX = "history keeps no index for this listing"
NOT_SERVED: dict[str, str] = {
    "/api/v1/accounts/{idOrAliasOrEvmAddress}/hooks": _LIVE,
    "/api/v1/accounts/{idOrAliasOrEvmAddress}/hooks/{hookId}/storage": _LIVE,
    "/api/v1/contracts/call": "an EVM simulation against live contract state (POST)",
    "/api/v1/contracts": _NO_INDEX + " (every contract with its live state)",
    "/api/v1/contracts/{contractIdOrAddress}/state": _LIVE + " (contract storage now)",
    "/api/v1/contracts/results/{transactionIdOrHash}/opcodes": "a re-execution of the transaction on the EVM",
}


NOT_SERVED_METHODS: dict[tuple[str, str], str] = {
    ("POST", "/api/v1/network/fees"): "a fee estimate of a transaction runs the network's fee calculator on it "
    "(the fee schedules in force are GET /api/v1/network/fees)",
}
"""Other methods the reference takes on a route we serve by GET, and why history cannot answer them:
a 501 with the reason, as for a route not served, rather than a 405."""


def not_served_method_reason(method: str, path: str) -> str | None:
    """Why ``method`` on ``path`` (a route served by GET) is not served here, None when the
    reference takes no such method there."""
    return NOT_SERVED_METHODS.get((method, path.rstrip("/")))


def _pattern(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\{[^/}]+\}", "[^/]+", template) + "$")


# Literal templates first: /contracts/results/logs is not /contracts/results/{transactionIdOrHash}.
_NOT_SERVED_PATTERNS = sorted(
    ((_pattern(t), reason) for t, reason in NOT_SERVED.items()), key=lambda p: p[0].pattern.count("[^/]+")
)


def not_served_reason(path: str) -> str | None:
    """Why a reference route is not served here, None when ``path`` is not one of them."""
    for pattern, reason in _NOT_SERVED_PATTERNS:
        if pattern.fullmatch(path):
            return reason
    return None
