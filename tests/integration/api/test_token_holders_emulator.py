"""Every holder of every token after every block: the generated token stream across the cutover
(``test_tokens_cutover_emulator``'s, loaded once there) answers ``/tokens/{id}/balances`` at each
block's end with exactly the accounts the ground truth has holding the token then, no more and no
fewer, and the same amounts. The genesis tokens' genesis holdings are not history (the genesis
balance file holds them), so their answers are the truth less those."""

from __future__ import annotations

from typing import Any

import pytest
from hedera_history.api.render import timestamp
from hedera_history.gen import GeneratedStream

from tests.integration.api.reference_contract import ReferenceContract, checked_get
from tests.integration.api.test_tokens_cutover_emulator import client, contract, stream

pytestmark = pytest.mark.emulator
__all__ = ["client", "contract", "stream"]  # the fixtures this module shares


def _holdings_after_each_block(truth: dict[str, Any]) -> dict[int, dict[str, dict[str, int]]]:
    """Block number -> token -> account -> balance after the block (zeros left out), from genesis
    and each block's changes."""
    state = truth["token_state"]["balances"]
    held = {token: dict(accounts) for token, accounts in state["genesis"].items()}
    after: dict[int, dict[str, dict[str, int]]] = {}
    for block in truth["blocks"]:
        for token, changed in state["by_block"].get(str(block["number"]), {}).items():
            held.setdefault(token, {}).update(changed)
        after[block["number"]] = {t: {a: b for a, b in accounts.items() if b} for t, accounts in held.items()}
    return after


def test_every_holder_of_every_token_after_every_block(
    client: Any, contract: ReferenceContract, stream: GeneratedStream
) -> None:
    truth = stream.truth
    genesis = truth["token_state"]["balances"]["genesis"]
    ends = {block["number"]: block["consensus_end_ns"] for block in truth["blocks"]}
    checked = 0
    for number, tokens in _holdings_after_each_block(truth).items():
        for token in truth["token_state"]["tokens"]:
            expected = dict(tokens.get(token, {}))
            for account, units in genesis.get(token, {}).items():
                expected[account] = expected.get(account, 0) - units
            url = f"/api/v1/tokens/{token}/balances?timestamp={timestamp(ends[number])}&limit=100"
            answer = checked_get(client, contract, url)
            assert answer["links"]["next"] is None, url
            shown = {b["account"]: b["balance"] for b in answer["balances"] if b["balance"]}
            assert shown == {a: b for a, b in expected.items() if b}, (number, token)
            checked += 1
    assert checked == len(ends) * len(truth["token_state"]["tokens"])
