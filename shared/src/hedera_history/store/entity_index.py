"""The entity index: which transactions created, updated or deleted an account or contract, and
which aliases and EVM addresses name it. Pure: keys and what one transaction contributes.

Its rows live in ``account_history`` beside the accounts' histories, under keys no account key can
take (those start with a digit, these with a letter), each with the one cell an account's history
entry has (``a:block``: where the transaction is), so the errata machinery corrects them with the
entry's other index cells, and a reader checks their block's completion the same way:

- ``entity/<shard.realm.num>/<one's complement of the consensus ns, hex16>``: a successful
  CryptoCreate, CryptoUpdate, CryptoDelete, ContractUpdate or ContractDelete of the entity, or a
  record creating it as a contract (``contractCreateResult``, also of an Ethereum transaction or a
  child create). An ascending scan from a time is the entity's changes at or before it, newest
  first: where its key, memo or deletion as of that time are read (``store.reader_entities``).
- ``alias/<hex of the alias>/<shard.realm.num>``: an alias the entity got at its creation: the
  record's ``alias`` (a key's bytes, or a 20-byte EVM address for a lazy create), the body's, the
  record's ``evm_address`` (an ECDSA key alias's address), a created contract's ``evm_address``.
  Long-zero EVM addresses are not indexed: they are computed from the id.

Updates naming their account by alias (not by number) are not indexed: the record does not resolve
them. A hollow account's key completed by its first transaction (no update is in the stream) is not
seen either. Rows are few (one per creation, update or deletion) and written with the block's rows,
so the stream and a backfill write them alike.
"""

from __future__ import annotations

from typing import Any

from hedera_history.errors import RowLayoutError
from hedera_history.store.accounts import entity_text
from hedera_history.store.keys import (
    ACCOUNT_SEPARATOR,
    check_entity_id,
    decode_hex16,
    hex16,
    ones_complement,
    prefix_end,
)

ENTITY_PREFIX = b"entity/"
ALIAS_PREFIX = b"alias/"
TOPIC_PREFIX = b"topic/"
"""A topic's messages by sequence number (``store.topic_index``), kept with this index's rows."""
STAKE_PREFIX = b"stake/"
"""The network's NodeStakeUpdate transactions, newest first (``store.stake_index``)."""
AIRDROP_PREFIX = b"airdrop/"
"""Pending airdrops' changes by sender and by receiver (``store.airdrop_index``)."""
SCHEDULE_PREFIX = b"schedule/"
"""The transactions of each schedule, by schedule id (``store.schedule_index``)."""
REWARD_PREFIX = b"reward/"
"""Staking rewards paid, by account, newest first (``store.reward_index``)."""
REGISTERED_NODE_PREFIX = b"regnode/"
"""Registered nodes' creations, updates and deletions, by node id (``store.registered_node_index``)."""
CONTRACT_RESULT_PREFIX = b"cresult/"
"""Contract results by time (``store.contract_index``)."""
CONTRACT_LOG_PREFIX = b"clog/"
"""The transactions each contract emitted logs in, newest first (``store.contract_index``)."""
TOKEN_INDEX_PREFIXES = (b"supply/", b"holder/", b"tokenrel/", b"nft/", b"nftowner/", b"allowance/", b"tokenlist/")
"""Token supply, balances, relationships, NFTs, allowances and creations by id (``store.token_index``)."""
_INDEX_PREFIXES = (
    ENTITY_PREFIX,
    ALIAS_PREFIX,
    TOPIC_PREFIX,
    STAKE_PREFIX,
    AIRDROP_PREFIX,
    SCHEDULE_PREFIX,
    REWARD_PREFIX,
    REGISTERED_NODE_PREFIX,
    CONTRACT_RESULT_PREFIX,
    CONTRACT_LOG_PREFIX,
    *TOKEN_INDEX_PREFIXES,
)
EVM_ADDRESS_BYTES = 20
_LONG_ZERO = bytes(12)
"""An EVM address starting with 12 zero bytes is the long-zero form of ``shard.realm.num``."""
SUCCESS = 22
"""``ResponseCodeEnum.SUCCESS``, the receipt status this index and the token, airdrop, schedule, topic
and file indexes follow."""
_BODY_CHANGES = {
    "cryptoUpdateAccount": "accountIDToUpdate",
    "cryptoDelete": "deleteAccountID",
    "contractUpdateInstance": "contractID",
    "contractDeleteInstance": "contractID",
}
"""Body cases that change an existing entity -> the field naming it."""


