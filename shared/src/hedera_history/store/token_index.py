"""The token index: tokens, their supply, who holds them, relationships, NFTs and allowances, as
history. Pure: keys and what one transaction contributes.

Its rows live in ``account_history`` beside the entity index (``store.entity_index``), each with the
one cell an account's history entry has (``a:block``: where the transaction is), so errata correct
them (an errata's item gives its own keys; the original's get a tombstone) and readers check their
block's completion alike. A balance change is carried in its key, so a balance is one range read
summing keys, without reading the transactions:

- ``entity/<token>/<one's complement of the consensus ns>``: a successful TokenCreate, TokenUpdate,
  TokenDelete, TokenPause, TokenUnpause or TokenFeeScheduleUpdate (tokens share the entity number
  space with accounts and topics), folded into the token as of a time.
- ``supply/<token>/<~ns>``: a mint, burn or wipe, whose receipt's ``newTotalSupply`` is the supply.
- ``holder/<token>/<account>/<~ns>/<signed change>``: the change of ``account``'s balance of the
  token in one transaction, from the record's token transfer lists (units for a fungible token, NFTs
  for a non-fungible one).
- ``tokenrel/<account>/<token>/<~ns>/<event>``: the events of the relationship: ``associate``,
  ``auto`` (an automatic association), ``dissociate``, ``treasury`` (a token created with the account
  as its treasury), ``frozen``, ``unfrozen``, ``kyc``, ``nokyc``; and ``held``, one marker per
  (account, token) per block whose transfers change that balance, at the first such transaction of
  the block (of the item range, when the stream builds a block in ranges: ``store.rows``), so the
  account's token set is whole when its association predates the history kept. The balance itself
  is read from ``holder/`` (``store.reader_tokens.account_balances``).
- ``nft/<token>/<serial, hex16>/<~ns>/<owner>``: an NFT minted or transferred to ``owner``, or burnt or
  wiped (owner ``-``).
- ``nftowner/<account>/<token>/<serial, hex16>/<~ns>/<+ or ->``: the NFT came to or left ``account``.
- ``allowance/<owner>/<~ns>``: a CryptoApproveAllowance or CryptoDeleteAllowance naming ``owner``, or
  a transfer spending one of its allowances (``is_approval``), folded into its allowances by a reader.
- ``tokenlist/<token, encoded id hex16>/<consensus ns, hex16>/<f or n>``: the token's successful
  TokenCreate (``f``: fungible, ``n``: non-fungible, which never changes), one row per token in the
  reference's encoded-id order (``store.keys.encode_entity``), so a page of ``/tokens`` is
  one scan from a token id (``store.reader_token_list``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, NamedTuple
from weakref import WeakKeyDictionary

from hedera_history.errors import RowLayoutError
from hedera_history.store.accounts import entity_text
from hedera_history.store.entity_index import SUCCESS, TOKEN_INDEX_PREFIXES, entity_change_key
from hedera_history.store.keys import (
    ACCOUNT_SEPARATOR,
    check_entity_id,
    decode_hex16,
    encode_entity,
    entity_id,
    hex16,
    ones_complement,
    prefix_end,
)

(
    SUPPLY_PREFIX,
    HOLDER_PREFIX,
    RELATION_PREFIX,
    NFT_PREFIX,
    NFT_OWNER_PREFIX,
    ALLOWANCE_PREFIX,
    TOKEN_LIST_PREFIX,
) = TOKEN_INDEX_PREFIXES
NON_FUNGIBLE = 1
"""``TokenType.NON_FUNGIBLE_UNIQUE``."""
_LISTED_TYPES = {False: b"f", True: b"n"}
NO_OWNER = "-"
TOKEN_CHANGES = {
    "tokenUpdate": "token",
    "tokenDeletion": "token",
    "token_pause": "token",
    "token_unpause": "token",
    "token_fee_schedule_update": "token_id",
}
"""Body cases that change a token's definition -> the field naming it."""
_SUPPLY_CASES = frozenset({"tokenMint", "tokenBurn", "tokenWipe"})
_RELATION_EVENTS = {
    "tokenFreeze": "frozen",
    "tokenUnfreeze": "unfrozen",
    "tokenGrantKyc": "kyc",
    "tokenRevokeKyc": "nokyc",
}
HELD = "held"
"""The marker of a block that changes the account's balance of the token."""
_HELD = HELD.encode()
RELATION_EVENTS = frozenset({"associate", "auto", "dissociate", "treasury", HELD, *_RELATION_EVENTS.values()})
_ALLOWANCE_CASES = frozenset({"cryptoApproveAllowance", "cryptoDeleteAllowance"})
_APPROVAL_MARKS = (b"\x18\x01", b"\x20\x01")
"""``is_approval: true`` as encoded in an AccountAmount (field 3) and an NftTransfer (field 4): bytes
without either hold no approved transfer (reading every transfer of the decoded body costs more)."""
_TOKEN_CASES = frozenset(
    {"tokenCreation", "tokenAssociate", "tokenDissociate", *TOKEN_CHANGES, *_SUPPLY_CASES, *_RELATION_EVENTS}
)
"""Body cases whose ``data`` this index reads."""


