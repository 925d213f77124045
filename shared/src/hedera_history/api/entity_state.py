"""An account's or contract's properties as of a consensus time, from the history we keep: its
creation and the updates and deletion after it (``store.reader_entities``), folded oldest first,
the way the reference's importer folds them into its entity table.

What a creation sets: the key (a contract's admin key), the memo, the alias and EVM address it was
given, its creation time. An update sets what it carries (the key; the memo when its wrapper is
set); a deletion marks it deleted. An entity whose creation is not in the history (created before
the first block kept, or aged out) has what its later changes set and nothing else: the fields
they do not set stay unknown (None), as the key of an account never updated does.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any

from hedera_history.api.entities import entity_string
from hedera_history.errors import CorruptFileError, RowDecodeError
from hedera_history.formats.transactions import transaction_body
from hedera_history.store.decode import StoredTransaction
from hedera_history.store.entity_index import EVM_ADDRESS_BYTES, created_entity, creation_aliases
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import entity_changes

_ED25519 = re.compile(r"^(?:1220|32240a221220|2a28080112240a221220)([0-9a-f]{64})$")
_ECDSA = re.compile(r"^(?:3a21|32250a233a21|2a29080112250a233a21)([0-9a-f]{66})$")
"""A primitive key, a key list of one, or a 1-of-1 threshold key, as the reference recognises them."""
_EMPTY_KEY_LIST = "3200"
"""An empty key list: the reference's "immutable" sentinel, answered as no key."""
_CREATION_KEYS = {"cryptoCreateAccount": "key", "contractCreateInstance": "adminKey"}
"""Creation bodies -> their key field (they also carry ``memo``); other creations (a contract an
Ethereum transaction or a call created) set neither."""
_UPDATES = {"cryptoUpdateAccount": ("key", "memo"), "contractUpdateInstance": ("adminKey", "memoWrapper")}
"""Update bodies -> their key field and their memo wrapper (set: the memo changes)."""


@dataclass
class EntityState:
    key: bytes | None = None
    """The ``Key`` protobuf bytes in force, None when history shows none."""
    created_ns: int | None = None
    memo: str | None = None
    deleted: bool | None = None
    alias: bytes | None = None
    """A key alias (an EVM-address alias is ``evm_address``)."""
    evm_address: bytes | None = None
    file_id: str | None = None
    """The file a contract's initcode came from (its ContractCreate's ``fileID``)."""
    contract: bool | None = None
    """Created as a contract (False: as an account; None: creation not in history)."""
    changed_ns: int | None = None
    """The newest change by then (creation, update or deletion)."""
    found: bool = False
    """History has a creation or change of the entity by then."""
    errors: tuple[RowDecodeError, ...] = ()


def entity_state(reader: HistoryReader, entity: str, at_ns: int | None = None) -> EntityState:
    """The entity as of ``at_ns`` (None: now)."""
    changes = entity_changes(reader, entity, at_ns)
    newest = changes.transactions[0].consensus_ns if changes.transactions else None
    state = EntityState(changed_ns=newest, found=newest is not None, errors=changes.errors)
    for transaction in reversed(changes.transactions):
        _apply(state, entity, transaction)
    return state


def _apply(state: EntityState, entity: str, transaction: StoredTransaction) -> None:
    try:
        body: Any = transaction_body(transaction.transaction_bytes)
    except CorruptFileError:
        return
    record = transaction.record()
    case = body.WhichOneof("data")
    data: Any = getattr(body, case) if case is not None else None
    if created_entity(case, record) == entity:
        key_field = _CREATION_KEYS.get(case or "")
        key = getattr(data, key_field) if key_field is not None and data.HasField(key_field) else None
        state.created_ns = transaction.consensus_ns
        state.contract = case != "cryptoCreateAccount"
        state.key = None if key is None else bytes(key.SerializeToString())
        state.memo = data.memo if key_field is not None else ""
        state.deleted = False
        if case == "contractCreateInstance" and data.HasField("fileID"):
            state.file_id = entity_string(data.fileID, "fileNum")
        for alias in creation_aliases(body, case, record):
            if len(alias) == EVM_ADDRESS_BYTES:
                state.evm_address = alias
            else:
                state.alias = alias
    elif case in _UPDATES:
        key_field, memo_field = _UPDATES[case]
        if data.HasField(key_field):
            state.key = bytes(getattr(data, key_field).SerializeToString())
        if data.HasField(memo_field):
            state.memo = getattr(data, memo_field).value
    elif case in ("cryptoDelete", "contractDeleteInstance"):
        state.deleted = True


def render_key(key: bytes | None) -> dict[str, str] | None:
    """A ``Key`` as the reference answers it: ``ED25519`` / ``ECDSA_SECP256K1`` with the public key
    in hex for a primitive key (alone, in a list of one, or 1-of-1), else ``ProtobufEncoded`` with
    the whole protobuf in hex; None for no key or an empty key list."""
    if key is None:
        return None
    encoded = key.hex()
    if encoded == _EMPTY_KEY_LIST:
        return None
    for kind, pattern in (("ED25519", _ED25519), ("ECDSA_SECP256K1", _ECDSA)):
        match = pattern.fullmatch(encoded)
        if match is not None:
            return {"_type": kind, "key": match.group(1)}
    return {"_type": "ProtobufEncoded", "key": encoded}


def render_alias(alias: bytes | None) -> str | None:
    """RFC 4648 base32 without padding, as the reference gives an alias."""
    return None if alias is None else base64.b32encode(alias).decode().rstrip("=")
