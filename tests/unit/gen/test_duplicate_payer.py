"""A duplicate submission's payer can pay both fees: the transfer, then the duplicate's."""

from __future__ import annotations

import random

from hedera_history.gen.ledger import Ledger, genesis_state
from hedera_history.gen.transactions import _FEES, TransactionFactory


def _factory(seed: int) -> TransactionFactory:
    genesis = genesis_state(4, 30)
    ledger = Ledger(genesis)
    return TransactionFactory(
        seed,
        random.Random(seed),
        ledger,
        node_accounts=(3, 4, 5, 6),
        tokens=(genesis.fungible_token, genesis.nft_token),
        sidecars=False,
    )


def test_a_payer_left_with_a_transfer_fee_is_not_picked_for_a_duplicate() -> None:
    """Long mainnet-sized streams drain accounts to a few fees; a duplicate whose first transfer left
    its payer unable to pay the second submission stopped the generator (``GeneratorError``)."""
    transfer_high, duplicate_high = _FEES["transfer"][1], _FEES["duplicate"][1]
    for seed in range(40):
        factory = _factory(seed)
        for account in factory.ledger.user_accounts:
            moved = factory.ledger.hbar[account] - (transfer_high + duplicate_high // 2)
            factory.ledger.hbar[account] -= moved
            factory.ledger.hbar[2] = factory.ledger.hbar.get(2, 0) + moved
        original, duplicate = factory._duplicate([1_000_000_000, 1_000_000_001])
        assert original is not None and duplicate is not None