class Held(NamedTuple):
    """What a ``tokenrel`` or ``holder`` key says."""

    account: str
    token: str
    consensus_ns: int
    event: str
    """A relationship event, or a balance change as ``+n`` / ``-n``."""

    @property
    def change(self) -> int | None:
        return int(self.event) if self.event[:1] in ("+", "-") else None


def token_index_keys(
    case: str | None,
    body: Any,
    record: Any,
    consensus_ns: int,
    transaction_bytes: bytes | None = None,
    block: object | None = None,
) -> list[bytes]:
    """The token index rows of one transaction whose body's ``data`` case is ``case``: most have
    none, and are told so from what they lack before the receipt is read. Given the transaction's
    bytes, a CryptoTransfer's body is searched for approved transfers only when they may hold one.
    ``block``: what the block (or the item range of it) is built into, whose transactions mark each
    (account, token) pair ``held`` once (:func:`block_marks`); None: the transaction alone."""
    transfers, associations = record.tokenTransferLists, record.automatic_token_associations
    spent = approved_debits(case, body) if case == "cryptoTransfer" and may_approve(transaction_bytes) else []
    if not (case in _TOKEN_CASES or case in _ALLOWANCE_CASES or transfers or associations or spent):
        return []
    if record.receipt.status != SUCCESS:
        return []
    keys: list[bytes] = []
    data: Any = getattr(body, case) if case in _TOKEN_CASES else None
    if case == "tokenCreation":
        keys += _creation_keys(data, record.receipt.tokenID, consensus_ns)
    elif case in TOKEN_CHANGES:
        token = token_text(getattr(data, TOKEN_CHANGES[case]))
        keys += [] if token is None else [entity_change_key(token, consensus_ns)]
    elif case in _SUPPLY_CASES:
        token = token_text(data.token)
        keys += [] if token is None else [SUPPLY_PREFIX + _token_part(token) + _time(consensus_ns)]
    elif case in _RELATION_EVENTS or case in ("tokenAssociate", "tokenDissociate"):
        keys += _relation_events(case, data, consensus_ns)
    for association in associations:
        token, account = token_text(association.token_id), entity_text(association.account_id)
        if token is not None and account is not None:
            keys.append(relation_key(account, token, consensus_ns, "auto"))
    if transfers:
        keys += token_transfer_keys(transfers, consensus_ns, None if block is None else block_marks(block))
    if case in _ALLOWANCE_CASES or spent:
        keys += [allowance_key(owner, consensus_ns) for owner in allowance_owners(case, body, spent)]
    return keys


def _creation_keys(data: Any, token_id: Any, consensus_ns: int) -> list[bytes]:
    token = token_text(token_id)
    if token is None:
        return []
    keys = [entity_change_key(token, consensus_ns)]
    listed = encode_entity(token_id.shardNum, token_id.realmNum, token_id.tokenNum)
    if listed is not None:
        keys.append(token_list_key(listed, consensus_ns, data.tokenType == NON_FUNGIBLE))
    treasury = entity_text(data.treasury)
    if treasury is not None:
        keys.append(relation_key(treasury, token, consensus_ns, "treasury"))
    return keys


def _relation_events(case: str, data: Any, consensus_ns: int) -> list[bytes]:
    account = entity_text(data.account)
    if account is None:
        return []
    if case in _RELATION_EVENTS:
        token = token_text(data.token)
        return [] if token is None else [relation_key(account, token, consensus_ns, _RELATION_EVENTS[case])]
    event = "associate" if case == "tokenAssociate" else "dissociate"
    tokens = (token_text(t) for t in data.tokens)
    return [relation_key(account, token, consensus_ns, event) for token in tokens if token is not None]


