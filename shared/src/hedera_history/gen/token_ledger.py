"""The generator's token service state: tokens, associations, balances, NFT owners, allowances,
pending airdrops and schedules, every change checked as the network checks it.

The genesis fungible token and NFT share their holdings with :class:`~hedera_history.gen.ledger.Ledger`
(the same dictionaries), so the kinds that move them and the ones here see one state. Each change
marks the (token, account) pairs it touched, so that a block's truth lists the balances it changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hedera_history.errors import GeneratorError


@dataclass(slots=True)
class TokenInfo:
    token: int
    fungible: bool
    treasury: int
    decimals: int
    supply: int
    name: str = ""
    symbol: str = ""
    memo: str = ""
    next_serial: int = 1
    created_ns: int | None = None
    """None for the tokens that exist at genesis."""


AirdropKey = tuple[int, int, int, int]
"""(sender, receiver, token, serial): serial 0 for a fungible token."""


@dataclass(slots=True)
class Schedule:
    schedule: int
    creator: int
    payer: int
    sender: int
    receiver: int
    amount: int
    created_ns: int
    create_valid_start: int
    signatures: list[int] = field(default_factory=list)
    executed_ns: int | None = None


class TokenLedger:
    def __init__(self) -> None:
        self.tokens: dict[int, TokenInfo] = {}
        self.associations: dict[int, set[int]] = {}
        self.fungible: dict[int, dict[int, int]] = {}
        """Token -> account -> units (fungible tokens)."""
        self.nft_owners: dict[int, dict[int, int]] = {}
        """Token -> serial -> owner (NFTs)."""
        self.nft_held: dict[int, dict[int, set[int]]] = {}
        """Token -> owner -> the serials it holds (NFTs)."""
        self.auto_slots: dict[int, int] = {}
        """Account -> automatic association slots still free."""
        self.auto_used: dict[int, int] = {}
        """Account -> automatic associations made."""
        self.hbar_allowances: dict[tuple[int, int], int] = {}
        """(owner, spender) -> tinybar."""
        self.token_allowances: dict[tuple[int, int, int], int] = {}
        """(token, owner, spender) -> units."""
        self.nft_spenders: dict[tuple[int, int], int] = {}
        """(token, serial) -> the spender approved for that serial."""
        self.nft_approved_for_all: set[tuple[int, int, int]] = set()
        """(token, owner, spender)."""
        self.pending: dict[AirdropKey, int] = {}
        self.locked: dict[int, set[int]] = {}
        """Token -> serials a pending airdrop offers: nothing else moves or burns them meanwhile."""
        self.schedules: dict[int, Schedule] = {}
        self._changed: set[tuple[int, int]] = set()
        self._created: dict[bool, list[int]] = {True: [], False: []}

    # ---- tokens and associations -------------------------------------------------------------

    def add_token(self, info: TokenInfo, holdings: dict[int, int]) -> None:
        """A token with its holdings: units by account (fungible), owner by serial (NFT); the
        dictionary is shared, not copied."""
        if info.token in self.tokens:
            raise GeneratorError(f"token 0.0.{info.token} exists already")
        self.tokens[info.token] = info
        if info.created_ns is not None:
            self._created[info.fungible].append(info.token)
        if info.fungible:
            self.fungible[info.token] = holdings
            self.associations[info.token] = set(holdings) | {info.treasury}
        else:
            self.nft_owners[info.token] = holdings
            held: dict[int, set[int]] = {}
            for serial, owner in holdings.items():
                held.setdefault(owner, set()).add(serial)
            self.nft_held[info.token] = held
            self.associations[info.token] = set(held) | {info.treasury}
            info.next_serial = max(holdings, default=0) + 1
        self._changed.update((info.token, account) for account in self.associations[info.token])

    def created(self, *, fungible: bool) -> list[int]:
        """The tokens TokenCreates made (not the genesis ones), oldest first."""
        return self._created[fungible]

    def is_associated(self, token: int, account: int) -> bool:
        return account in self.associations.get(token, ())

    def associate(self, token: int, account: int, *, automatic: bool = False) -> None:
        if self.is_associated(token, account):
            raise GeneratorError(f"0.0.{account} is associated with 0.0.{token} already")
        if automatic:
            if self.auto_slots.get(account, 0) <= 0:
                raise GeneratorError(f"0.0.{account} has no automatic association slot left")
            self.auto_slots[account] -= 1
            self.auto_used[account] = self.auto_used.get(account, 0) + 1
        self.associations[token].add(account)
        self._changed.add((token, account))

    def balance(self, token: int, account: int) -> int:
        if self.tokens[token].fungible:
            return self.fungible[token].get(account, 0)
        return len(self.nft_held[token].get(account, ()))

    def serials_of(self, token: int, owner: int) -> list[int]:
        """The serials ``owner`` holds that no pending airdrop offers, in number order."""
        held = self.nft_held[token].get(owner, set())
        return sorted(held - self.locked[token] if token in self.locked else held)

    # ---- moves -------------------------------------------------------------------------------

    def move_fungible(self, token: int, changes: dict[int, int]) -> None:
        """Units moved between associated accounts (summing to zero, none overdrawn)."""
        if sum(changes.values()) != 0:
            raise GeneratorError(f"token transfers do not balance: {changes}")
        self._apply_fungible(token, changes)

    def _apply_fungible(self, token: int, changes: dict[int, int]) -> None:
        held = self.fungible[token]
        for account, amount in changes.items():
            if not self.is_associated(token, account):
                raise GeneratorError(f"0.0.{account} is not associated with 0.0.{token}")
            if held.get(account, 0) + amount < 0:
                raise GeneratorError(f"0.0.{account} would hold negative units of 0.0.{token}")
        for account, amount in changes.items():
            held[account] = held.get(account, 0) + amount
            self._changed.add((token, account))

    def move_nft(self, token: int, serial: int, sender: int, receiver: int) -> None:
        owners = self.nft_owners[token]
        if owners.get(serial) != sender:
            raise GeneratorError(f"NFT 0.0.{token}/{serial} is not owned by 0.0.{sender}")
        if not self.is_associated(token, receiver):
            raise GeneratorError(f"0.0.{receiver} is not associated with 0.0.{token}")
        owners[serial] = receiver
        self.note_genesis_nft_move(token, sender, receiver, serial)

    def note_genesis_nft_move(self, token: int, sender: int, receiver: int, serial: int) -> None:
        """A genesis NFT moved by the ledger's own owners map: keep the holdings and approvals."""
        self._hold(token, sender, serial, held=False)
        self._hold(token, receiver, serial, held=True)
        self.nft_spenders.pop((token, serial), None)

    def note_genesis_fungible(self, token: int, accounts: list[int]) -> None:
        self._changed.update((token, account) for account in accounts)

    def _hold(self, token: int, account: int, serial: int, *, held: bool) -> None:
        serials = self.nft_held[token].setdefault(account, set())
        if held:
            serials.add(serial)
        else:
            serials.discard(serial)
        self._changed.add((token, account))

    def mint(self, token: int, amount: int, metadata_count: int = 0) -> list[int]:
        """Units (fungible) or serials (NFT) added to the treasury; the serials minted."""
        info = self.tokens[token]
        if info.fungible:
            self._apply_fungible(token, {info.treasury: amount})
            info.supply += amount
            return []
        serials = list(range(info.next_serial, info.next_serial + metadata_count))
        info.next_serial += metadata_count
        for serial in serials:
            self.nft_owners[token][serial] = info.treasury
            self._hold(token, info.treasury, serial, held=True)
        info.supply += metadata_count
        return serials

    def burn(self, token: int, amount: int = 0, serials: tuple[int, ...] = ()) -> None:
        info = self.tokens[token]
        if info.fungible:
            self._apply_fungible(token, {info.treasury: -amount})
            info.supply -= amount
            return
        for serial in serials:
            if self.nft_owners[token].get(serial) != info.treasury:
                raise GeneratorError(f"NFT 0.0.{token}/{serial} is not the treasury's to burn")
            del self.nft_owners[token][serial]
            self._hold(token, info.treasury, serial, held=False)
            self.nft_spenders.pop((token, serial), None)
        info.supply -= len(serials)

    # ---- allowances --------------------------------------------------------------------------

    def spend_hbar_allowance(self, owner: int, spender: int, amount: int) -> None:
        left = self.hbar_allowances.get((owner, spender), 0) - amount
        if left < 0:
            raise GeneratorError(f"0.0.{spender} may not spend {amount} tinybar of 0.0.{owner}")
        self._set(self.hbar_allowances, (owner, spender), left)

    def spend_token_allowance(self, token: int, owner: int, spender: int, amount: int) -> None:
        left = self.token_allowances.get((token, owner, spender), 0) - amount
        if left < 0:
            raise GeneratorError(f"0.0.{spender} may not spend {amount} units of 0.0.{token} of 0.0.{owner}")
        self._set(self.token_allowances, (token, owner, spender), left)

    def may_move_nft(self, token: int, serial: int, spender: int) -> bool:
        owner = self.nft_owners[token].get(serial)
        if owner is None:
            return False
        return self.nft_spenders.get((token, serial)) == spender or (token, owner, spender) in self.nft_approved_for_all

    @staticmethod
    def _set(table: dict, key: tuple, amount: int) -> None:  # type: ignore[type-arg]
        if amount:
            table[key] = amount
        else:
            table.pop(key, None)

    def set_hbar_allowance(self, owner: int, spender: int, amount: int) -> None:
        self._set(self.hbar_allowances, (owner, spender), amount)

    def set_token_allowance(self, token: int, owner: int, spender: int, amount: int) -> None:
        self._set(self.token_allowances, (token, owner, spender), amount)

    # ---- airdrops ----------------------------------------------------------------------------

    def add_pending(self, key: AirdropKey, amount: int) -> int:
        """The pending amount after this airdrop (a fungible one adds to an earlier one)."""
        total = self.pending.get(key, 0) + amount
        self.pending[key] = total
        if key[3]:
            self.locked.setdefault(key[2], set()).add(key[3])
        return total

    def take_pending(self, key: AirdropKey) -> int:
        """The airdrop claimed or cancelled: its amount."""
        if key[3]:
            self.locked[key[2]].discard(key[3])
        return self.pending.pop(key)

    def all_balances(self) -> dict[int, dict[int, int]]:
        """Token -> account -> balance of every association."""
        return {t: {a: self.balance(t, a) for a in held} for t, held in self.associations.items()}

    def take_changed(self) -> dict[int, dict[int, int]]:
        """Token -> account -> balance of the pairs changed since the last call."""
        snapshot: dict[int, dict[int, int]] = {}
        for token, account in sorted(self._changed):
            snapshot.setdefault(token, {})[account] = self.balance(token, account)
        self._changed.clear()
        return snapshot
