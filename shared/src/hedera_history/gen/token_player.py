"""The token service kinds: TokenCreate, TokenAssociate, TokenMint, TokenBurn, transfers of the
tokens created (with the automatic associations a receiver's free slots allow), allowances
(CryptoApproveAllowance) and the transfers spending them, and airdrops (TokenAirdrop,
TokenClaimAirdrop, TokenCancelAirdrop), each written as a consensus node records it.

A kind whose precondition does not hold yet plays the kind that makes it hold instead (a mint
before any token is created creates one; a claim with nothing pending airdrops), so every kind
follows from the first periods on whatever order the mix draws them in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hedera_history import hapi
from hedera_history.gen.facts import GeneratedItem
from hedera_history.gen.items import RecordDetails, fill_amounts, set_pending_airdrop_id
from hedera_history.gen.ledger import FIRST_USER_ACCOUNT
from hedera_history.gen.player import Player
from hedera_history.gen.token_ledger import TokenInfo

MAX_FEE = 40_000_000
_AUTO_RENEW_SECONDS = 7_776_000
_NAMES = ("Carbon", "Loyalty", "Ticket", "Stable", "Art", "Game", "Bond", "Voucher")
_TOKEN_MEMOS = ("", "", "issued by treasury", "season 1", "test drop")
_FUNGIBLE, _NFT = 0, 1
"""``TokenType`` values."""


class TokenPlayer(Player):
    """The token transactions of one stream; the state lives in ``ledger.tokens``."""

    def __init__(self, *tools: Any) -> None:
        super().__init__(*tools)
        self.tokens = self.ledger.tokens

    # ---- TokenCreate, TokenAssociate, TokenMint, TokenBurn ---------------------------------------

    def create(self, slots: Sequence[int]) -> list[GeneratedItem]:
        fungible = self._created(fungible=True)
        if not fungible:
            nft = False
        elif not self._created(fungible=False):
            nft = True
        else:
            nft = self.rng.random() < 0.4
        fee = self._fee()
        treasury = self._pick_payer(fee)
        token = self.ledger.new_entity()
        decimals = 0 if nft else self.rng.randint(0, 8)
        initial = 0 if nft else self.rng.randint(10**4, 10**7) * 10**decimals
        name = f"{self.rng.choice(_NAMES)} {token}"
        symbol = f"{name[:3].upper()}{token % 1000}"
        draft = self._new_draft(slots[0], treasury)
        create = draft.body.tokenCreation
        create.name, create.symbol, create.decimals, create.initialSupply = name, symbol, decimals, initial
        create.treasury.accountNum = treasury
        public = self.writer.signer(treasury).public
        create.adminKey.ed25519 = public
        create.supplyKey.ed25519 = public
        create.autoRenewAccount.accountNum = treasury
        create.autoRenewPeriod.seconds = _AUTO_RENEW_SECONDS
        create.memo = self.rng.choice(_TOKEN_MEMOS)
        create.tokenType = _NFT if nft else _FUNGIBLE
        info = TokenInfo(token, not nft, treasury, decimals, initial, name, symbol, create.memo, created_ns=slots[0])
        self.tokens.add_token(info, {treasury: initial} if not nft else {})

        def receipt(record: hapi.TransactionRecord) -> None:
            record.receipt.tokenID.tokenNum = token
            record.receipt.newTotalSupply = initial

        moves = ((token, treasury, initial),) if initial else ()
        details = RecordDetails(
            token_moves=moves, automatic_associations=((token, treasury),), fill=receipt, token_created=token
        )
        return [self.writer.finish(draft, fee, {}, details)]

    def associate(self, slots: Sequence[int]) -> list[GeneratedItem]:
        fee = self._fee()
        account = self._pick_payer(fee)
        open_tokens = [t for t in self._created() if not self.tokens.is_associated(t, account)]
        if not open_tokens:
            return self.create(slots)
        chosen = sorted(self.rng.sample(open_tokens, min(len(open_tokens), self.rng.randint(1, 2))))
        draft = self._new_draft(slots[0], account)
        draft.body.tokenAssociate.account.accountNum = account
        for token in chosen:
            draft.body.tokenAssociate.tokens.add().tokenNum = token
            self.tokens.associate(token, account)
        return [self.writer.finish(draft, fee, {})]

    def mint(self, slots: Sequence[int]) -> list[GeneratedItem]:
        created = self._created()
        if not created:
            return self.create(slots)
        token = self.rng.choice(created)
        info = self.tokens.tokens[token]
        fee = self._fee()
        if self.ledger.balance(info.treasury) < fee:
            return self.create(slots)
        draft = self._new_draft(slots[0], info.treasury)
        mint = draft.body.tokenMint
        mint.token.tokenNum = token
        token_moves: tuple[tuple[int, int, int], ...] = ()
        nft_moves: tuple[tuple[int, int, int, int], ...] = ()
        serials: list[int] = []
        if info.fungible:
            amount = self.rng.randint(1, 10**6) * 10**info.decimals
            mint.amount = amount
            self.tokens.mint(token, amount)
            token_moves = ((token, info.treasury, amount),)
        else:
            metadata = [f"ipfs://{self.rng.randbytes(8).hex()}".encode() for _ in range(self.rng.randint(1, 3))]
            mint.metadata.extend(metadata)
            serials = self.tokens.mint(token, 0, len(metadata))
            nft_moves = tuple((token, 0, info.treasury, serial) for serial in serials)
        supply = info.supply

        def receipt(record: hapi.TransactionRecord) -> None:
            record.receipt.newTotalSupply = supply
            record.receipt.serialNumbers.extend(serials)

        details = RecordDetails(token_moves=token_moves, nft_moves=nft_moves, fill=receipt)
        return [self.writer.finish(draft, fee, {}, details)]

    def burn(self, slots: Sequence[int]) -> list[GeneratedItem]:
        candidates = [t for t in self._created() if self._burnable(t)]
        if not candidates:
            return self.mint(slots)
        token = self.rng.choice(candidates)
        info = self.tokens.tokens[token]
        fee = self._fee()
        if self.ledger.balance(info.treasury) < fee:
            return self.mint(slots)
        draft = self._new_draft(slots[0], info.treasury)
        burn = draft.body.tokenBurn
        burn.token.tokenNum = token
        token_moves: tuple[tuple[int, int, int], ...] = ()
        nft_moves: tuple[tuple[int, int, int, int], ...] = ()
        if info.fungible:
            amount = self.rng.randint(1, self.tokens.balance(token, info.treasury))
            burn.amount = amount
            self.tokens.burn(token, amount)
            token_moves = ((token, info.treasury, -amount),)
        else:
            serial = self.rng.choice(self._treasury_serials(token))
            burn.serialNumbers.append(serial)
            self.tokens.burn(token, serials=(serial,))
            nft_moves = ((token, info.treasury, 0, serial),)
        supply = info.supply

        def receipt(record: hapi.TransactionRecord) -> None:
            record.receipt.newTotalSupply = supply

        details = RecordDetails(token_moves=token_moves, nft_moves=nft_moves, fill=receipt)
        return [self.writer.finish(draft, fee, {}, details)]

    # ---- transfers of the created tokens -----------------------------------------------------

    def transfer(self, slots: Sequence[int]) -> list[GeneratedItem]:
        """A fungible amount or one NFT from a holder to an associated account, or to one a free
        automatic association slot associates (the record's ``automatic_token_associations``)."""
        fee = self._fee()
        offer = self._draw_offer(fee)
        if offer is None:
            return self.mint(slots)
        token, sender, serial = offer
        receiver, automatic = self._receiver(token, sender)
        if receiver is None:
            return self.associate(slots)
        draft = self._new_draft(slots[0], sender)
        token_list = draft.body.cryptoTransfer.tokenTransfers.add()
        token_list.token.tokenNum = token
        associations: tuple[tuple[int, int], ...] = ()
        if automatic:
            self.tokens.associate(token, receiver, automatic=True)
            associations = ((token, receiver),)
        if serial:
            _add_nft_transfer(token_list, sender, receiver, serial)
            self.tokens.move_nft(token, serial, sender, receiver)
            details = RecordDetails(nft_moves=((token, sender, receiver, serial),), automatic_associations=associations)
        else:
            info = self.tokens.tokens[token]
            token_list.expected_decimals.value = info.decimals
            amount = self.rng.randint(1, self.tokens.balance(token, sender))
            fill_amounts(token_list.transfers, {sender: -amount, receiver: amount})
            self.tokens.move_fungible(token, {sender: -amount, receiver: amount})
            details = RecordDetails(
                token_moves=((token, sender, -amount), (token, receiver, amount)), automatic_associations=associations
            )
        return [self.writer.finish(draft, fee, {}, details)]

    # ---- allowances --------------------------------------------------------------------------

    def approve(self, slots: Sequence[int]) -> list[GeneratedItem]:
        """CryptoApproveAllowance of hbar, of a fungible token's units or of NFTs (some serials, or
        every serial the owner has)."""
        fee = self._fee()
        owner = self._pick_payer(fee)
        spender = self.other_user(owner)
        draft = self._new_draft(slots[0], owner)
        approve = draft.body.cryptoApproveAllowance
        kinds = ["hbar"]
        fungible = [t for t in self.tokens.fungible if self.tokens.balance(t, owner) > 0]
        nfts = [t for t in self.tokens.nft_owners if self._serials_of(t, owner)]
        kinds += ["token"] * bool(fungible) + ["nft"] * bool(nfts)
        kind = self.rng.choice(kinds)
        if kind == "hbar":
            amount = self.rng.randint(1, 50) * 10**8
            allowance = approve.cryptoAllowances.add(amount=amount)
            self.tokens.set_hbar_allowance(owner, spender, amount)
        elif kind == "token":
            token = self.rng.choice(fungible)
            amount = self.rng.randint(1, self.tokens.balance(token, owner))
            allowance = approve.tokenAllowances.add(amount=amount)
            allowance.tokenId.tokenNum = token
            self.tokens.set_token_allowance(token, owner, spender, amount)
        else:
            token = self.rng.choice(nfts)
            allowance = approve.nftAllowances.add()
            allowance.tokenId.tokenNum = token
            if self.rng.random() < 0.25:
                allowance.approved_for_all.value = True
                self.tokens.nft_approved_for_all.add((token, owner, spender))
            else:
                owned = self._serials_of(token, owner)
                serials = sorted(self.rng.sample(owned, min(len(owned), self.rng.randint(1, 2))))
                allowance.serial_numbers.extend(serials)
                for serial in serials:
                    self.tokens.nft_spenders[(token, serial)] = spender
        allowance.owner.accountNum = owner
        allowance.spender.accountNum = spender
        return [self.writer.finish(draft, fee, {}, RecordDetails(body_accounts=(spender,)))]

    def approved_transfer(self, slots: Sequence[int]) -> list[GeneratedItem]:
        """A transfer a spender pays and submits, moving the owner's hbar, units or NFT under an
        allowance (``is_approval`` on the owner's side)."""
        fee = self._fee()
        spends = self._spends(fee)
        if not spends:
            return self.approve(slots)
        kind, token, owner, spender, serial = self.rng.choice(spends)
        draft = self._new_draft(slots[0], spender)
        transfer = draft.body.cryptoTransfer
        if kind == "hbar":
            allowed = self.tokens.hbar_allowances[(owner, spender)]
            amount = self.rng.randint(1, min(allowed, self.ledger.balance(owner) // 2))
            moves = {owner: -amount, spender: amount}
            fill_amounts(transfer.transfers.accountAmounts, moves)
            _approve(transfer.transfers.accountAmounts, owner)
            self.tokens.spend_hbar_allowance(owner, spender, amount)
            return [self.writer.finish(draft, fee, moves)]
        receiver = spender if self.tokens.is_associated(token, spender) else self._associated_other(token, owner)
        if receiver is None:
            return self.approve(slots)
        token_list = transfer.tokenTransfers.add()
        token_list.token.tokenNum = token
        if kind == "token":
            allowed = self.tokens.token_allowances[(token, owner, spender)]
            amount = self.rng.randint(1, min(allowed, self.tokens.balance(token, owner)))
            token_list.expected_decimals.value = self.tokens.tokens[token].decimals
            fill_amounts(token_list.transfers, {owner: -amount, receiver: amount})
            _approve(token_list.transfers, owner)
            self.tokens.spend_token_allowance(token, owner, spender, amount)
            self._move_fungible(token, {owner: -amount, receiver: amount})
            details = RecordDetails(token_moves=((token, owner, -amount), (token, receiver, amount)))
        else:
            _add_nft_transfer(token_list, owner, receiver, serial, approval=True)
            self._move_nft(token, serial, owner, receiver)
            details = RecordDetails(nft_moves=((token, owner, receiver, serial),))
        return [self.writer.finish(draft, fee, {}, details)]

    # ---- airdrops ----------------------------------------------------------------------------

    def airdrop(self, slots: Sequence[int]) -> list[GeneratedItem]:
        """A TokenAirdrop: units to an associated account arrive at once, to an account that is
        not associated (and has no free slot) they wait as a pending airdrop; an NFT waits too."""
        fee = self._fee()
        offer = self._draw_offer(fee)
        if offer is None:
            return self.mint(slots)
        token, sender, serial = offer
        pending_receiver = self._waiting_receiver(token, sender)
        if pending_receiver is None:
            return self.transfer(slots)
        draft = self._new_draft(slots[0], sender)
        token_list = draft.body.tokenAirdrop.token_transfers.add()
        token_list.token.tokenNum = token
        if serial:
            _add_nft_transfer(token_list, sender, pending_receiver, serial)
            self.tokens.add_pending((sender, pending_receiver, token, serial), 0)
            details = RecordDetails(pending_airdrops=((sender, pending_receiver, token, serial, 0),))
            return [self.writer.finish(draft, fee, {}, details)]
        balance = self.tokens.balance(token, sender)
        token_list.expected_decimals.value = self.tokens.tokens[token].decimals
        pending_amount = self.rng.randint(1, max(1, balance // 4))
        direct = self._associated_other(token, sender)
        direct_amount = self.rng.randint(1, max(1, balance // 4)) if direct is not None and balance > 1 else 0
        body_moves = {sender: -(pending_amount + direct_amount), pending_receiver: pending_amount}
        token_moves: tuple[tuple[int, int, int], ...] = ()
        if direct is not None and direct_amount:
            body_moves[direct] = direct_amount
            self.tokens.move_fungible(token, {sender: -direct_amount, direct: direct_amount})
            token_moves = ((token, sender, -direct_amount), (token, direct, direct_amount))
        # The sender's account first, then the receivers, as wallets send them.
        for account, amount in sorted(body_moves.items(), key=lambda move: (move[1] > 0, move[0])):
            token_list.transfers.add(amount=amount).accountID.accountNum = account
        total = self.tokens.add_pending((sender, pending_receiver, token, 0), pending_amount)
        details = RecordDetails(
            token_moves=token_moves, pending_airdrops=((sender, pending_receiver, token, 0, total),)
        )
        return [self.writer.finish(draft, fee, {}, details)]

    def claim(self, slots: Sequence[int]) -> list[GeneratedItem]:
        """The receiver takes a pending airdrop: it is associated and the tokens move. The
        association is the claim's own, not an automatic one: the record does not list it, as the
        consensus node's claim handler records none (only its early versions did)."""
        fee = self._fee()
        claimable = [
            key
            for key, amount in sorted(self.tokens.pending.items())
            if self.ledger.balance(key[1]) >= fee
            and (key[3] or self.tokens.balance(key[2], key[0]) >= amount)
            and (not key[3] or self.tokens.nft_owners[key[2]].get(key[3]) == key[0])
        ]
        if not claimable:
            return self.airdrop(slots)
        sender, receiver, token, serial = key = self.rng.choice(claimable)
        amount = self.tokens.take_pending(key)
        draft = self._new_draft(slots[0], receiver)
        set_pending_airdrop_id(draft.body.tokenClaimAirdrop.pending_airdrops.add(), *key)
        if not self.tokens.is_associated(token, receiver):
            self.tokens.associate(token, receiver)
        if serial:
            self.tokens.move_nft(token, serial, sender, receiver)
            details = RecordDetails(nft_moves=((token, sender, receiver, serial),))
        else:
            self.tokens.move_fungible(token, {sender: -amount, receiver: amount})
            details = RecordDetails(token_moves=((token, sender, -amount), (token, receiver, amount)))
        return [self.writer.finish(draft, fee, {}, details)]

    def cancel(self, slots: Sequence[int]) -> list[GeneratedItem]:
        """The sender takes a pending airdrop back."""
        fee = self._fee()
        cancellable = [key for key in sorted(self.tokens.pending) if self.ledger.balance(key[0]) >= fee]
        if not cancellable:
            return self.airdrop(slots)
        key = self.rng.choice(cancellable)
        self.tokens.take_pending(key)
        draft = self._new_draft(slots[0], key[0])
        set_pending_airdrop_id(draft.body.tokenCancelAirdrop.pending_airdrops.add(), *key)
        return [self.writer.finish(draft, fee, {}, RecordDetails(body_accounts=(key[1],)))]

    # ---- shared steps ------------------------------------------------------------------------

    def _created(self, *, fungible: bool | None = None) -> list[int]:
        if fungible is None:
            return self.tokens.created(fungible=True) + self.tokens.created(fungible=False)
        return self.tokens.created(fungible=fungible)

    def _serials_of(self, token: int, owner: int) -> list[int]:
        return self.tokens.serials_of(token, owner)

    def _treasury_serials(self, token: int) -> list[int]:
        return self._serials_of(token, self.tokens.tokens[token].treasury)

    def _burnable(self, token: int) -> bool:
        info = self.tokens.tokens[token]
        if info.fungible:
            return self.tokens.balance(token, info.treasury) > 0
        return bool(self._treasury_serials(token))

    def _draw_offer(self, fee: int) -> tuple[int, int, int] | None:
        """(token, holder, serial or 0) of a created token, its holder able to pay ``fee``: a token
        drawn first (a few tries), then one of its holders, an NFT holder's serial at random."""
        created = self._created()
        for _ in range(8 if created else 0):
            token = self.rng.choice(created)
            if self.tokens.tokens[token].fungible:
                held = self.tokens.fungible[token]
                holders = [a for a, units in sorted(held.items()) if units > 0 and self.ledger.balance(a) >= fee]
                if holders:
                    return token, self.rng.choice(holders), 0
                continue
            owners = [
                owner
                for owner, serials in sorted(self.tokens.nft_held[token].items())
                if serials and self.ledger.balance(owner) >= fee
            ]
            self.rng.shuffle(owners)
            for owner in owners:
                if serials := self._serials_of(token, owner):
                    return token, owner, self.rng.choice(serials)
        return None

    def _waiting_receiver(self, token: int, sender: int) -> int | None:
        """A user account (a few drawn) an airdrop of ``token`` would leave pending: neither
        associated nor with a free automatic association slot."""
        for _ in range(8):
            account = self.rng.choice(self.ledger.user_accounts)
            tokens = self.tokens
            if (
                account != sender
                and not tokens.is_associated(token, account)
                and tokens.auto_slots.get(account, 0) <= 0
            ):
                return account
        return None

    def _receiver(self, token: int, sender: int) -> tuple[int | None, bool]:
        """An account to send ``token`` to, and whether the transfer associates it automatically."""
        free = [
            a
            for a, slots in sorted(self.tokens.auto_slots.items())
            if slots > 0 and a != sender and not self.tokens.is_associated(token, a)
        ]
        if free and self.rng.random() < 0.5:
            return self.rng.choice(free), True
        return self._associated_other(token, sender), False

    def _associated_other(self, token: int, excluded: int) -> int | None:
        """An account associated with ``token`` other than ``excluded`` (not the genesis treasury)."""
        associated = sorted(a for a in self.tokens.associations[token] if a != excluded and a >= FIRST_USER_ACCOUNT)
        return self.rng.choice(associated) if associated else None

    def _spends(self, fee: int) -> list[tuple[str, int, int, int, int]]:
        """(kind, token, owner, spender, serial) an allowance lets a spender who can pay ``fee`` do."""
        tokens, ledger = self.tokens, self.ledger
        spends = [
            ("hbar", 0, owner, spender, 0)
            for (owner, spender) in sorted(tokens.hbar_allowances)
            if ledger.balance(owner) >= 2
        ]
        spends += [
            ("token", token, owner, spender, 0)
            for (token, owner, spender) in sorted(tokens.token_allowances)
            if tokens.balance(token, owner) > 0
        ]
        for (token, serial), spender in sorted(tokens.nft_spenders.items()):
            owner = tokens.nft_owners[token][serial]
            if spender != owner and serial not in tokens.locked.get(token, ()):
                spends.append(("nft", token, owner, spender, serial))
        for token, owner, spender in sorted(tokens.nft_approved_for_all):
            serials = self._serials_of(token, owner)
            if serials and spender != owner:
                spends.append(("nft", token, owner, spender, serials[0]))
        return [spend for spend in spends if ledger.balance(spend[3]) >= fee]

    def _move_fungible(self, token: int, changes: dict[int, int]) -> None:
        if token == self.ledger.fungible_token:
            self.ledger.transfer_fungible(changes.items())
        else:
            self.tokens.move_fungible(token, changes)

    def _move_nft(self, token: int, serial: int, sender: int, receiver: int) -> None:
        if token == self.ledger.nft_token:
            self.ledger.move_nft(serial, sender, receiver)
        else:
            self.tokens.move_nft(token, serial, sender, receiver)


def _approve(amounts: object, owner: int) -> None:
    """Mark the owner's side of a transfer list as spent under an allowance."""
    for amount in amounts:  # type: ignore[attr-defined]
        if amount.accountID.accountNum == owner:
            amount.is_approval = True


def _add_nft_transfer(token_list: Any, sender: int, receiver: int, serial: int, *, approval: bool = False) -> None:
    """An ``NftTransfer`` in a body's token transfer list (``is_approval``: under an allowance)."""
    nft = token_list.nftTransfers.add(serialNumber=serial, is_approval=approval)
    nft.senderAccountID.accountNum = sender
    nft.receiverAccountID.accountNum = receiver
