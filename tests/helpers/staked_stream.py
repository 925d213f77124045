"""A generated stream whose node stakes change so that a count and the stakes disagree, both ways.

Four nodes, one each in the book. Block 1 carries a NodeStakeUpdate giving node 0 (0.0.3) 70 % of
the stake, in force from block 2. Block 3 is signed by node 0 alone: 1 of 4 by count (short of
ceil(4/3) = 2), 70 of 100 by stake (at least ceil(100/3) = 34): it verifies only by stake. Block 4
is signed by the three others: 3 of 4 by count, 30 of 100 by stake: it verifies only by count.
"""

from __future__ import annotations

from hedera_history.gen import GeneratorConfig

STAKES = (70, 10, 10, 10)
STAKED = GeneratorConfig(
    nodes=4,
    periods=6,
    transactions=6,
    seed=12,
    rotate_key=False,
    stake_updates={1: STAKES},
    signers={3: (0,), 4: (1, 2, 3)},
)
STAKES_BLOCK = 1
ONLY_BY_STAKE = 3
"""The block that verifies by stake and not by count."""
ONLY_BY_COUNT = 4
"""The block that verifies by count and not by stake."""
VERIFIED = (0, 1, 2, 3, 5)
"""The blocks the stake-weighted rule verifies."""
