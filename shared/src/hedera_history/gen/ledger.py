"""The generator's ledger: hbar, fungible token and NFT holdings, and entity numbering.

Every transfer the generator writes into a record goes through here first, so no account is ever
overdrawn and final balances are genesis plus the sum of the records' transfers. Accounts are
``0.0.<num>`` and held here by ``num``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hedera_history.errors import GeneratorError
from hedera_history.gen.token_ledger import TokenInfo, TokenLedger

TREASURY = 2
FEE_COLLECTOR = 98
STAKING_REWARD_ACCOUNT = 800
"""0.0.800, the account staking rewards are paid from."""
STAKING_REWARD_GENESIS_TINYBAR = 1_000_000 * 100_000_000
FIRST_USER_ACCOUNT = 1001
TINYBAR_PER_HBAR = 100_000_000
TOTAL_TINYBAR = 50_000_000_000 * TINYBAR_PER_HBAR
USER_GENESIS_TINYBAR = 100_000 * TINYBAR_PER_HBAR
NODE_GENESIS_TINYBAR = 1_000 * TINYBAR_PER_HBAR
FUNGIBLE_DECIMALS = 2
FUNGIBLE_GENESIS_UNITS = 1_000_000 * 10**FUNGIBLE_DECIMALS
NFTS_PER_ACCOUNT = 3


@dataclass(frozen=True, slots=True)
class Genesis:
    """State before the first block."""

    hbar: dict[int, int]
    user_accounts: tuple[int, ...]
    node_accounts: tuple[int, ...]
    fungible_token: int
    nft_token: int
    fungible: dict[int, int]
    """Account -> units of the fungible token."""
    nft_owners: dict[int, int]
    """Serial number -> owner of the NFT token."""
    contract: int
    """A contract deployed before the first block, so calls can start at once."""
    next_entity: int


def genesis_state(nodes: int, accounts: int, *, staking_rewards: bool = False) -> Genesis:
    """``staking_rewards``: 0.0.800 holds rewards to pay (``GeneratorConfig.staking_rewards``)."""
    node_accounts = tuple(range(3, 3 + nodes))
    users = tuple(range(FIRST_USER_ACCOUNT, FIRST_USER_ACCOUNT + accounts))
    fungible_token = users[-1] + 1
    nft_token = fungible_token + 1
    contract = nft_token + 1
    hbar = {TREASURY: 0, FEE_COLLECTOR: 0}
    hbar.update(dict.fromkeys(node_accounts, NODE_GENESIS_TINYBAR))
    hbar.update(dict.fromkeys(users, USER_GENESIS_TINYBAR))
    hbar[contract] = 0
    if staking_rewards:
        hbar[STAKING_REWARD_ACCOUNT] = STAKING_REWARD_GENESIS_TINYBAR
    hbar[TREASURY] = TOTAL_TINYBAR - sum(hbar.values())
    nft_owners = {serial: users[(serial - 1) % len(users)] for serial in range(1, NFTS_PER_ACCOUNT * len(users) + 1)}
    return Genesis(
        hbar=hbar,
        user_accounts=users,
        node_accounts=node_accounts,
        fungible_token=fungible_token,
        nft_token=nft_token,
        fungible=dict.fromkeys(users, FUNGIBLE_GENESIS_UNITS),
        nft_owners=nft_owners,
        contract=contract,
        next_entity=contract + 1,
    )


class Ledger:
    """Mutable holdings; every change is checked (sums to zero, nothing negative)."""

    def __init__(self, genesis: Genesis) -> None:
        self.hbar = dict(genesis.hbar)
        self.fungible = dict(genesis.fungible)
        self.nft_owners = dict(genesis.nft_owners)
        self.user_accounts: list[int] = list(genesis.user_accounts)
        self.token_holders: tuple[int, ...] = genesis.user_accounts
        self.contracts: list[int] = [genesis.contract]
        self._next_entity = genesis.next_entity
        self._changed: set[int] = set()
        self.tokens = TokenLedger()
        """Every token's state; the genesis tokens' holdings are :attr:`fungible` and :attr:`nft_owners`."""
        supply = sum(self.fungible.values())
        self.fungible_token, self.nft_token = genesis.fungible_token, genesis.nft_token
        self.tokens.add_token(TokenInfo(self.fungible_token, True, TREASURY, FUNGIBLE_DECIMALS, supply), self.fungible)
        self.tokens.add_token(TokenInfo(self.nft_token, False, TREASURY, 0, len(self.nft_owners)), self.nft_owners)
        self.tokens.take_changed()

    def balance(self, account: int) -> int:
        return self.hbar.get(account, 0)

    def new_entity(self) -> int:
        """The next entity number (accounts, contracts, schedules share one sequence)."""
        number = self._next_entity
        self._next_entity += 1
        return number

    def open_account(self, account: int, *, contract: bool = False, pooled: bool = True) -> None:
        """A new account at zero; ``pooled``: a user account that pays and receives in the mix."""
        if account in self.hbar:
            raise GeneratorError(f"account 0.0.{account} exists already")
        self.hbar[account] = 0
        if contract:
            self.contracts.append(account)
        elif pooled:
            self.user_accounts.append(account)

    def transfer_hbar(self, changes: Iterable[tuple[int, int]]) -> None:
        """Apply (account, tinybar) changes that sum to zero; GeneratorError on an overdraft."""
        pairs = list(changes)
        if sum(amount for _, amount in pairs) != 0:
            raise GeneratorError(f"hbar transfers do not balance: {pairs}")
        for account, amount in pairs:
            if account not in self.hbar:
                raise GeneratorError(f"hbar transfer to unknown account 0.0.{account}")
            if self.hbar[account] + amount < 0:
                raise GeneratorError(f"0.0.{account} would be overdrawn: {self.hbar[account]} + {amount}")
        for account, amount in pairs:
            self.hbar[account] += amount
            self._changed.add(account)

    def transfer_fungible(self, changes: Iterable[tuple[int, int]]) -> None:
        pairs = list(changes)
        if sum(amount for _, amount in pairs) != 0:
            raise GeneratorError(f"token transfers do not balance: {pairs}")
        for account, amount in pairs:
            if self.fungible.get(account, 0) + amount < 0:
                raise GeneratorError(f"0.0.{account} would hold negative token units")
        for account, amount in pairs:
            self.fungible[account] = self.fungible.get(account, 0) + amount
        self.tokens.note_genesis_fungible(self.fungible_token, [account for account, _ in pairs])

    def move_nft(self, serial: int, sender: int, receiver: int) -> None:
        if self.nft_owners.get(serial) != sender:
            raise GeneratorError(f"NFT serial {serial} is not owned by 0.0.{sender}")
        self.nft_owners[serial] = receiver
        self.tokens.note_genesis_nft_move(self.nft_token, sender, receiver, serial)

    def take_changed(self) -> dict[int, int]:
        """Balances of the accounts changed since the last call (a per-block snapshot)."""
        snapshot = {account: self.hbar[account] for account in sorted(self._changed)}
        self._changed.clear()
        return snapshot