def block_marks(scope: object) -> set[bytes]:
    """The pairs marked ``held`` so far in ``scope`` (the row set one block, or one item range of
    it, is built into): kept beside it while it lives, so the row builder's state stays its own."""
    marks = _MARKS.get(scope)
    if marks is None:
        marks = _MARKS[scope] = set()
    return marks


_MARKS: WeakKeyDictionary[object, set[bytes]] = WeakKeyDictionary()


def token_transfer_keys(transfers: Any, consensus_ns: int, marked: set[bytes] | None = None) -> list[bytes]:
    """The rows of a record's token transfer lists, built in place (the ids come from the record, so
    they are canonical; a token transfer is most of the index's rows): what :func:`holder_key`,
    :func:`relation_key` (a ``held`` marker for a pair not in ``marked``), :func:`nft_key` and
    :func:`nft_owner_key` give."""
    marked = set() if marked is None else marked
    time = _time(consensus_ns) + ACCOUNT_SEPARATOR
    keys: list[bytes] = []
    for listed in transfers:
        token = token_text(listed.token)
        if token is None:
            continue
        token_part = token.encode() + ACCOUNT_SEPARATOR
        changes: dict[str, int] = defaultdict(int)
        for amount in listed.transfers:
            account = entity_text(amount.accountID)
            if account is not None:
                changes[account] += amount.amount
        for nft in listed.nftTransfers:
            sender, receiver = entity_text(nft.senderAccountID), entity_text(nft.receiverAccountID)
            serial = hex16(nft.serialNumber) + ACCOUNT_SEPARATOR
            keys.append(NFT_PREFIX + token_part + serial + time + (receiver or NO_OWNER).encode())
            for account, direction, change in ((sender, b"-", -1), (receiver, b"+", 1)):
                if account is not None:
                    changes[account] += change
                    keys.append(
                        NFT_OWNER_PREFIX + account.encode() + ACCOUNT_SEPARATOR + token_part + serial + time + direction
                    )
        for account, change in changes.items():
            if change:
                account_part, event = account.encode() + ACCOUNT_SEPARATOR, b"%+d" % change
                keys.append(HOLDER_PREFIX + token_part + account_part + time + event)
                pair = account_part + token_part
                if pair not in marked:
                    marked.add(pair)
                    keys.append(RELATION_PREFIX + pair + time + _HELD)
    return keys


class ApprovedDebit(NamedTuple):
    """An amount a transfer took from ``owner`` under an allowance (``is_approval``)."""

    owner: str
    token: str | None
    """None: hbar."""
    amount: int
    """Units or tinybar; 1 for an NFT."""


def may_approve(transaction_bytes: bytes | None) -> bool:
    """Whether a CryptoTransfer's bytes may hold an approved transfer (``is_approval`` set)."""
    if transaction_bytes is None:
        return True
    field_3, field_4 = _APPROVAL_MARKS
    return field_3 in transaction_bytes or field_4 in transaction_bytes


def approved_debits(case: str | None, body: Any) -> list[ApprovedDebit]:
    """What a CryptoTransfer took under allowances: its body says which transfers were approved
    (its record's transfer lists do not). A contract's transfers under an allowance are the
    contract's spending, not the payer's, and are not followed."""
    if case != "cryptoTransfer":
        return []
    data = body.cryptoTransfer
    moved: list[tuple[str | None, Any]] = [(None, a) for a in data.transfers.accountAmounts if a.is_approval]
    debits: list[ApprovedDebit] = []
    if data.tokenTransfers:
        for listed in data.tokenTransfers:
            token = token_text(listed.token)
            moved += [(token, a) for a in listed.transfers if a.is_approval]
            for nft in listed.nftTransfers:
                sender = entity_text(nft.senderAccountID) if nft.is_approval else None
                if sender is not None:
                    debits.append(ApprovedDebit(sender, token, 1))
    for token, amount in moved:
        owner = entity_text(amount.accountID) if amount.amount < 0 else None
        if owner is not None:
            debits.append(ApprovedDebit(owner, token, -amount.amount))
    return debits


