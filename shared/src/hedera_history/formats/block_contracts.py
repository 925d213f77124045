"""A contract transaction's record and sidecars from its EVM output and trace data, as the reference builds them.

The ``EvmTransactionResult`` of the transaction's output becomes the record's contract call (or
create) result; the trace data's logs become its log infos with their blooms; its actions, the
bytecode a create leaves in state and its slot usages become the three sidecar records the record
stream published beside the file (actions, bytecode, state changes, in that order).

Slot usages name a written slot either by key or by index. An index points into the slot keys the
usage lists, or, when it lists none, into the contract's slots the state changes write, in their
order. The value a slot was left with is the value the next transaction of the same batch (or the
next child of the same parent) read from it, else the value the state changes wrote; a slot read
but not written has no value written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import wrappers_pb2

from hedera_history import hapi
from hedera_history.formats.block_state import SlotKey, SlotOwner, StateContext, key_of, trim
from hedera_history.formats.block_transactions import BlockTransaction
from hedera_history.formats.evm import combined_bloom, contract_address, log_bloom

HOOK_SYSTEM_CONTRACT_NUM = 365
"""The hook system contract: storage it names belongs to the hook the transaction executed."""

_RESULT_OUTPUT = {"contractCreateInstance": "contract_create", "ethereumTransaction": "ethereum_call"}
"""Which output carries the EVM result, by body; every other body reads ``contract_call``."""

ValueWritten = Callable[[SlotKey], bytes | None]
"""What a transaction left in a slot: looked up in the transactions after it, then in state."""


@dataclass(slots=True)
class ContractOutcome:
    """What a contract transaction adds besides its record's result."""

    sidecars: list[Any] = field(default_factory=list)
    """``TransactionSidecarRecord`` messages, in the reference's order."""
    storage_reads: dict[SlotKey, bytes] = field(default_factory=dict)
    """The value each slot held when this transaction read it (for the transaction before it)."""


def evm_result(transaction: BlockTransaction) -> tuple[Any, bool] | None:
    """The transaction's ``EvmTransactionResult`` and whether it created a contract, or None."""
    case = _RESULT_OUTPUT.get(transaction.data_case or "", "contract_call")
    output = transaction.output(case)
    if output is None:
        return None
    if case == "ethereum_call":
        ethereum = output.ethereum_call
        which = ethereum.WhichOneof("transaction_result")
        if which is None:
            return None
        return getattr(ethereum, which), which == "evm_create_transaction_result"
    holder = getattr(output, case)
    if not holder.HasField("evm_transaction_result"):
        return None
    return holder.evm_transaction_result, case == "contract_create"


def add_contract_result(
    record: Any, transaction: BlockTransaction, context: StateContext, value_written: ValueWritten
) -> ContractOutcome | None:
    """Fill ``record``'s contract result from the transaction's EVM result and trace data; the
    sidecars and slot reads it gives, or None for a transaction that ran no EVM."""
    found = evm_result(transaction)
    if found is None:
        return None
    evm, creates = found
    result = record.contractCreateResult if creates else record.contractCallResult
    result.SetInParent()
    result.contractCallResult = evm.result_data
    result.errorMessage = evm.error_message
    result.gasUsed = evm.gas_used
    result.contract_nonces.extend(evm.contract_nonces)
    if evm.HasField("contract_id"):
        result.contractID.CopyFrom(evm.contract_id)
        record.receipt.contractID.CopyFrom(evm.contract_id)
    if evm.HasField("sender_id"):
        result.sender_id.CopyFrom(evm.sender_id)
    if evm.HasField("signer_nonce"):
        result.signer_nonce.CopyFrom(evm.signer_nonce)
    if creates and evm.HasField("contract_id"):
        contract = evm.contract_id
        account_id = hapi.AccountID(
            shardNum=contract.shardNum, realmNum=contract.realmNum, accountNum=contract.contractNum
        )
        account = context.account(account_id)
        if account is not None and account.alias:
            result.evm_address.CopyFrom(wrappers_pb2.BytesValue(value=account.alias))
    if evm.HasField("internal_call_context"):
        call = evm.internal_call_context
        result.amount = call.value
        result.functionParameters = call.call_data
        result.gas = call.gas
    trace = _evm_trace(transaction)
    if trace is not None:
        _add_logs(result, trace)
    outcome = ContractOutcome()
    timestamp = transaction.result.consensus_timestamp
    if trace is not None and trace.contract_actions:
        actions = hapi.contract_action.ContractActions(contract_actions=trace.contract_actions)
        outcome.sidecars.append(hapi.TransactionSidecarRecord(consensus_timestamp=timestamp, actions=actions))
    bytecode = _bytecode(transaction, context, result.contractID, trace)
    if bytecode is not None:
        outcome.sidecars.append(hapi.TransactionSidecarRecord(consensus_timestamp=timestamp, bytecode=bytecode))
    if trace is not None and trace.contract_slot_usages:
        changes = _state_changes(trace, evm, context, value_written, outcome.storage_reads)
        if changes:
            state_changes = hapi.contract_state_change.ContractStateChanges(contract_state_changes=changes)
            outcome.sidecars.append(
                hapi.TransactionSidecarRecord(consensus_timestamp=timestamp, state_changes=state_changes)
            )
    return outcome


