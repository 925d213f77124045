"""Each kind of transaction: what it does to the ledger, its body, its record's results and its
sidecar records. A failed or duplicate transaction charges the fee and moves nothing else.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from hedera_history import hapi
from hedera_history.errors import GeneratorError
from hedera_history.gen import account_player, contracts, evm_accounts, network_files, token_player, topics
from hedera_history.gen.config_and_output import NS_PER_SECOND
from hedera_history.gen.contracts import Action, Bytecode
from hedera_history.gen.facts import EmittedLog, GeneratedItem
from hedera_history.gen.items import (
    Draft,
    ItemWriter,
    RecordDetails,
    fill_amounts,
    set_timestamp,
    set_transaction_id,
)
from hedera_history.gen.ledger import STAKING_REWARD_ACCOUNT, TINYBAR_PER_HBAR, TREASURY, Ledger
from hedera_history.gen.period_mix import TxKind
from hedera_history.gen.player import pick_other
from hedera_history.gen.registered_nodes import RegisteredNodePlayer
from hedera_history.gen.token_ledger import Schedule

ADDRESS_BOOK_FILE = 102
_VALID_DURATION_SECONDS = 120
_AUTO_RENEW_SECONDS = 7_776_000
_MAX_FEE = 200_000_000
_FEES = {
    "transfer": (60_000, 400_000),
    "create": (4_000_000, 9_000_000),
    "contract": (8_000_000, 90_000_000),
    "schedule": (1_000_000, 3_000_000),
    "file": (3_000_000, 12_000_000),
    "duplicate": (40_000, 90_000),
    "topic": (80_000, topics.MAX_FEE),
    "token": (1_000_000, token_player.MAX_FEE),
}
_DAY_NS = 86_400 * NS_PER_SECOND
STAKE_UPDATE_MEMO = "End of staking period calculation record"
_MEMOS = ("", "", "", "invoice", "payroll", "refund", "gift", "swap", "rent", "coffee")


class TransactionFactory:
    """Turns a planned group into record stream items; owns the randomness of their values."""

    def __init__(
        self,
        seed: int,
        rng: random.Random,
        ledger: Ledger,
        *,
        node_accounts: Sequence[int],
        tokens: tuple[int, int],
        sidecars: bool,
        staking_rewards: bool = False,
        contract_logs: bool = False,
    ) -> None:
        self.seed = seed
        self.rng = rng
        self.ledger = ledger
        self.node_accounts = tuple(node_accounts)
        self.fungible_token, self.nft_token = tokens
        """The genesis fungible token and NFT collection."""
        self.sidecars = sidecars
        self._reward_rng = random.Random(f"staking-rewards/{seed}") if staking_rewards else None
        """Draws apart from :attr:`rng`, so a stream without rewards is the stream as before."""
        self._log_rng = random.Random(f"contract-logs/{seed}") if contract_logs else None
        """Draws apart from :attr:`rng`, so a stream without logs is the stream as before."""
        self.writer = ItemWriter(seed, ledger)
        self._used_ids = _IssuedIds()
        self.registered_nodes = RegisteredNodePlayer(
            rng, ledger, self.writer, self._new_draft, lambda: self._fee("file"), self._pick_payer
        )
        self.topics = topics.TopicPlayer(
            rng,
            ledger,
            self.writer,
            self._new_draft,
            lambda: self._fee("topic"),
            self._pick_payer,
        )
        self.network_files = network_files.NetworkFilePlayer(
            rng,
            self.writer,
            self._new_draft,
            lambda: self._fee("file"),
        )
        players = (
            rng,
            ledger,
            self.writer,
            self._new_draft,
            lambda: self._fee("token"),
            self._pick_payer,
        )
        self.tokens = token_player.TokenPlayer(*players)
        self.accounts = account_player.AccountPlayer(*players)
        self.evm_accounts = evm_accounts.EvmAccountPlayer(*players, seed=seed)
        self._builders: dict[TxKind, Callable[[Sequence[int]], list[GeneratedItem]]] = {
            TxKind.HBAR_TRANSFER: self._hbar_transfer,
            TxKind.TOKEN_TRANSFER: self._token_transfer,
            TxKind.NFT_TRANSFER: self._nft_transfer,
            TxKind.CRYPTO_CREATE: self._crypto_create,
            TxKind.CONTRACT_CREATE: self._contract_create,
            TxKind.CONTRACT_CALL: lambda slots: self._contract_call(slots, with_child=False),
            TxKind.CONTRACT_CALL_WITH_CHILD: lambda slots: self._contract_call(slots, with_child=True),
            TxKind.FAILED_TRANSFER: self._failed_transfer,
            TxKind.DUPLICATE: self._duplicate,
            TxKind.SCHEDULED_TRANSFER: self._scheduled_transfer,
            TxKind.TOPIC_CREATE: self.topics.create,
            TxKind.TOPIC_MESSAGE: self.topics.messages,
            TxKind.TOPIC_CHUNKED_MESSAGE: self.topics.messages,
            TxKind.EXCHANGE_RATE_UPDATE: self.network_files.exchange_rate_update,
            TxKind.FEE_SCHEDULE_UPDATE: self.network_files.fee_schedule_update,
            TxKind.TOKEN_CREATE: self.tokens.create,
            TxKind.TOKEN_ASSOCIATE: self.tokens.associate,
            TxKind.TOKEN_MINT: self.tokens.mint,
            TxKind.TOKEN_BURN: self.tokens.burn,
            TxKind.CREATED_TOKEN_TRANSFER: self.tokens.transfer,
            TxKind.APPROVE_ALLOWANCE: self.tokens.approve,
            TxKind.APPROVED_TRANSFER: self.tokens.approved_transfer,
            TxKind.TOKEN_AIRDROP: self.tokens.airdrop,
            TxKind.TOKEN_CLAIM_AIRDROP: self.tokens.claim,
            TxKind.TOKEN_CANCEL_AIRDROP: self.tokens.cancel,
            TxKind.CRYPTO_UPDATE: self.accounts.update,
            TxKind.SCHEDULE_PENDING: self.accounts.schedule_pending,
            TxKind.SCHEDULE_SIGN: self.accounts.schedule_sign,
            TxKind.EVM_ACCOUNT_CREATE: self.evm_accounts.create,
            TxKind.LAZY_CREATE: self.evm_accounts.lazy_create,
            TxKind.EVM_ACCOUNT_TRANSFER: self.evm_accounts.transfer,
        }

    def build(self, kind: TxKind, slots: Sequence[int]) -> list[GeneratedItem]:
        """The items of one group; ``slots`` are consensus times reserved for it, one per item."""
        return self._builders[kind](slots)

    def address_book_update(self, slots: Sequence[int], chunks: Sequence[bytes]) -> list[GeneratedItem]:
        """A FileUpdate of 0.0.102 with the first chunk of the new book, a FileAppend per further chunk."""
        if len(chunks) != len(slots):
            raise GeneratorError(f"{len(chunks)} address-book chunks for {len(slots)} items")
        items = []
        for index, (consensus_ns, chunk) in enumerate(zip(slots, chunks, strict=True)):
            draft = self._new_draft(consensus_ns, payer=TREASURY)
            operation = draft.body.fileUpdate if index == 0 else draft.body.fileAppend
            operation.fileID.fileNum = ADDRESS_BOOK_FILE
            operation.contents = chunk
            items.append(self.writer.finish(draft, self._fee("file"), {}))
        return items

    def node_stake_update(self, consensus_ns: int, stakes: Sequence[int]) -> GeneratedItem:
        """The network's end-of-day ``NodeStakeUpdate``: paid by 0.0.2, submitted by no node, no
        fee; ``stakes`` by node id. The staking period it closes is the UTC day before."""
        valid_start = self._used_ids.claim(TREASURY, consensus_ns - 1, consensus_ns)
        body = hapi.TransactionBody(memo=STAKE_UPDATE_MEMO)
        set_transaction_id(body.transactionID, TREASURY, valid_start)
        update = body.node_stake_update
        set_timestamp(update.end_of_staking_period, consensus_ns // _DAY_NS * _DAY_NS - 1)
        update.staking_period = 1440
        update.staking_periods_stored = 365
        for node_id, stake in enumerate(stakes):
            update.node_stake.add(node_id=node_id, stake=stake, stake_rewarded=stake, max_stake=sum(stakes))
        return self.writer.finish(Draft(body, TREASURY, valid_start, consensus_ns, None), 0, {})

    def ledger_id_publication(self, consensus_ns: int, publication: hapi.TransactionBody) -> GeneratedItem:
        """The TSS ledger id and roster a network publishes in its block 0 (``publication``'s
        ``ledger_id_publication``), as a system transaction: paid by 0.0.2, submitted and signed by
        no node, no fee."""
        valid_start = self._used_ids.claim(TREASURY, consensus_ns - 1, consensus_ns)
        body = hapi.TransactionBody()
        set_transaction_id(body.transactionID, TREASURY, valid_start)
        body.ledger_id_publication.CopyFrom(publication.ledger_id_publication)
        return self.writer.finish(Draft(body, TREASURY, valid_start, consensus_ns, None), 0, {})

    # ---- kinds -------------------------------------------------------------------------------

    def _hbar_transfer(self, slots: Sequence[int]) -> list[GeneratedItem]:
        return [self._plain_hbar_transfer(slots[0], rewarded=True)[0]]

    def _plain_hbar_transfer(
        self, consensus_ns: int, *, rewarded: bool = False, then_pays: int = 0
    ) -> tuple[GeneratedItem, Draft]:
        """``then_pays``: a fee the payer must still afford after this transfer (which moves at most a
        hundredth of what the fee leaves, so twice that fee more at the pick is always enough)."""
        fee = self._fee("transfer")
        payer = self._pick_payer(fee + 2 * then_pays)
        receiver = pick_other(self.rng, self.ledger.user_accounts, payer)
        amount = self.rng.randint(1, max(1, min(50 * 10**8, (self.ledger.balance(payer) - fee) // 100)))
        draft = self._new_draft(consensus_ns, payer=payer)
        moves = {payer: -amount, receiver: amount}
        fill_amounts(draft.body.cryptoTransfer.transfers.accountAmounts, moves)
        details = self._staking_reward(receiver, moves) if rewarded else RecordDetails()
        return self.writer.finish(draft, fee, moves, details), draft

    def _staking_reward(self, account: int, moves: dict[int, int]) -> RecordDetails:
        """Half the time (in a stream with rewards), a reward paid to ``account`` from 0.0.800, added
        to ``moves``."""
        if self._reward_rng is None or self._reward_rng.random() < 0.5:
            return RecordDetails()
        reward = self._reward_rng.randint(1, 10 * TINYBAR_PER_HBAR)
        moves[STAKING_REWARD_ACCOUNT] = moves.get(STAKING_REWARD_ACCOUNT, 0) - reward
        moves[account] = moves.get(account, 0) + reward
        return RecordDetails(staking_rewards=((account, reward),))

    def _token_transfer(self, slots: Sequence[int]) -> list[GeneratedItem]:
        fee = self._fee("transfer")
        holders = [a for a in self.ledger.token_holders if self.ledger.fungible.get(a, 0) > 0]
        sender = self.rng.choice(holders)
        self._require_fee(sender, fee)
        receiver = pick_other(self.rng, self.ledger.token_holders, sender)
        amount = self.rng.randint(1, min(self.ledger.fungible[sender], 500_000))
        draft = self._new_draft(slots[0], payer=sender)
        token_list = draft.body.cryptoTransfer.tokenTransfers.add()
        token_list.token.tokenNum = self.fungible_token
        token_list.expected_decimals.value = 2
        units = fill_amounts(token_list.transfers, {sender: -amount, receiver: amount})
        self.ledger.transfer_fungible(units)
        token_moves = tuple((self.fungible_token, account, delta) for account, delta in units)
        return [self.writer.finish(draft, fee, {}, RecordDetails(token_moves=token_moves))]

    def _nft_transfer(self, slots: Sequence[int]) -> list[GeneratedItem]:
        fee = self._fee("transfer")
        serial = self.rng.choice(sorted(self.ledger.nft_owners))
        sender = self.ledger.nft_owners[serial]
        self._require_fee(sender, fee)
        receiver = pick_other(self.rng, self.ledger.token_holders, sender)
        draft = self._new_draft(slots[0], payer=sender)
        token_list = draft.body.cryptoTransfer.tokenTransfers.add()
        token_list.token.tokenNum = self.nft_token
        nft = token_list.nftTransfers.add()
        nft.senderAccountID.accountNum = sender
        nft.receiverAccountID.accountNum = receiver
        nft.serialNumber = serial
        self.ledger.move_nft(serial, sender, receiver)
        nft_moves = ((self.nft_token, sender, receiver, serial),)
        return [self.writer.finish(draft, fee, {}, RecordDetails(nft_moves=nft_moves))]

    def _crypto_create(self, slots: Sequence[int]) -> list[GeneratedItem]:
        fee = self._fee("create")
        initial = self.rng.randint(1, 100) * 10**8
        payer = self._pick_payer(fee + initial)
        new_account = self.ledger.new_entity()
        draft = self._new_draft(slots[0], payer=payer)
        create = draft.body.cryptoCreateAccount
        create.key.ed25519 = self.writer.signer(new_account).public
        create.initialBalance = initial
        create.autoRenewPeriod.seconds = _AUTO_RENEW_SECONDS
        self.ledger.open_account(new_account)

        def receipt(record: hapi.TransactionRecord) -> None:
            record.receipt.accountID.accountNum = new_account

        moves = {payer: -initial, new_account: initial}
        return [self.writer.finish(draft, fee, moves, RecordDetails(created=(new_account,), fill=receipt))]

    def _contract_create(self, slots: Sequence[int]) -> list[GeneratedItem]:
        fee = self._fee("contract")
        payer = self._pick_payer(fee)
        contract = self.ledger.new_entity()
        code = contracts.random_bytecode(self.rng)
        gas = self.rng.randint(200_000, 2_000_000)
        gas_used = gas * self.rng.randint(30, 90) // 100
        draft = self._new_draft(slots[0], payer=payer)
        create = draft.body.contractCreateInstance
        create.initcode = code.initcode
        create.gas = gas
        create.adminKey.ed25519 = self.writer.signer(payer).public
        create.autoRenewPeriod.seconds = _AUTO_RENEW_SECONDS
        self.ledger.open_account(contract, contract=True)
        action = Action(
            create=True,
            caller=payer,
            caller_is_contract=False,
            recipient=contract,
            gas=gas,
            gas_used=gas_used,
            input=code.initcode,
            output=code.runtime,
            depth=0,
        )
        sidecars = self._contract_sidecars(draft.consensus_ns, contract, code, (action,))

        def result(record: hapi.TransactionRecord) -> None:
            record.receipt.contractID.contractNum = contract
            outcome = record.contractCreateResult
            outcome.contractID.contractNum = contract
            outcome.gasUsed = gas_used
            outcome.evm_address.value = contracts.long_zero_address(contract)

        return [
            self.writer.finish(
                draft, fee, {}, RecordDetails(created=(contract,), contract=contract, fill=result, sidecars=sidecars)
            )
        ]

    def _contract_call(self, slots: Sequence[int], *, with_child: bool) -> list[GeneratedItem]:
        fee = self._fee("contract")
        payer = self._pick_payer(fee)
        contract = self.rng.choice(self.ledger.contracts)
        gas = self.rng.randint(50_000, 1_000_000)
        gas_used = gas * self.rng.randint(20, 90) // 100
        parameters = self.rng.randbytes(4) + self.rng.randbytes(32)
        output = self.rng.randbytes(32)
        draft = self._new_draft(slots[0], payer=payer)
        call = draft.body.contractCall
        call.contractID.contractNum = contract
        call.gas = gas
        call.functionParameters = parameters
        actions = [
            Action(
                create=False,
                caller=payer,
                caller_is_contract=False,
                recipient=contract,
                gas=gas,
                gas_used=gas_used,
                input=parameters,
                output=output,
                depth=0,
            )
        ]
        child: tuple[int, Bytecode] | None = None
        if with_child:
            child = (self.ledger.new_entity(), contracts.random_bytecode(self.rng))
            self.ledger.open_account(child[0], contract=True)
            actions.append(
                Action(
                    create=True,
                    caller=contract,
                    caller_is_contract=True,
                    recipient=child[0],
                    gas=gas_used // 2,
                    gas_used=gas_used // 4,
                    input=child[1].initcode,
                    output=child[1].runtime,
                    depth=1,
                )
            )
        sidecars = self._contract_sidecars(draft.consensus_ns, contract, None, tuple(actions))
        logs = self._logs(contract)

        def result(record: hapi.TransactionRecord) -> None:
            record.receipt.contractID.contractNum = contract
            outcome = record.contractCallResult
            outcome.contractID.contractNum = contract
            outcome.contractCallResult = output
            outcome.gasUsed = gas_used
            outcome.sender_id.accountNum = payer
            if child is not None:
                outcome.createdContractIDs.add().contractNum = child[0]
            contracts.write_logs(outcome, logs)

        # The call's result names the contract it created (createdContractIDs), so both records list it.
        created = (child[0],) if child is not None else ()
        parent = self.writer.finish(
            draft, fee, {}, RecordDetails(created=created, contract=contract, fill=result, sidecars=sidecars, logs=logs)
        )
        if child is None:
            return [parent]
        return [parent, self._child_create(draft, *child)]

    def _logs(self, called: int) -> tuple[EmittedLog, ...]:
        """The logs a call emits (none without ``contract_logs``): up to three, most from the called
        contract, now and then from another; an event signature from a few, then up to three
        indexed words (an address, left-padded, or a random word), then 0-2 words of data."""
        rng = self._log_rng
        if rng is None:
            return ()
        logs = []
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            emitter = called if rng.random() < 0.75 else rng.choice(self.ledger.contracts)
            topics = [contracts.EVENT_SIGNATURES[rng.randrange(len(contracts.EVENT_SIGNATURES))]]
            for _ in range(rng.randint(0, 3)):
                word = rng.randbytes(20).rjust(32, b"\x00") if rng.random() < 0.5 else rng.randbytes(32)
                topics.append(word)
            logs.append(EmittedLog(emitter, tuple(topics), rng.randbytes(32 * rng.randint(0, 2))))
        return tuple(logs)

    def _child_create(self, parent: Draft, contract: int, code: Bytecode) -> GeneratedItem:
        """The record of a contract a call created: the parent's transaction id with nonce 1, at
        the parent's consensus time + 1 ns."""
        body = hapi.TransactionBody()
        draft = Draft(body, parent.payer, parent.valid_start, parent.consensus_ns + 1, node=None, nonce=1)
        set_transaction_id(body.transactionID, draft.payer, draft.valid_start, nonce=1)
        body.contractCreateInstance.initcode = code.initcode
        body.contractCreateInstance.autoRenewPeriod.seconds = _AUTO_RENEW_SECONDS
        sidecars: tuple[tuple[int, bytes], ...] = ()
        if self.sidecars:
            bytecode = contracts.bytecode_record(draft.consensus_ns, contract, code)
            sidecars = ((contracts.SIDECAR_BYTECODE, bytecode),)

        def result(record: hapi.TransactionRecord) -> None:
            record.receipt.contractID.contractNum = contract
            record.contractCreateResult.contractID.contractNum = contract
            record.contractCreateResult.evm_address.value = contracts.long_zero_address(contract)
            set_timestamp(record.parent_consensus_timestamp, parent.consensus_ns)

        return self.writer.finish(
            draft,
            0,
            {},
            RecordDetails(
                created=(contract,), contract=contract, fill=result, sidecars=sidecars, parent_ns=parent.consensus_ns
            ),
        )

    def _failed_transfer(self, slots: Sequence[int]) -> list[GeneratedItem]:
        fee = self._fee("transfer")
        payer = self._pick_payer(fee)
        receiver = pick_other(self.rng, self.ledger.user_accounts, payer)
        amount = self.ledger.balance(payer) + self.rng.randint(1, 10**10)
        draft = self._new_draft(slots[0], payer=payer)
        fill_amounts(draft.body.cryptoTransfer.transfers.accountAmounts, {payer: -amount, receiver: amount})
        return [self.writer.finish(draft, fee, {}, RecordDetails(status="INSUFFICIENT_ACCOUNT_BALANCE"))]

    def _duplicate(self, slots: Sequence[int]) -> list[GeneratedItem]:
        """A transfer, then the same transaction id submitted again through another node."""
        original, first = self._plain_hbar_transfer(slots[0], then_pays=_FEES["duplicate"][1])
        body = hapi.TransactionBody()
        body.CopyFrom(first.body)
        others = [n for n in self.node_accounts if n != first.node]
        if others:
            body.nodeAccountID.accountNum = self.rng.choice(others)
        else:
            body.transactionFee -= 1  # one node only: still a different body, so a different hash
        fee = self._fee("duplicate")
        self._require_fee(first.payer, fee)
        draft = Draft(body, first.payer, first.valid_start, slots[1], node=body.nodeAccountID.accountNum)
        return [original, self.writer.finish(draft, fee, {}, RecordDetails(status="DUPLICATE_TRANSACTION"))]

    def _scheduled_transfer(self, slots: Sequence[int]) -> list[GeneratedItem]:
        """A ScheduleCreate whose transfer executes at once (all signatures present), at + 1 ns."""
        create_fee = self._fee("schedule")
        execute_fee = self._fee("transfer")
        payer = self._pick_payer(create_fee + execute_fee + 1)
        receiver = pick_other(self.rng, self.ledger.user_accounts, payer)
        spendable = self.ledger.balance(payer) - create_fee - execute_fee
        amount = self.rng.randint(1, max(1, min(10 * 10**8, spendable // 10)))
        moves = {payer: -amount, receiver: amount}
        schedule = self.ledger.new_entity()
        draft = self._new_draft(slots[0], payer=payer)
        inner = draft.body.scheduleCreate.scheduledTransactionBody
        inner.transactionFee = _MAX_FEE
        fill_amounts(inner.cryptoTransfer.transfers.accountAmounts, moves)
        draft.body.scheduleCreate.payerAccountID.accountNum = payer

        def receipt(record: hapi.TransactionRecord) -> None:
            record.receipt.scheduleID.scheduleNum = schedule
            set_transaction_id(record.receipt.scheduledTransactionID, payer, draft.valid_start, scheduled=True)

        created = self.writer.finish(draft, create_fee, {}, RecordDetails(fill=receipt))

        executed = Draft(
            hapi.TransactionBody(),
            payer,
            draft.valid_start,
            draft.consensus_ns + 1,
            node=None,
            scheduled=True,
        )
        set_transaction_id(executed.body.transactionID, payer, draft.valid_start, scheduled=True)
        executed.body.transactionFee = _MAX_FEE
        fill_amounts(executed.body.cryptoTransfer.transfers.accountAmounts, moves)

        def reference(record: hapi.TransactionRecord) -> None:
            record.scheduleRef.scheduleNum = schedule

        execution = self.writer.finish(executed, execute_fee, moves, RecordDetails(fill=reference), fee_node=draft.node)
        self.ledger.tokens.schedules[schedule] = Schedule(
            schedule,
            payer,
            payer,
            payer,
            receiver,
            amount,
            draft.consensus_ns,
            draft.valid_start,
            [payer],
            executed.consensus_ns,
        )
        return [created, execution]

    # ---- shared steps ------------------------------------------------------------------------

    def _new_draft(self, consensus_ns: int, payer: int) -> Draft:
        """A body with a fresh transaction id for ``payer`` and a random submitting node."""
        node = self.rng.choice(self.node_accounts)
        valid_start = self._used_ids.claim(
            payer, consensus_ns - self.rng.randrange(2 * NS_PER_SECOND, _MAX_VALID_START_AGE_NS), consensus_ns
        )
        body = hapi.TransactionBody()
        set_transaction_id(body.transactionID, payer, valid_start)
        body.nodeAccountID.accountNum = node
        body.transactionFee = _MAX_FEE
        body.transactionValidDuration.seconds = _VALID_DURATION_SECONDS
        memo = self.rng.choice(_MEMOS)
        if memo:
            body.memo = memo
        return Draft(body, payer, valid_start, consensus_ns, node)

    def _contract_sidecars(
        self, consensus_ns: int, contract: int, code: Bytecode | None, actions: tuple[Action, ...]
    ) -> tuple[tuple[int, bytes], ...]:
        if not self.sidecars:
            return ()
        writes = {contract: contracts.random_storage_writes(self.rng, self.rng.randint(1, 3))}
        records = [
            (contracts.SIDECAR_STATE, contracts.state_changes_record(consensus_ns, writes)),
            (contracts.SIDECAR_ACTION, contracts.actions_record(consensus_ns, actions)),
        ]
        if code is not None:
            records.append((contracts.SIDECAR_BYTECODE, contracts.bytecode_record(consensus_ns, contract, code)))
        return tuple(records)

    def _fee(self, kind: str) -> int:
        low, high = _FEES[kind]
        return self.rng.randint(low, high)

    def _pick_payer(self, needed: int) -> int:
        for _ in range(8):
            payer = self.rng.choice(self.ledger.user_accounts)
            if self.ledger.balance(payer) >= needed:
                return payer
        return TREASURY

    def _require_fee(self, payer: int, needed: int) -> None:
        if self.ledger.balance(payer) < needed:
            raise GeneratorError(f"0.0.{payer} cannot pay {needed} tinybar")


_MAX_VALID_START_AGE_NS = 60 * NS_PER_SECOND
"""A fresh transaction id's valid start is at most this long before its consensus time."""


class _IssuedIds:
    """The transaction ids given out, as (payer, valid start), so that none is given twice.

    Only ids that a new one could still meet are kept: a new valid start lies at most
    ``_MAX_VALID_START_AGE_NS`` before its consensus time and consensus times only grow, so older
    ones (with ``_MARGIN_NS`` to spare) are dropped every ``_MARGIN_NS`` of consensus time, which
    keeps memory flat over a long stream without changing a single id."""

    _MARGIN_NS = 10 * NS_PER_SECOND

    def __init__(self) -> None:
        self._ids: set[tuple[int, int]] = set()
        self._pruned_at = 0

    def claim(self, payer: int, valid_start: int, consensus_ns: int) -> int:
        """``valid_start``, or the nearest free one before it."""
        if consensus_ns - self._pruned_at > self._MARGIN_NS:
            horizon = consensus_ns - _MAX_VALID_START_AGE_NS - self._MARGIN_NS
            self._ids = {issued for issued in self._ids if issued[1] >= horizon}
            self._pruned_at = consensus_ns
        while (payer, valid_start) in self._ids:
            valid_start -= 1
        self._ids.add((payer, valid_start))
        return valid_start
