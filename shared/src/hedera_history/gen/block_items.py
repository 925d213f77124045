"""A generated transaction as the items a native block (HIP-1056) carries for it.

Each record stream item the generator builds becomes what a consensus node of HAPI 0.78 writes
instead: the ``signed_transaction`` (the ``SignedTransaction`` the item's ``Transaction`` wraps),
its ``transaction_result`` (status, consensus time, fee, transfer lists, parent time, schedule
reference: the record's), the ``transaction_output`` its kind needs (the new account; the schedule
and its transaction id; a contract transaction's EVM result), the EVM ``trace_data`` of a contract
transaction (its actions, the initcode it ran, the slots it read and wrote: the record stream's
sidecars), and the ``state_changes`` committed with it (hbar balances, a new contract's account
and bytecode, the storage written). A transaction's children follow it, their state changes
committed with the parent's, so the parent's state changes come right after its own items.

These are the items :mod:`hedera_history.formats.block_records` turns back into records: the
transaction id, time, hash, status, fee, transfers, the accounts and contracts created and the
three sidecar kinds come back as the record stream had them. What the block stream does not carry
(a receipt's exchange rate, a call's ``createdContractIDs``) does not come back;
:func:`native_facts` is the ground truth of such a transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from hedera_history import hapi
from hedera_history.books.registered_nodes import CREATE_CASE, DELETE_CASE, NODE_CASES
from hedera_history.formats.block_protos import BlockItem, StateChanges, TraceData, TransactionOutput, TransactionResult
from hedera_history.formats.block_state import (
    STATE_ID_ACCOUNTS,
    STATE_ID_BYTECODE,
    STATE_ID_PENDING_AIRDROPS,
    STATE_ID_REGISTERED_NODES,
    STATE_ID_STORAGE,
    STATE_ID_TOKENS,
)
from hedera_history.gen.facts import GeneratedItem, ItemFacts

_EVM_OUTPUTS = {"contractCall": "contract_call", "contractCreateInstance": "contract_create"}


def native_facts(facts: ItemFacts) -> ItemFacts:
    """What a native block says of a transaction: a call's record no longer names the contracts
    its execution created (they are the child's)."""
    if facts.type == "contractCall" and facts.created:
        return replace(facts, created=())
    return facts


class BlockItemWriter:
    """Turns generated transactions into block items, keeping each account's hbar balance so that
    every balance state change states the balance after its transaction."""

    def __init__(self, genesis_balances: Mapping[int, int]) -> None:
        self.balances = dict(genesis_balances)
        self.aliases: dict[int, bytes] = {}
        """The alias each account created with one holds (an account's state carries it)."""
        self.registered_nodes: dict[int, Any] = {}
        """Each registered node's state (``RegisteredNode``), as its last write left it."""

    def follow(self, items: Sequence[GeneratedItem]) -> None:
        """Items that went into a record file: their transfers move the balances all the same, and
        their creates give aliases."""
        for item in items:
            for account, amount in item.facts.hbar_transfers:
                self.balances[account] = self.balances.get(account, 0) + amount
            if item.facts.type == "cryptoCreateAccount":
                self._note_alias(_Parsed(item))

    def _note_alias(self, entry: _Parsed) -> int | None:
        """The account an aliased CryptoCreate created, its alias noted; None for any other item."""
        alias = bytes(entry.body.cryptoCreateAccount.alias)
        if not alias or entry.body.WhichOneof("data") != "cryptoCreateAccount":
            return None
        account = int(entry.record.receipt.accountID.accountNum)
        self.aliases[account] = alias
        return account

    def transactions(self, items: Sequence[GeneratedItem]) -> list[list[bytes]]:
        """Per top-level transaction (its children with it), its serialised ``BlockItem`` messages."""
        groups: list[list[GeneratedItem]] = []
        for item in items:
            if item.facts.parent_consensus_ns is not None and groups:
                groups[-1].append(item)
            else:
                groups.append([item])
        return [self._group(group) for group in groups]

    def _group(self, group: list[GeneratedItem]) -> list[bytes]:
        parsed = [_Parsed(item) for item in group]
        out: list[bytes] = []
        for position, entry in enumerate(parsed):
            out += entry.items()
            if position == 0:
                changes = self._state_changes(parsed)
                if changes is not None:
                    out.append(changes)
        return out

    def _state_changes(self, group: list[_Parsed]) -> bytes | None:
        """The state changes committed with the group, stamped with its top-level consensus time."""
        changes = StateChanges()
        changes.consensus_timestamp.CopyFrom(group[0].record.consensusTimestamp)
        moved: set[int] = set()
        for entry in group:
            for account, amount in entry.item.facts.hbar_transfers:
                self.balances[account] = self.balances.get(account, 0) + amount
                moved.add(account)
        created = {num for entry in group for num in entry.created_contracts()}
        aliased = {num for entry in group if (num := self._note_alias(entry)) is not None}
        for account in sorted(moved | created | aliased):
            change = changes.state_changes.add(state_id=STATE_ID_ACCOUNTS)
            change.map_update.key.account_id_key.accountNum = account
            value = change.map_update.value.account_value
            value.account_id.accountNum = account
            value.tinybar_balance = self.balances.get(account, 0)
            value.smart_contract = account in created
            if account in self.aliases:
                value.alias = self.aliases[account]
        for entry in group:
            entry.add_contract_state(changes)
            entry.add_token_state(changes)
            self._add_registered_node_state(entry, changes)
        if not changes.state_changes:
            return None
        return _item(state_changes=changes)

    def _add_registered_node_state(self, entry: _Parsed, changes: Any) -> None:
        """A successful registered-node transaction's write: the whole node, or its deletion."""
        case = entry.body.WhichOneof("data")
        if case not in NODE_CASES or entry.record.receipt.status != _SUCCESS:
            return
        change = changes.state_changes.add(state_id=STATE_ID_REGISTERED_NODES)
        if case == DELETE_CASE:
            node_id = entry.body.registeredNodeDelete.registered_node_id
            self.registered_nodes.pop(node_id, None)
            change.map_delete.key.entity_number_key.value = node_id
            return
        if case == CREATE_CASE:
            create = entry.body.registeredNodeCreate
            node_id = entry.record.receipt.registered_node_id
            node = change.map_update.value.registered_node_value
            node.registered_node_id = node_id
            node.admin_key.CopyFrom(create.admin_key)
            node.description = create.description
            node.service_endpoint.extend(create.service_endpoint)
        else:
            update = entry.body.registeredNodeUpdate
            node_id = update.registered_node_id
            node = change.map_update.value.registered_node_value
            node.CopyFrom(self.registered_nodes[node_id])
            if update.HasField("admin_key"):
                node.admin_key.CopyFrom(update.admin_key)
            if update.HasField("description"):
                node.description = update.description.value
            if update.service_endpoint:
                del node.service_endpoint[:]
                node.service_endpoint.extend(update.service_endpoint)
        change.map_update.key.entity_number_key.value = node_id
        self.registered_nodes[node_id] = node


_SUCCESS = hapi.ResponseCodeEnum.Value("SUCCESS")


class _Parsed:
    """One generated item's record, body and sidecar records, parsed once."""

    def __init__(self, item: GeneratedItem) -> None:
        self.item = item
        self.signed = bytes(hapi.Transaction.FromString(item.transaction_bytes).signedTransactionBytes)
        self.body = hapi.TransactionBody.FromString(hapi.SignedTransaction.FromString(self.signed).bodyBytes)
        self.record = hapi.TransactionRecord.FromString(item.record_bytes)
        self.sidecars = [hapi.TransactionSidecarRecord.FromString(raw) for raw in item.sidecar_records]

    def _sidecar(self, case: str) -> Any | None:
        return next((s for s in self.sidecars if s.WhichOneof("sidecar_records") == case), None)

    def created_contracts(self) -> list[int]:
        if self.body.WhichOneof("data") != "contractCreateInstance":
            return []
        return [self.record.contractCreateResult.contractID.contractNum]

    def items(self) -> list[bytes]:
        out = [_item(signed_transaction=self.signed), _item(transaction_result=self._result())]
        output = self._output()
        if output is not None:
            out.append(_item(transaction_output=output))
        trace = self._trace()
        if trace is not None:
            out.append(_item(trace_data=trace))
        return out

    def _result(self) -> Any:
        record = self.record
        result = TransactionResult(status=record.receipt.status, transaction_fee_charged=record.transactionFee)
        result.consensus_timestamp.CopyFrom(record.consensusTimestamp)
        if record.HasField("parent_consensus_timestamp"):
            result.parent_consensus_timestamp.CopyFrom(record.parent_consensus_timestamp)
        if record.HasField("scheduleRef"):
            result.schedule_ref.CopyFrom(record.scheduleRef)
        result.transfer_list.CopyFrom(record.transferList)
        result.token_transfer_lists.extend(record.tokenTransferLists)
        result.automatic_token_associations.extend(record.automatic_token_associations)
        result.paid_staking_rewards.extend(record.paid_staking_rewards)
        return result

    def _output(self) -> Any | None:
        kind = self.body.WhichOneof("data") or ""
        receipt = self.record.receipt
        output = TransactionOutput()
        if kind == "cryptoCreateAccount" and receipt.HasField("accountID"):
            output.account_create.created_account_id.CopyFrom(receipt.accountID)
        elif kind == "scheduleCreate" and receipt.HasField("scheduleID"):
            output.create_schedule.schedule_id.CopyFrom(receipt.scheduleID)
            output.create_schedule.scheduled_transaction_id.CopyFrom(receipt.scheduledTransactionID)
        elif kind == "scheduleSign" and receipt.HasField("scheduledTransactionID"):
            output.sign_schedule.scheduled_transaction_id.CopyFrom(receipt.scheduledTransactionID)
        elif kind in _EVM_OUTPUTS:
            self._evm_result(getattr(output, _EVM_OUTPUTS[kind]).evm_transaction_result, kind)
        else:
            return None
        return output

    def _evm_result(self, evm: Any, kind: str) -> None:
        record = self.record
        if kind == "contractCall":
            outcome, call = record.contractCallResult, self.body.contractCall
            evm.internal_call_context.call_data = call.functionParameters
        else:
            outcome, call = record.contractCreateResult, self.body.contractCreateInstance
            evm.internal_call_context.SetInParent()
        evm.contract_id.CopyFrom(outcome.contractID)
        evm.result_data = outcome.contractCallResult
        evm.gas_used = outcome.gasUsed
        evm.internal_call_context.gas = call.gas
        if outcome.HasField("sender_id"):
            evm.sender_id.CopyFrom(outcome.sender_id)

    def _trace(self) -> Any | None:
        actions, bytecode, storage = (self._sidecar(case) for case in ("actions", "bytecode", "state_changes"))
        logs = self.record.contractCallResult.logInfo  # GeneratorConfig.contract_logs
        if actions is None and bytecode is None and storage is None and not logs:
            return None
        trace = TraceData()
        evm = trace.evm_trace_data
        evm.SetInParent()
        for log in logs:
            evm.logs.add(contract_id=log.contractID, topics=log.topic, data=log.data)
        if actions is not None:
            evm.contract_actions.extend(actions.actions.contract_actions)
        if bytecode is not None:
            evm.executed_initcode.contract_id.CopyFrom(bytecode.bytecode.contract_id)
            evm.executed_initcode.explicit_initcode = bytecode.bytecode.initcode
        if storage is not None:
            for change in storage.state_changes.contract_state_changes:
                usage = evm.contract_slot_usages.add()
                usage.contract_id.CopyFrom(change.contract_id)
                usage.written_slot_keys.keys.extend(slot.slot for slot in change.storage_changes)
                for index, slot in enumerate(change.storage_changes):
                    usage.slot_reads.add(index=index, read_value=slot.value_read)
        return trace

    def add_contract_state(self, changes: Any) -> None:
        """The bytecode a create leaves and the slots the transaction wrote."""
        bytecode = self._sidecar("bytecode")
        if bytecode is not None:
            change = changes.state_changes.add(state_id=STATE_ID_BYTECODE)
            change.map_update.key.contract_id_key.CopyFrom(bytecode.bytecode.contract_id)
            change.map_update.value.bytecode_value.code = bytecode.bytecode.runtime_bytecode
        storage = self._sidecar("state_changes")
        if storage is None:
            return
        for contract_change in storage.state_changes.contract_state_changes:
            for slot in contract_change.storage_changes:
                change = changes.state_changes.add(state_id=STATE_ID_STORAGE)
                key = change.map_update.key.slot_key_key
                key.contractID.CopyFrom(contract_change.contract_id)
                key.key = slot.slot
                change.map_update.value.slot_value_value.value = slot.value_written.value

    def add_token_state(self, changes: Any) -> None:
        """A token's state after a create, mint or burn (its id and supply), the pending airdrops
        the record lists (a fungible one with the amount pending), and those a claim or cancel
        removes."""
        body, receipt = self.body, self.record.receipt
        kind = body.WhichOneof("data")
        token_id: Any | None = None
        if kind == "tokenCreation" and receipt.HasField("tokenID"):
            token_id = receipt.tokenID
        elif kind in ("tokenMint", "tokenBurn"):
            token_id = getattr(body, kind).token
        if token_id is not None:
            change = changes.state_changes.add(state_id=STATE_ID_TOKENS)
            change.map_update.key.token_id_key.CopyFrom(token_id)
            token = change.map_update.value.token_value
            token.token_id.CopyFrom(token_id)
            token.total_supply = receipt.newTotalSupply
            if kind == "tokenCreation":
                create = body.tokenCreation
                token.name, token.symbol, token.decimals = create.name, create.symbol, create.decimals
                token.treasury_account_id.CopyFrom(create.treasury)
        for pending in self.record.new_pending_airdrops:
            change = changes.state_changes.add(state_id=STATE_ID_PENDING_AIRDROPS)
            change.map_update.key.pending_airdrop_id_key.CopyFrom(pending.pending_airdrop_id)
            value = change.map_update.value.account_pending_airdrop_value
            value.SetInParent()
            if pending.HasField("pending_airdrop_value"):
                value.pending_airdrop_value.amount = pending.pending_airdrop_value.amount
        if kind in ("tokenClaimAirdrop", "tokenCancelAirdrop"):
            for airdrop_id in getattr(body, kind).pending_airdrops:
                change = changes.state_changes.add(state_id=STATE_ID_PENDING_AIRDROPS)
                change.map_delete.key.pending_airdrop_id_key.CopyFrom(airdrop_id)


def _item(**case: Any) -> bytes:
    data: bytes = BlockItem(**case).SerializeToString()
    return data
