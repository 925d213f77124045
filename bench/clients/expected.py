"""What the clients must read back on the generated history, from its ground truth (the generator's
``token_state``): an account's token balances, an NFT owner's NFTs, a receiver's pending airdrops.

An owner's NFTs are a bound, not the list: a token from the starting snapshot gives each account's
count of its NFTs, not their serial numbers, so a serial that never moves in the history is not
known to it (docs/api.md: an NFT is its newest row in history)."""

from __future__ import annotations

from typing import Any

PAGE = 25
"""A client that reads one page (the agent kit) sees this many at most."""


def expectations(truth: dict[str, Any], account: str) -> dict[str, Any]:
    state = truth.get("token_state")
    if not state:
        return {}
    final = state["balances"]["final"]
    found: dict[str, Any] = {
        "expected_token_balances": {token: held[account] for token, held in final.items() if held.get(account)}
    }
    owned = [
        (token, int(serial), owner)
        for token, serials in state["nft_owners"].items()
        for serial, owner in serials.items()
    ]
    if owned:
        owner = owned[0][2]
        found.update(
            nft_owner=owner, owned_nfts=sorted([t, serial] for t, serial, held_by in owned if held_by == owner)
        )
    if state["pending_airdrops"]:
        receiver = state["pending_airdrops"][0]["receiver"]
        pending = [airdrop for airdrop in state["pending_airdrops"] if airdrop["receiver"] == receiver]
        if len(pending) <= PAGE:
            found.update(
                airdrop_receiver=receiver,
                expected_pending_airdrops=sorted(
                    [a["sender"], a["token"], a["serial"] or 0, a["amount"] or 0] for a in pending
                ),
            )
    return found