def _evm_trace(transaction: BlockTransaction) -> Any | None:
    """The first EVM trace data of the transaction (there is at most one)."""
    for trace in transaction.trace_data:
        if trace.WhichOneof("data") == "evm_trace_data":
            return trace.evm_trace_data
    return None


def _add_logs(result: Any, trace: Any) -> None:
    blooms = []
    for log in trace.logs:
        bloom = log_bloom(contract_address(log.contract_id), log.topics)
        blooms.append(bloom)
        info = result.logInfo.add()
        info.contractID.CopyFrom(log.contract_id)
        info.bloom = bloom
        info.topic.extend(log.topics)
        info.data = log.data
    if blooms:
        result.bloom = combined_bloom(blooms)


def _bytecode(transaction: BlockTransaction, context: StateContext, contract_id: Any, trace: Any | None) -> Any | None:
    """A create's bytecode sidecar: the runtime bytecode its state changes store, with the
    initcode the trace gives (whole, or as the parts around the runtime bytecode)."""
    if transaction.data_case != "contractCreateInstance":
        return None
    runtime = context.bytecodes.get(key_of(contract_id))
    if runtime is None:
        return None
    bytecode = hapi.contract_bytecode.ContractBytecode(contract_id=contract_id, runtime_bytecode=runtime)
    if trace is not None and trace.HasField("executed_initcode"):
        executed = trace.executed_initcode
        which = executed.WhichOneof("initcode")
        if which == "explicit_initcode":
            bytecode.initcode = executed.explicit_initcode
        elif which == "initcode_bookends":
            bookends = executed.initcode_bookends
            bytecode.initcode = bookends.deploy_bytecode + runtime + bookends.metadata_bytecode
    return bytecode


def _slot_owner(contract_id: Any, evm: Any) -> SlotOwner | None:
    """Whose storage a slot usage names: the contract's, or the executed hook's for the hook
    system contract; None for the hook system contract without an executed hook."""
    if evm.HasField("executed_hook_id"):
        if contract_id.contractNum == HOOK_SYSTEM_CONTRACT_NUM:
            return ("hook", key_of(evm.executed_hook_id))
    elif contract_id.contractNum == HOOK_SYSTEM_CONTRACT_NUM:
        return None
    return ("contract", key_of(contract_id))


def _state_changes(
    trace: Any, evm: Any, context: StateContext, value_written: ValueWritten, reads: dict[SlotKey, bytes]
) -> list[Any]:
    changes = []
    for usage in trace.contract_slot_usages:
        owner = _slot_owner(usage.contract_id, evm)
        if owner is None:
            continue
        written_keys = list(usage.written_slot_keys.keys)
        storage = []
        for slot_read in usage.slot_reads:
            value_read = trim(slot_read.read_value)
            change = hapi.contract_state_change.StorageChange(value_read=value_read)
            which = slot_read.WhichOneof("identifier")
            slot: bytes | None = None
            if which == "index":
                resolved = _indexed_slot(
                    owner, usage.contract_id, slot_read.index, written_keys, context, value_written
                )
                if resolved is not None:
                    slot, written = resolved
                    if written is not None:
                        change.slot = slot
                        change.value_written.CopyFrom(wrappers_pb2.BytesValue(value=written))
                        storage.append(change)
            elif which == "key":
                slot = bytes(slot_read.key)
                change.slot = slot
                storage.append(change)
            if slot is not None:
                reads[(owner, trim(slot))] = value_read
        if storage:
            changes.append(
                hapi.contract_state_change.ContractStateChange(contract_id=usage.contract_id, storage_changes=storage)
            )
    return changes


def _indexed_slot(
    owner: SlotOwner,
    contract_id: Any,
    index: int,
    written_keys: list[bytes],
    context: StateContext,
    value_written: ValueWritten,
) -> tuple[bytes, bytes | None] | None:
    """The slot an index names and the value left in it (None when nothing says it)."""
    if index < 0:
        return None
    if written_keys:
        if index >= len(written_keys):
            return None
        slot = trim(written_keys[index])
        return slot, value_written((owner, slot))
    if owner[0] != "contract":
        return None
    return context.storage_at(contract_id, index)
