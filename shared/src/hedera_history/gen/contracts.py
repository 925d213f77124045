"""Synthetic smart-contract data: bytecode, and the sidecar records of contract transactions."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from hedera_history import hapi
from hedera_history.formats.evm import combined_bloom, log_bloom
from hedera_history.formats.parsed_files import SidecarType
from hedera_history.gen.config_and_output import NS_PER_SECOND
from hedera_history.gen.facts import EmittedLog

_CONSTRUCTOR_PREFIX = bytes.fromhex("608060405234801561001057600080fd5b50")
_RUNTIME_PREFIX = bytes.fromhex("6080604052348015600f57600080fd5b50")
_ACTION_CALL = 1
_ACTION_CREATE = 2
_OP_CALL = 1
_OP_CREATE = 5  # HAPI CallOperationType.OP_CREATE (6 is OP_CREATE2)


@dataclass(frozen=True, slots=True)
class Bytecode:
    initcode: bytes
    runtime: bytes


@dataclass(frozen=True, slots=True)
class StorageWrite:
    slot: bytes
    value_read: bytes
    value_written: bytes


def random_bytecode(rng: random.Random) -> Bytecode:
    runtime = _RUNTIME_PREFIX + rng.randbytes(rng.randint(40, 160))
    return Bytecode(initcode=_CONSTRUCTOR_PREFIX + runtime, runtime=runtime)


def long_zero_address(num: int) -> bytes:
    """The 20-byte EVM address of entity ``0.0.<num>``."""
    return bytes(12) + num.to_bytes(8, "big")


EVENT_SIGNATURES = tuple(
    bytes.fromhex(h)
    for h in (
        "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",  # Transfer(address,address,uint256)
        "8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925",  # Approval(address,address,uint256)
        "17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31",  # ApprovalForAll(address,address,bool)
    )
)
"""The first topics the generated logs take: a few, so a topic filter finds several logs."""


def write_logs(result: Any, logs: tuple[EmittedLog, ...]) -> None:
    """The logs into a call's result, each with its bloom, and the result's bloom over them (as the
    network writes them; ``formats.block_contracts`` rebuilds the same from a block's trace data)."""
    blooms = []
    for log in logs:
        info = result.logInfo.add()
        info.contractID.contractNum = log.contract
        info.bloom = log_bloom(long_zero_address(log.contract), log.topics)
        info.topic.extend(log.topics)
        info.data = log.data
        blooms.append(info.bloom)
    if blooms:
        result.bloom = combined_bloom(blooms)


def random_storage_writes(rng: random.Random, count: int) -> tuple[StorageWrite, ...]:
    return tuple(
        StorageWrite(
            slot=bytes([index]) if index else b"",
            value_read=rng.randbytes(rng.randint(0, 4)),
            value_written=rng.randbytes(rng.randint(1, 32)),
        )
        for index in range(count)
    )


def _sidecar_record(consensus_ns: int) -> hapi.TransactionSidecarRecord:
    record = hapi.TransactionSidecarRecord()
    record.consensus_timestamp.seconds, record.consensus_timestamp.nanos = divmod(consensus_ns, NS_PER_SECOND)
    return record


def state_changes_record(consensus_ns: int, changes: dict[int, tuple[StorageWrite, ...]]) -> bytes:
    """A ``state_changes`` sidecar record: contract number -> the slots it wrote."""
    record = _sidecar_record(consensus_ns)
    for contract, writes in changes.items():
        change = record.state_changes.contract_state_changes.add()
        change.contract_id.contractNum = contract
        for write in writes:
            storage = change.storage_changes.add()
            storage.slot = write.slot
            storage.value_read = write.value_read
            storage.value_written.value = write.value_written
    serialised: bytes = record.SerializeToString()
    return serialised


def bytecode_record(consensus_ns: int, contract: int, code: Bytecode) -> bytes:
    record = _sidecar_record(consensus_ns)
    record.bytecode.contract_id.contractNum = contract
    record.bytecode.initcode = code.initcode
    record.bytecode.runtime_bytecode = code.runtime
    serialised: bytes = record.SerializeToString()
    return serialised


@dataclass(frozen=True, slots=True)
class Action:
    """One EVM frame: a call (or create) from ``caller`` (an account, or a contract at depth > 0)."""

    create: bool
    caller: int
    caller_is_contract: bool
    recipient: int
    gas: int
    gas_used: int
    input: bytes
    output: bytes
    depth: int


def actions_record(consensus_ns: int, actions: tuple[Action, ...]) -> bytes:
    record = _sidecar_record(consensus_ns)
    for action in actions:
        entry = record.actions.contract_actions.add()
        entry.call_type = _ACTION_CREATE if action.create else _ACTION_CALL
        if action.caller_is_contract:
            entry.calling_contract.contractNum = action.caller
        else:
            entry.calling_account.accountNum = action.caller
        entry.gas = action.gas
        entry.input = action.input
        entry.recipient_contract.contractNum = action.recipient
        entry.gas_used = action.gas_used
        entry.output = action.output
        entry.call_depth = action.depth
        entry.call_operation_type = _OP_CREATE if action.create else _OP_CALL
    serialised: bytes = record.SerializeToString()
    return serialised


SIDECAR_STATE = int(SidecarType.CONTRACT_STATE_CHANGE)
SIDECAR_ACTION = int(SidecarType.CONTRACT_ACTION)
SIDECAR_BYTECODE = int(SidecarType.CONTRACT_BYTECODE)
