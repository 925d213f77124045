"""What a transaction's state changes tell its record: the reference mirror node's state change context.

The block stream no longer says which entity a transaction created, what a topic's running hash
became or what a token's supply is after a mint; the state changes committed with the transaction
do. A parent's state changes carry its children's too (they are committed together), so a child
reads its parent's context.

Entity creation is read as the reference reads it: a context lists the topics, tokens, files and
nodes its state changes touch, in number order, and each creating transaction takes the largest
not yet taken. Transactions are transformed newest first (``block_records``), so among creations
sharing one context the latest takes the largest number, the order in which the network assigns
them. A token's supply is tracked the same way: the state holds the supply after the last
transaction, and each mint, burn or wipe, met newest first, hands the supply before it on.

Entity ids are keyed by their serialised bytes (protobuf messages do not hash in Python); storage
slot keys and values are kept trimmed of leading zero bytes, as the reference keeps them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hedera_history import hapi
from hedera_history.formats.block_protos import StateChanges

STATE_ID_ACCOUNTS = 2
STATE_ID_STORAGE = 4
STATE_ID_BYTECODE = 5
STATE_ID_FILES = 6
STATE_ID_TOKENS = 7
STATE_ID_NODES = 20
STATE_ID_TOPICS = 21
STATE_ID_PENDING_AIRDROPS = 25
STATE_ID_EVM_HOOK_STORAGE = 52
STATE_ID_REGISTERED_NODES = 56
"""``StateIdentifier`` numbers of the states a record is derived from."""


def key_of(message: Any) -> bytes:
    """An entity id message as a dictionary key."""
    data: bytes = message.SerializeToString(deterministic=True)
    return data


def trim(data: bytes) -> bytes:
    """Leading zero bytes removed (an all-zero word becomes empty)."""
    return data.lstrip(b"\x00")


SlotOwner = tuple[str, bytes]
"""``("contract", ContractID bytes)`` or ``("hook", HookId bytes)``: whose storage a slot is."""
SlotKey = tuple[SlotOwner, bytes]
"""A storage slot: its owner and its key, trimmed."""


@dataclass(frozen=True, slots=True)
class TopicMessage:
    running_hash: bytes
    sequence_number: int


class StateContext:
    """The state changes of one top-level transaction (with its children), indexed.

    Most transactions (a crypto transfer) never ask their context anything, so the changes are
    indexed on the first read of any index below, not when the context is made."""

    accounts: dict[bytes, Any]
    account_ids: dict[bytes, Any]
    """Alias -> AccountID of a non-contract account."""
    contract_ids: dict[bytes, Any]
    """EVM address -> ContractID of a contract."""
    bytecodes: dict[bytes, bytes]
    storage: dict[SlotKey, bytes]
    """Value written to each slot (trimmed; empty when the slot was deleted)."""
    storage_by_contract: dict[bytes, list[tuple[bytes, bytes]]]
    """Per contract, ``(slot, value written)`` in state change order (implicit slot reads)."""
    pending_fungible_airdrops: dict[bytes, int]
    token_supplies: dict[bytes, int]
    topic_messages: dict[bytes, TopicMessage]
    file_ids: list[Any]
    node_ids: list[int]
    registered_node_ids: list[int]
    token_ids: list[Any]
    topic_ids: list[Any]

    def __init__(self, changes: Iterable[StateChanges] = ()) -> None:
        self._changes = tuple(changes)

    def __getattr__(self, name: str) -> Any:
        """An index not built yet (``__getattr__`` runs only for attributes not set): build them all."""
        if name.startswith("_") or "_indexed" in vars(self):
            raise AttributeError(name)
        self._index()
        return getattr(self, name)

    def _index(self) -> None:
        self._indexed = True
        self.accounts = {}
        self.account_ids = {}
        self.contract_ids = {}
        self.bytecodes = {}
        self.storage = {}
        self.storage_by_contract = {}
        self.pending_fungible_airdrops = {}
        self.token_supplies = {}
        self.topic_messages = {}
        self.file_ids = []
        self.node_ids = []
        self.registered_node_ids = []
        self.token_ids = []
        self.topic_ids = []
        for state_changes in self._changes:
            for change in state_changes.state_changes:
                self._add(change)
        self.file_ids.sort(key=lambda file_id: file_id.fileNum)
        self.node_ids.sort()
        self.registered_node_ids.sort()
        self.token_ids.sort(key=lambda token_id: token_id.tokenNum)
        self.topic_ids.sort(key=lambda topic_id: topic_id.topicNum)

    def _add(self, change: Any) -> None:
        operation = change.WhichOneof("change_operation")
        if operation == "map_update":
            update = change.map_update
            handler = _UPDATES.get(change.state_id)
            if handler is not None:
                handler(self, update)
        elif operation == "map_delete":
            key = change.map_delete.key
            if key.HasField("slot_key_key"):
                slot = key.slot_key_key
                self._write_slot((("contract", key_of(slot.contractID)), trim(slot.key)), b"")
            if key.HasField("evm_hook_slot_key"):
                slot = key.evm_hook_slot_key
                self._write_slot((("hook", key_of(slot.hook_id)), trim(slot.key)), b"")

    def _account(self, update: Any) -> None:
        if not update.value.HasField("account_value"):
            return
        account = update.value.account_value
        self.accounts.setdefault(key_of(account.account_id), account)
        if account.alias:
            account_id = account.account_id
            if account.smart_contract:
                contract_id = hapi.basic_types.ContractID(
                    shardNum=account_id.shardNum, realmNum=account_id.realmNum, contractNum=account_id.accountNum
                )
                self.contract_ids[bytes(account.alias)] = contract_id
            else:
                self.account_ids[bytes(account.alias)] = account_id

    def _bytecode(self, update: Any) -> None:
        if update.value.HasField("bytecode_value"):
            self.bytecodes[key_of(update.key.contract_id_key)] = bytes(update.value.bytecode_value.code)

    def _storage(self, update: Any) -> None:
        if not update.key.HasField("slot_key_key") or update.identical:
            return
        slot = update.key.slot_key_key
        value = trim(update.value.slot_value_value.value)
        self._write_slot((("contract", key_of(slot.contractID)), trim(slot.key)), value)

    def _hook_storage(self, update: Any) -> None:
        if not update.key.HasField("evm_hook_slot_key"):
            return
        slot = update.key.evm_hook_slot_key
        self._write_slot((("hook", key_of(slot.hook_id)), trim(slot.key)), trim(update.value.slot_value_value.value))

    def _write_slot(self, slot: SlotKey, value: bytes) -> None:
        self.storage[slot] = value
        owner, key = slot
        if owner[0] == "contract":
            self.storage_by_contract.setdefault(owner[1], []).append((key, value))

    def _file(self, update: Any) -> None:
        self.file_ids.append(update.key.file_id_key)

    def _node(self, update: Any) -> None:
        if update.key.HasField("entity_number_key"):
            self.node_ids.append(update.key.entity_number_key.value)

    def _registered_node(self, update: Any) -> None:
        if update.value.HasField("registered_node_value"):
            self.registered_node_ids.append(update.value.registered_node_value.registered_node_id)

    def _pending_airdrop(self, update: Any) -> None:
        airdrop_id = update.key.pending_airdrop_id_key
        if airdrop_id.HasField("fungible_token_type"):
            amount = update.value.account_pending_airdrop_value.pending_airdrop_value.amount
            self.pending_fungible_airdrops[key_of(airdrop_id)] = amount

    def _token(self, update: Any) -> None:
        token = update.value.token_value
        self.token_ids.append(token.token_id)
        self.token_supplies[key_of(token.token_id)] = token.total_supply

    def _topic(self, update: Any) -> None:
        topic = update.value.topic_value
        self.topic_ids.append(topic.topic_id)
        if topic.sequence_number != 0:
            self.topic_messages[key_of(topic.topic_id)] = TopicMessage(bytes(topic.running_hash), topic.sequence_number)

    # What transformers take from the context.

    def account(self, account_id: Any) -> Any | None:
        return self.accounts.get(key_of(account_id))

    def new_file_id(self) -> Any | None:
        return self.file_ids.pop() if self.file_ids else None

    def new_node_id(self) -> int | None:
        return self.node_ids.pop() if self.node_ids else None

    def new_registered_node_id(self) -> int | None:
        return self.registered_node_ids.pop() if self.registered_node_ids else None

    def new_token_id(self) -> Any | None:
        return self.token_ids.pop() if self.token_ids else None

    def new_topic_id(self) -> Any | None:
        return self.topic_ids.pop() if self.topic_ids else None

    def topic_message(self, topic_id: Any) -> TopicMessage | None:
        """The topic's running hash and sequence number, once (the latest submit takes it)."""
        return self.topic_messages.pop(key_of(topic_id), None)

    def track_token_supply(self, token_id: Any, change: int) -> int | None:
        """The token's supply after this transaction, then moved back by ``change`` for the one
        before it (negative for a mint, positive for a burn or wipe); None when no state says it."""
        key = key_of(token_id)
        supply = self.token_supplies.get(key)
        if supply is not None:
            self.token_supplies[key] = supply + change
        return supply

    def track_pending_airdrop(self, airdrop_id: Any, change: int) -> int | None:
        """The pending amount of a fungible airdrop after this transaction, the rest kept for an
        earlier one; None when no state says it."""
        key = key_of(airdrop_id)
        amount = self.pending_fungible_airdrops.pop(key, None)
        if amount is not None and change < amount:
            self.pending_fungible_airdrops[key] = amount - change
        return amount

    def storage_at(self, contract_id: Any, index: int) -> tuple[bytes, bytes] | None:
        """The contract's ``index``-th written slot and its value (an implicit slot read)."""
        written = self.storage_by_contract.get(key_of(contract_id), [])
        return written[index] if 0 <= index < len(written) else None


_UPDATES = {
    STATE_ID_ACCOUNTS: StateContext._account,
    STATE_ID_BYTECODE: StateContext._bytecode,
    STATE_ID_STORAGE: StateContext._storage,
    STATE_ID_FILES: StateContext._file,
    STATE_ID_NODES: StateContext._node,
    STATE_ID_PENDING_AIRDROPS: StateContext._pending_airdrop,
    STATE_ID_TOKENS: StateContext._token,
    STATE_ID_TOPICS: StateContext._topic,
    STATE_ID_EVM_HOOK_STORAGE: StateContext._hook_storage,
    STATE_ID_REGISTERED_NODES: StateContext._registered_node,
}
