"""What the players of the transaction kinds share: the stream's randomness, its ledger, the
item writer, and the factory's steps for a fresh draft, a fee and a payer who can pay it."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from hedera_history.gen.items import Draft, ItemWriter
from hedera_history.gen.ledger import Ledger

NewDraft = Callable[[int, int], Draft]
"""``(consensus_ns, payer) -> Draft`` with a fresh transaction id and a submitting node."""


class Player:
    def __init__(
        self,
        rng: random.Random,
        ledger: Ledger,
        writer: ItemWriter,
        new_draft: NewDraft,
        fee: Callable[[], int],
        pick_payer: Callable[[int], int],
    ) -> None:
        self.rng = rng
        self.ledger = ledger
        self.writer = writer
        self._new_draft = new_draft
        self._fee = fee
        self._pick_payer = pick_payer

    def other_user(self, excluded: int) -> int:
        """A user account other than ``excluded``."""
        return pick_other(self.rng, self.ledger.user_accounts, excluded)


def pick_other(rng: random.Random, accounts: Sequence[int], excluded: int) -> int:
    """One of ``accounts`` other than ``excluded``."""
    while True:
        account = rng.choice(accounts)
        if account != excluded:
            return account