def allowance_owners(case: str | None, body: Any, spent: list[ApprovedDebit]) -> list[str]:
    """The owners whose allowances a transaction grants, deletes or spends (an allowance without an
    owner is the payer's)."""
    payer = entity_text(body.transactionID.accountID)
    named: list[Any] = []
    if case == "cryptoApproveAllowance":
        data = body.cryptoApproveAllowance
        named = [a.owner for a in (*data.cryptoAllowances, *data.tokenAllowances, *data.nftAllowances)]
    elif case == "cryptoDeleteAllowance":
        named = [a.owner for a in body.cryptoDeleteAllowance.nftAllowances]
    owners = [entity_text(owner) if owner.accountNum > 0 else payer for owner in named]
    owners += [debit.owner for debit in spent]
    return sorted({owner for owner in owners if owner is not None})


def token_text(token_id: Any) -> str | None:
    """``shard.realm.num`` of a TokenID, None when it names no token."""
    return entity_id(token_id.shardNum, token_id.realmNum, token_id.tokenNum) if token_id.tokenNum > 0 else None


def token_list_key(token: int, consensus_ns: int, non_fungible: bool) -> bytes:
    """The ``tokenlist/`` row of the token (encoded id) created at ``consensus_ns``."""
    return token_list_prefix(token) + hex16(consensus_ns) + ACCOUNT_SEPARATOR + _LISTED_TYPES[non_fungible]


def token_list_prefix(token: int) -> bytes:
    return TOKEN_LIST_PREFIX + hex16(token) + ACCOUNT_SEPARATOR


def token_list_range(low: int, high: int | None) -> tuple[bytes, bytes]:
    """``[start, end)`` of the ``tokenlist/`` rows of tokens with encoded ids in ``[low, high]``
    (None: no end)."""
    end = prefix_end(TOKEN_LIST_PREFIX) if high is None else token_list_prefix(high + 1)
    return token_list_prefix(low), end


def decode_token_list_key(key: bytes) -> tuple[int, int, bool]:
    """``(token, consensus ns, non-fungible)`` of a ``tokenlist/`` row."""
    _, token, time, kind = _parts(key, TOKEN_LIST_PREFIX, 4)
    if kind not in _LISTED_TYPES.values():
        raise RowLayoutError(f"not a token type: {kind!r}")
    return decode_hex16(token), decode_hex16(time), kind == _LISTED_TYPES[True]


def _token_part(entity: str) -> bytes:
    return check_entity_id(entity).encode() + ACCOUNT_SEPARATOR


def _time(consensus_ns: int) -> bytes:
    return hex16(ones_complement(consensus_ns))


def supply_range(token: str, at_ns: int | None) -> tuple[bytes, bytes]:
    """``[start, end)`` of the token's mints, burns and wipes at or before ``at_ns``, newest first."""
    return _from_time(SUPPLY_PREFIX + _token_part(token), at_ns)


def decode_supply_key(key: bytes) -> int:
    """The consensus ns of a supply row."""
    return ones_complement(decode_hex16(_parts(key, SUPPLY_PREFIX, 3)[2]))


def holder_key(token: str, account: str, consensus_ns: int, change: int) -> bytes:
    return _pair_key(holder_prefix(token, account), consensus_ns, b"%+d" % change)


def holder_prefix(token: str, account: str | None = None) -> bytes:
    """What every row of the token's holders (of one holder, when given) starts with."""
    return _pair_prefix(HOLDER_PREFIX, token, account)


def holder_range(token: str, account: str, after_ns: int, until_ns: int) -> tuple[bytes, bytes]:
    """``[start, end)`` of ``account``'s changes of the token after ``after_ns`` up to ``until_ns``."""
    prefix = holder_prefix(token, account)
    return prefix + _time(until_ns), prefix + _time(after_ns)


def decode_holder_key(key: bytes) -> Held:
    token, account, consensus_ns, change = _decode_pair(key, HOLDER_PREFIX)
    return Held(account, token, consensus_ns, change)


def relation_key(account: str, token: str, consensus_ns: int, event: str) -> bytes:
    return _pair_key(relation_prefix(account, token), consensus_ns, event.encode())


def relation_prefix(account: str, token: str | None = None) -> bytes:
    """What every relationship row of ``account`` (with ``token``, when given) starts with."""
    return _pair_prefix(RELATION_PREFIX, account, token)


