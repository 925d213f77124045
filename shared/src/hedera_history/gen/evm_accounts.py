"""Accounts named by an EVM address (HIP-583): a CryptoCreate with an ECDSA secp256k1 key and its
EVM address as ``alias``, a lazy create (a CryptoTransfer to an EVM address no account has yet,
which creates a hollow account in a preceding child record), and later hbar transfers naming those
accounts by number.

The records are shaped as a consensus node writes them: the create's record carries the alias as
``evm_address``; the lazy create's child is the synthetic CryptoCreate the network dispatches (the
parent's transaction id with nonce 1, one nanosecond before it, no parent consensus time, no fee,
key an empty key list, ``alias`` and the record's ``evm_address`` the address, memo
``lazy-created account``), and the parent's transfer list names the new account by number. These
accounts hold hbar but do not pay for transactions (a hollow account has no key to sign with).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hedera_history import hapi
from hedera_history.gen.facts import GeneratedItem
from hedera_history.gen.items import Draft, RecordDetails, fill_amounts, set_transaction_id
from hedera_history.gen.keys import compressed_public, ecdsa_key, evm_address_of
from hedera_history.gen.player import Player

LAZY_CREATION_MEMO = "lazy-created account"
_AUTO_RENEW_SECONDS = 7_776_000


@dataclass(frozen=True, slots=True)
class EvmAccount:
    """An account an EVM address names, for the ground truth."""

    account: int
    evm_address: bytes
    created_ns: int
    ecdsa_key: bytes | None
    """The compressed ECDSA secp256k1 public key; None for a hollow account (lazy create)."""


class EvmAccountPlayer(Player):
    def __init__(self, *tools: Any, seed: int) -> None:
        super().__init__(*tools)
        self.seed = seed
        self.accounts: dict[int, EvmAccount] = {}

    def create(self, slots: Sequence[int]) -> list[GeneratedItem]:
        """A CryptoCreate with an ECDSA key and its EVM address as alias, signed by that key too."""
        fee = self._fee()
        initial = self.rng.randint(1, 50) * 10**8
        payer = self._pick_payer(fee + initial)
        key = ecdsa_key(self.seed, len(self.accounts))
        address = evm_address_of(key)
        new_account = self.ledger.new_entity()
        draft = self._new_draft(slots[0], payer)
        create = draft.body.cryptoCreateAccount
        create.key.ECDSA_secp256k1 = compressed_public(key)
        create.alias = address
        create.initialBalance = initial
        create.autoRenewPeriod.seconds = _AUTO_RENEW_SECONDS
        signed = Draft(draft.body, payer, draft.valid_start, draft.consensus_ns, draft.node, ecdsa_cosigners=(key,))
        self.ledger.open_account(new_account, pooled=False)

        def receipt(record: hapi.TransactionRecord) -> None:
            record.receipt.accountID.accountNum = new_account
            record.evm_address = address

        moves = {payer: -initial, new_account: initial}
        item = self.writer.finish(signed, fee, moves, RecordDetails(created=(new_account,), fill=receipt))
        self.accounts[new_account] = EvmAccount(new_account, address, slots[0], compressed_public(key))
        return [item]

    def lazy_create(self, slots: Sequence[int]) -> list[GeneratedItem]:
        """The hollow account's child CryptoCreate at ``slots[0]``, then the CryptoTransfer to its EVM
        address at ``slots[1]`` (two items)."""
        fee = self._fee()
        amount = self.rng.randint(1, 20) * 10**8
        payer = self._pick_payer(fee + amount)
        address = evm_address_of(ecdsa_key(self.seed, len(self.accounts)))
        hollow = self.ledger.new_entity()
        transfer = self._new_draft(slots[1], payer)
        amounts = transfer.body.cryptoTransfer.transfers.accountAmounts
        debit, credit = amounts.add(), amounts.add()
        debit.accountID.accountNum, debit.amount = payer, -amount
        credit.accountID.alias, credit.amount = address, amount

        body = hapi.TransactionBody(memo=LAZY_CREATION_MEMO)
        set_transaction_id(body.transactionID, payer, transfer.valid_start, nonce=1)
        create = body.cryptoCreateAccount
        create.key.keyList.SetInParent()
        create.alias = address
        create.autoRenewPeriod.seconds = _AUTO_RENEW_SECONDS
        child = Draft(body, payer, transfer.valid_start, slots[0], node=None, nonce=1)
        self.ledger.open_account(hollow, pooled=False)

        def receipt(record: hapi.TransactionRecord) -> None:
            record.receipt.accountID.accountNum = hollow
            record.evm_address = address
            record.transferList.SetInParent()  # the new account's balance moves in the parent

        created = self.writer.finish(child, 0, {}, RecordDetails(created=(hollow,), fill=receipt))
        moved = self.writer.finish(transfer, fee, {payer: -amount, hollow: amount})
        self.accounts[hollow] = EvmAccount(hollow, address, slots[0], None)
        return [created, moved]

    def transfer(self, slots: Sequence[int]) -> list[GeneratedItem]:
        """An hbar transfer to an account an EVM address names, by its number; with none yet, its create."""
        if not self.accounts:
            return self.create(slots)
        fee = self._fee()
        amount = self.rng.randint(1, 10) * 10**7
        payer = self._pick_payer(fee + amount)
        receiver = self.rng.choice(sorted(self.accounts))
        draft = self._new_draft(slots[0], payer)
        moves = {payer: -amount, receiver: amount}
        fill_amounts(draft.body.cryptoTransfer.transfers.accountAmounts, moves)
        return [self.writer.finish(draft, fee, moves)]
