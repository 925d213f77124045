"""Account updates and schedules that wait for a signature.

CryptoUpdate changes an account's memo, sometimes its key (signed by the old key and the new one,
which signs everything the account pays from then on) and sometimes its automatic token
association slots. A pending schedule is a ScheduleCreate of a transfer from an account that has
not signed it; a ScheduleSign by that account later completes its signatures, and the transfer
executes 1 ns after the sign, its record naming the schedule (``scheduleRef``) with the creating
transaction's id marked scheduled. Each account's keys and memos, and each schedule, are kept for
the ground truth.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hedera_history import hapi
from hedera_history.gen.facts import GeneratedItem
from hedera_history.gen.items import Draft, RecordDetails, Signer, fill_amounts, set_transaction_id
from hedera_history.gen.player import Player
from hedera_history.gen.token_ledger import Schedule

_MEMOS = ("savings", "main wallet", "treasury ops", "cold storage", "", "market maker", "payroll")
_SCHEDULE_MEMOS = ("", "multisig payout", "vesting", "escrow release")
MAX_TRANSACTION_FEE = 200_000_000


@dataclass(frozen=True, slots=True)
class AccountState:
    """An account's key (Ed25519 public bytes), memo and automatic association slots from a time on."""

    from_ns: int | None
    """None: at genesis (or when the account was created)."""
    key: bytes
    memo: str
    max_automatic_token_associations: int


class AccountPlayer(Player):
    def __init__(self, *tools: Any) -> None:
        super().__init__(*tools)
        self.tokens = self.ledger.tokens
        self.states: dict[int, list[AccountState]] = {}
        """Each account's states, oldest first, of the accounts a CryptoUpdate changed."""

    def state_of(self, account: int) -> AccountState:
        states = self.states.get(account)
        if states:
            return states[-1]
        return AccountState(None, self.writer.signer(account).public, "", 0)

    def update(self, slots: Sequence[int]) -> list[GeneratedItem]:
        fee = self._fee()
        account = self._pick_payer(fee)
        before = self.state_of(account)
        draft = self._new_draft(slots[0], account)
        update = draft.body.cryptoUpdateAccount
        update.accountIDToUpdate.accountNum = account
        memo = self.rng.choice(_MEMOS)
        update.memo.value = memo
        key = before.key
        cosigners: tuple[Signer, ...] = ()
        if self.rng.random() < 0.35:
            new_key = self.writer.next_key(account)
            update.key.ed25519 = key = new_key.public
            cosigners = (new_key,)
        slots_total = before.max_automatic_token_associations
        if slots_total == 0 or self.rng.random() < 0.2:
            slots_total = self.rng.randint(slots_total + 1, slots_total + 10)
            update.max_automatic_token_associations.value = slots_total
            used = self.tokens.auto_used.get(account, 0)
            self.tokens.auto_slots[account] = slots_total - used
        signed = Draft(draft.body, draft.payer, draft.valid_start, draft.consensus_ns, draft.node, cosigners=cosigners)

        def receipt(record: hapi.TransactionRecord) -> None:
            record.receipt.accountID.accountNum = account

        item = self.writer.finish(signed, fee, {}, RecordDetails(fill=receipt))
        if cosigners:
            self.writer.rekey(account, cosigners[0])
        states = self.states.setdefault(account, [])
        if not states:
            states.append(before)
        states.append(AccountState(slots[0], key, memo, slots_total))
        return [item]

    def schedule_pending(self, slots: Sequence[int]) -> list[GeneratedItem]:
        """A ScheduleCreate of a transfer from another account, which has not signed it yet."""
        fee = self._fee()
        creator = self._pick_payer(fee)
        sender = self.other_user(creator)
        receiver = self.other_user(sender)
        amount = self.rng.randint(1, 10) * 10**7
        schedule = self.ledger.new_entity()
        draft = self._new_draft(slots[0], creator)
        create = draft.body.scheduleCreate
        create.memo = self.rng.choice(_SCHEDULE_MEMOS)
        create.payerAccountID.accountNum = creator
        inner = create.scheduledTransactionBody
        inner.transactionFee = MAX_TRANSACTION_FEE
        fill_amounts(inner.cryptoTransfer.transfers.accountAmounts, {sender: -amount, receiver: amount})
        self.tokens.schedules[schedule] = Schedule(
            schedule, creator, creator, sender, receiver, amount, slots[0], draft.valid_start, [creator]
        )

        def receipt(record: hapi.TransactionRecord) -> None:
            record.receipt.scheduleID.scheduleNum = schedule
            set_transaction_id(record.receipt.scheduledTransactionID, creator, draft.valid_start, scheduled=True)

        return [self.writer.finish(draft, fee, {}, RecordDetails(fill=receipt))]

    def schedule_sign(self, slots: Sequence[int]) -> list[GeneratedItem]:
        """The missing signer's ScheduleSign, then the transfer it lets execute (two items); with
        no schedule waiting, a pending schedule and an hbar transfer's worth of another."""
        sign_fee, execute_fee = self._fee(), self._fee()
        waiting = [
            s
            for s in sorted(self.tokens.schedules.values(), key=lambda s: s.schedule)
            if s.executed_ns is None
            and s.sender not in s.signatures
            and self.ledger.balance(s.sender) >= s.amount + sign_fee
            and self.ledger.balance(s.payer) >= execute_fee
        ]
        if not waiting:
            return self.schedule_pending(slots[:1]) + self.update(slots[1:])
        schedule = self.rng.choice(waiting)
        draft = self._new_draft(slots[0], schedule.sender)
        draft.body.scheduleSign.scheduleID.scheduleNum = schedule.schedule
        creator, valid_start = schedule.creator, schedule.create_valid_start

        def receipt(record: hapi.TransactionRecord) -> None:
            set_transaction_id(record.receipt.scheduledTransactionID, creator, valid_start, scheduled=True)

        signed = self.writer.finish(draft, sign_fee, {}, RecordDetails(fill=receipt))
        schedule.signatures.append(schedule.sender)
        executed = Draft(hapi.TransactionBody(), creator, valid_start, slots[0] + 1, node=None, scheduled=True)
        set_transaction_id(executed.body.transactionID, creator, valid_start, scheduled=True)
        executed.body.transactionFee = MAX_TRANSACTION_FEE
        moves = {schedule.sender: -schedule.amount, schedule.receiver: schedule.amount}
        fill_amounts(executed.body.cryptoTransfer.transfers.accountAmounts, moves)
        number = schedule.schedule

        def reference(record: hapi.TransactionRecord) -> None:
            record.scheduleRef.scheduleNum = number

        execution = self.writer.finish(executed, execute_fee, moves, RecordDetails(fill=reference), fee_node=draft.node)
        schedule.executed_ns = slots[0] + 1
        return [signed, execution]