def decode_relation_key(key: bytes) -> Held:
    account, token, consensus_ns, event = _decode_pair(key, RELATION_PREFIX)
    return Held(account, token, consensus_ns, event)


def _pair_prefix(prefix: bytes, first: str, second: str | None) -> bytes:
    return prefix + _token_part(first) + (b"" if second is None else _token_part(second))


def _pair_key(pair_prefix: bytes, consensus_ns: int, event: bytes) -> bytes:
    return pair_prefix + _time(consensus_ns) + ACCOUNT_SEPARATOR + event


def _decode_pair(key: bytes, prefix: bytes) -> tuple[str, str, int, str]:
    """``(first entity, second entity, consensus ns, event)`` of a ``holder`` or ``tokenrel`` key."""
    _, first, second, time, event = _parts(key, prefix, 5)
    return _entity(first), _entity(second), ones_complement(decode_hex16(time)), _event(event)


def nft_key(token: str, serial: int, consensus_ns: int, owner: str) -> bytes:
    return nft_prefix(token, serial) + _time(consensus_ns) + ACCOUNT_SEPARATOR + owner.encode()


def nft_prefix(token: str, serial: int | None = None) -> bytes:
    """What every row of the token's NFTs (of one serial, when given) starts with."""
    prefix = NFT_PREFIX + _token_part(token)
    return prefix if serial is None else prefix + hex16(serial) + ACCOUNT_SEPARATOR


def decode_nft_key(key: bytes) -> tuple[str, int, int, str | None]:
    """``(token, serial, consensus ns, owner)`` of an NFT row; owner None: burnt or wiped."""
    _, token, serial, time, owner = _parts(key, NFT_PREFIX, 5)
    text = owner.decode("ascii", "replace")
    return (
        _entity(token),
        decode_hex16(serial),
        ones_complement(decode_hex16(time)),
        None if text == NO_OWNER else _entity(owner),
    )


def nft_owner_key(account: str, token: str, serial: int, consensus_ns: int, direction: str) -> bytes:
    prefix = NFT_OWNER_PREFIX + _token_part(account) + _token_part(token) + hex16(serial) + ACCOUNT_SEPARATOR
    return prefix + _time(consensus_ns) + ACCOUNT_SEPARATOR + direction.encode()


def nft_owner_prefix(account: str) -> bytes:
    return NFT_OWNER_PREFIX + _token_part(account)


def decode_nft_owner_key(key: bytes) -> tuple[str, int, int, bool]:
    """``(token, serial, consensus ns, came)`` of an ``nftowner`` row (came: the NFT came to the account)."""
    _, _, token, serial, time, direction = _parts(key, NFT_OWNER_PREFIX, 6)
    return _entity(token), decode_hex16(serial), ones_complement(decode_hex16(time)), direction == b"+"


def allowance_key(owner: str, consensus_ns: int) -> bytes:
    return ALLOWANCE_PREFIX + _token_part(owner) + _time(consensus_ns)


def allowance_range(owner: str, at_ns: int | None) -> tuple[bytes, bytes]:
    """``[start, end)`` of the owner's allowance transactions at or before ``at_ns``, newest first."""
    return _from_time(ALLOWANCE_PREFIX + _token_part(owner), at_ns)


def decode_allowance_key(key: bytes) -> int:
    return ones_complement(decode_hex16(_parts(key, ALLOWANCE_PREFIX, 3)[2]))


def prefix_range(prefix: bytes) -> tuple[bytes, bytes]:
    return prefix, prefix_end(prefix)


def _from_time(prefix: bytes, at_ns: int | None) -> tuple[bytes, bytes]:
    return (prefix if at_ns is None else prefix + _time(at_ns)), prefix_end(prefix)


def _parts(key: bytes, prefix: bytes, count: int) -> list[bytes]:
    parts = key.split(ACCOUNT_SEPARATOR)
    if not key.startswith(prefix) or len(parts) != count:
        raise RowLayoutError(f"not a {prefix.decode()} key: {key!r}")
    return parts


def _entity(part: bytes) -> str:
    return check_entity_id(part.decode("ascii", "replace"))


def _event(part: bytes) -> str:
    text = part.decode("ascii", "replace")
    if text not in RELATION_EVENTS and not (text[:1] in ("+", "-") and text[1:].isdigit()):
        raise RowLayoutError(f"not a token relationship event: {text!r}")
    return text
