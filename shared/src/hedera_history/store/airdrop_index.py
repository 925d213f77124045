"""The airdrop index: every change of a pending airdrop (HIP-904), by sender and by receiver. Pure:
keys and what one transaction contributes.

Its rows live in ``account_history`` beside the entity index (``store.entity_index``), under keys
no account key can take, each with the one cell an account's history entry has (``a:block``: where
the transaction is), so errata correct them and readers check their block's completion alike. One
change is two rows, one per side:

- ``airdrop/out/<sender>/<receiver>/<token>/<serial>/<consensus ns>/<change>``
- ``airdrop/in/<receiver>/<sender>/<token>/<serial>/<consensus ns>/<change>``

Entities are the reference's encoded ids (``store.keys.encode_entity``) as hex16, so keys
sort as the reference orders airdrops (by the other side, the token, the serial number); the serial
is 0 for a fungible token. ``<change>`` is ``p`` when a successful TokenAirdrop's record lists the
airdrop in ``new_pending_airdrops`` (pending, or more of a fungible amount pending), ``c`` when a
successful TokenClaimAirdrop names it, ``x`` when a successful TokenCancelAirdrop does: so whether an
airdrop is pending as of a time is one scan of its rows, and only the amounts need its records.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hedera_history.errors import RowLayoutError
from hedera_history.store.entity_index import AIRDROP_PREFIX, SUCCESS
from hedera_history.store.keys import ACCOUNT_SEPARATOR, decode_hex16, encode_entity, hex16

OUTSTANDING = b"out"
"""Rows by sender: ``/accounts/{id}/airdrops/outstanding``."""
PENDING = b"in"
"""Rows by receiver: ``/accounts/{id}/airdrops/pending``."""
ADDED = b"p"
CLAIMED = b"c"
CANCELLED = b"x"
_REMOVALS = {"tokenClaimAirdrop": CLAIMED, "tokenCancelAirdrop": CANCELLED}
AIRDROP_CASES = frozenset({"tokenAirdrop", *_REMOVALS})
"""Body cases this index reads; any other transaction contributes nothing."""


@dataclass(frozen=True, slots=True, order=True)
class AirdropId:
    """One pending airdrop's identity, each entity encoded; ``serial`` 0 for a fungible token."""

    sender: int
    receiver: int
    token: int
    serial: int

    def side(self, side: bytes) -> tuple[int, int]:
        """``(the account the side is listed under, the other account)``."""
        return (self.sender, self.receiver) if side == OUTSTANDING else (self.receiver, self.sender)


def airdrop_index_keys(case: str | None, body: Any, record: Any, consensus_ns: int) -> list[bytes]:
    """The index rows of one transaction whose body's ``data`` case is ``case``."""
    if case not in AIRDROP_CASES or record.receipt.status != SUCCESS:
        return []
    if case == "tokenAirdrop":
        changes = [(airdrop_id(p.pending_airdrop_id), ADDED) for p in record.new_pending_airdrops]
    else:
        change = _REMOVALS[case]
        changes = [(airdrop_id(p), change) for p in getattr(body, case).pending_airdrops]
    keys: list[bytes] = []
    for found, change in changes:
        if found is not None:
            keys += [airdrop_key(side, found, consensus_ns, change) for side in (OUTSTANDING, PENDING)]
    return keys


def airdrop_id(pending: Any) -> AirdropId | None:
    """The identity of a ``PendingAirdropId``, None when it names no sender, receiver or token."""
    which = pending.WhichOneof("token_reference")
    if which == "fungible_token_type":
        token_id, serial = pending.fungible_token_type, 0
    elif which == "non_fungible_token":
        token_id, serial = pending.non_fungible_token.token_ID, pending.non_fungible_token.serial_number
    else:
        return None
    sender, receiver = pending.sender_id, pending.receiver_id
    parts = (
        encode_entity(sender.shardNum, sender.realmNum, sender.accountNum) if sender.accountNum > 0 else None,
        encode_entity(receiver.shardNum, receiver.realmNum, receiver.accountNum) if receiver.accountNum > 0 else None,
        encode_entity(token_id.shardNum, token_id.realmNum, token_id.tokenNum) if token_id.tokenNum > 0 else None,
    )
    if any(part is None for part in parts) or serial < 0:
        return None
    sender_code, receiver_code, token_code = parts
    assert sender_code is not None and receiver_code is not None and token_code is not None
    return AirdropId(sender_code, receiver_code, token_code, serial)


def account_prefix(side: bytes, account: int) -> bytes:
    """What every row of ``account``'s airdrops on ``side`` starts with."""
    return AIRDROP_PREFIX + side + ACCOUNT_SEPARATOR + hex16(account) + ACCOUNT_SEPARATOR


def airdrop_prefix(side: bytes, found: AirdropId) -> bytes:
    """What every row of one airdrop on ``side`` starts with."""
    listed, other = found.side(side)
    return account_prefix(side, listed) + ACCOUNT_SEPARATOR.join(
        (hex16(other), hex16(found.token), hex16(found.serial))
    )


def airdrop_key(side: bytes, found: AirdropId, consensus_ns: int, change: bytes) -> bytes:
    return ACCOUNT_SEPARATOR.join((airdrop_prefix(side, found), hex16(consensus_ns), change))


def decode_airdrop_key(key: bytes) -> tuple[AirdropId, int, bytes]:
    """``(airdrop, consensus ns, change)`` of an airdrop row key."""
    parts = key[len(AIRDROP_PREFIX) :].split(ACCOUNT_SEPARATOR)
    if not key.startswith(AIRDROP_PREFIX) or len(parts) != 7 or parts[0] not in (OUTSTANDING, PENDING):
        raise RowLayoutError(f"not an airdrop key: {key!r}")
    side, listed, other, token, serial, consensus, change = parts
    if change not in (ADDED, CLAIMED, CANCELLED):
        raise RowLayoutError(f"not an airdrop change: {key!r}")
    first, second = decode_hex16(listed), decode_hex16(other)
    sender, receiver = (first, second) if side == OUTSTANDING else (second, first)
    return AirdropId(sender, receiver, decode_hex16(token), decode_hex16(serial)), decode_hex16(consensus), change