def entity_index_keys(body: Any | None, record: Any, consensus_ns: int) -> list[bytes]:
    """The index rows of one transaction (usually none): its entity changes, then its aliases."""
    if record.receipt.status != SUCCESS:
        return []
    case = body.WhichOneof("data") if body is not None else None
    if case not in _BODY_CHANGES and case != "cryptoCreateAccount" and not record.HasField("contractCreateResult"):
        return []
    created = created_entity(case, record)
    keys: list[bytes] = []
    if case in _BODY_CHANGES:
        changed = entity_text(getattr(getattr(body, case), _BODY_CHANGES[case]))
        if changed is not None:
            keys.append(entity_change_key(changed, consensus_ns))
    if created is not None:
        keys.append(entity_change_key(created, consensus_ns))
        keys.extend(alias_key(alias, created) for alias in creation_aliases(body, case, record))
    return keys


def created_entity(case: str | None, record: Any) -> str | None:
    """The account or contract the record created (``case``: its body's ``data`` case)."""
    if case == "cryptoCreateAccount":
        return entity_text(record.receipt.accountID)
    if record.HasField("contractCreateResult"):
        result = record.contractCreateResult
        return entity_text(result.contractID if result.HasField("contractID") else record.receipt.contractID)
    return None


def creation_aliases(body: Any, case: str | None, record: Any) -> list[bytes]:
    """The aliases and EVM addresses a creation gave its entity, long-zero addresses left out."""
    found: list[bytes] = []
    if case == "cryptoCreateAccount":
        found += [bytes(record.alias) or bytes(body.cryptoCreateAccount.alias), bytes(record.evm_address)]
    if record.HasField("contractCreateResult") and record.contractCreateResult.HasField("evm_address"):
        found.append(bytes(record.contractCreateResult.evm_address.value))
    kept: list[bytes] = []
    for alias in found:
        long_zero = len(alias) == EVM_ADDRESS_BYTES and alias.startswith(_LONG_ZERO)
        if alias and not long_zero and alias not in kept:
            kept.append(alias)
    return kept


def entity_change_key(entity: str, consensus_ns: int) -> bytes:
    return ENTITY_PREFIX + check_entity_id(entity).encode() + ACCOUNT_SEPARATOR + hex16(ones_complement(consensus_ns))


def entity_change_range(entity: str, at_ns: int | None) -> tuple[bytes, bytes]:
    """``[start, end)`` of the entity's changes at or before ``at_ns`` (None: all), newest first."""
    prefix = ENTITY_PREFIX + check_entity_id(entity).encode() + ACCOUNT_SEPARATOR
    start = prefix if at_ns is None else prefix + hex16(ones_complement(at_ns))
    return start, prefix_end(prefix)


def decode_entity_change_key(key: bytes) -> tuple[str, int]:
    """``(entity, consensus ns)`` of an entity-change row key."""
    head, sep, tail = key.rpartition(ACCOUNT_SEPARATOR)
    if not key.startswith(ENTITY_PREFIX) or not sep:
        raise RowLayoutError(f"not an entity change key: {key!r}")
    return check_entity_id(head[len(ENTITY_PREFIX) :].decode("ascii", "replace")), ones_complement(decode_hex16(tail))


def alias_key(alias: bytes, entity: str) -> bytes:
    return alias_prefix(alias) + check_entity_id(entity).encode()


def alias_prefix(alias: bytes) -> bytes:
    """What every row of ``alias`` starts with (the separator keeps a 20-byte address from matching a
    longer alias that starts with the same bytes)."""
    return ALIAS_PREFIX + alias.hex().encode() + ACCOUNT_SEPARATOR


def decode_alias_key(key: bytes) -> str:
    """The entity an alias row names."""
    _, sep, entity = key.rpartition(ACCOUNT_SEPARATOR)
    if not key.startswith(ALIAS_PREFIX) or not sep:
        raise RowLayoutError(f"not an alias key: {key!r}")
    return check_entity_id(entity.decode("ascii", "replace"))


def is_entity_index_key(key: bytes) -> bool:
    """Whether an ``account_history`` key is one of this index's (not an account's history entry)."""
    return key.startswith(_INDEX_PREFIXES)
