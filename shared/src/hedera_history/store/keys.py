"""Every row key and consensus-time qualifier, in one place.

Numbers are 16 lowercase hex digits, so byte order is numeric order. Account history inverts the
consensus time (one's complement) so an ascending scan of one account's rows is newest first.
``transactions`` and ``sidecars`` keys put a time bucket before the time (layout 3), so writes in
time order spread over 16 ranges; ``store.time_rows`` reads them, and the plain keys of layouts 1
and 2, by time. The system accounts' ``account_history`` keys (the fee collector and reward
accounts are in every transaction) carry the same bucket, as a letter after the account.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hedera_history.errors import RowDecodeError, RowLayoutError

MAX_U64 = (1 << 64) - 1
_ENTITY = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")
_HEX16 = re.compile(rb"[0-9a-f]{16}")
ACCOUNT_SEPARATOR = b"/"


def hex16(value: int) -> bytes:
    """``value`` as 16 lowercase hex digits; it must fit in an unsigned 64-bit integer."""
    if not 0 <= value <= MAX_U64:
        raise RowLayoutError(f"{value} does not fit in 64 bits")
    return b"%016x" % value


def decode_hex16(text: bytes) -> int:
    if _HEX16.fullmatch(text) is None:
        raise RowLayoutError(f"not 16 lowercase hex digits: {text!r}")
    return int(text, 16)


def ones_complement(value: int) -> int:
    return MAX_U64 - value


def row_key_for_block(block_number: int) -> bytes:
    """``blocks`` and ``items``: e.g. block 42 -> ``000000000000002a``."""
    return hex16(block_number)


def block_number_from_key(key: bytes) -> int:
    return decode_hex16(key)


@dataclass(frozen=True, slots=True)
class ItemsQualifier:
    """An ``items`` cell's qualifier, as ``store.block_items.cell_qualifier`` writes it."""

    kind: bytes
    number: int
    first_index: int | None
    """The index of the cell's first item; None in rows written before cells carried it."""


def parse_items_qualifier(qualifier: bytes) -> ItemsQualifier:
    """``<kind>/<cell number>/<first item index>``, or ``<kind>/<cell number>`` of older rows."""
    fields = qualifier.split(b"/")
    if len(fields) not in (2, 3) or not all(field.isdigit() for field in fields[1:]):
        raise RowDecodeError(f"items cell {qualifier!r}: expected <kind>/<number>/<first index>")
    first_index = int(fields[2]) if len(fields) == 3 else None
    return ItemsQualifier(fields[0], int(fields[1]), first_index)


BLOCK_HASH_PREFIX = b"hash/"
"""``blocks``: index rows by block hash sort after every block number (``h`` > ``f``) and carry no
completion cell, so no scan of complete blocks meets them."""


def row_key_for_block_hash(block_hash: bytes) -> bytes:
    """``blocks``: the index row of a block hash (the hash the API shows), e.g. ``hash/9a2f…``; a
    prefix of it (the mirror node accepts the first 32 of 48 bytes) is a key prefix."""
    return BLOCK_HASH_PREFIX + block_hash.hex().encode()


TIME_BUCKETS = 16
"""``transactions`` and ``sidecars`` keys start with one of this many buckets (one hex digit), so a
minute of writes lands on 16 key ranges instead of the end of one (docs/schema.md, "Scale")."""
BUCKET_SEPARATOR = b"/"
TIME_SPAN_BITS = 27
"""Times share a bucket in spans of 2^27 ns (134 ms): a span's rows are neighbours in their bucket,
so they compress as well as rows keyed by the time alone, and a 2-second block still spans 15
consecutive spans, which the hash below sends to 12 to 15 buckets."""
_FIBONACCI_MULTIPLIER = 0x9E3779B97F4A7C15
"""2^64 / golden ratio: multiplying by it mixes every bit of the span into the top four, and
consecutive spans fall in buckets far apart (Fibonacci hashing)."""
_BUCKETED_KEY_SIZE = 2 + 16


def time_bucket(consensus_ns: int) -> int:
    """The bucket of a consensus time: the top 4 bits of a multiplicative (Fibonacci) hash of its
    134 ms span. Stable across processes and versions (not Python's ``hash``)."""
    if not 0 <= consensus_ns <= MAX_U64:
        raise RowLayoutError(f"{consensus_ns} does not fit in 64 bits")
    return (((consensus_ns >> TIME_SPAN_BITS) * _FIBONACCI_MULTIPLIER) & MAX_U64) >> 60


def bucket_prefix(bucket: int) -> bytes:
    """``<bucket as one hex digit>/``: every key of the bucket starts with it."""
    return b"%x" % bucket + BUCKET_SEPARATOR


def row_key_for_transaction(consensus_ns: int) -> bytes:
    """``transactions`` and ``sidecars`` (layout 3): ``<bucket>/<consensus ns as hex16>``, e.g.
    ``1657701971304284003`` -> ``b/17015728f70e7f63``; the bucket is derived from the time, so a
    lookup by time is still one key."""
    return bucket_prefix(time_bucket(consensus_ns)) + hex16(consensus_ns)


row_key_for_sidecar = row_key_for_transaction


def plain_row_key_for_transaction(consensus_ns: int) -> bytes:
    """The key layouts 1 and 2 wrote ``transactions`` and ``sidecars`` rows under: the time alone."""
    return hex16(consensus_ns)


def is_plain_time_key(key: bytes) -> bool:
    """Whether ``key`` is a time-keyed row of layout 1 or 2 (no bucket)."""
    return len(key) == 16


def consensus_from_key(key: bytes) -> int:
    """The consensus time of a ``transactions`` or ``sidecars`` key, bucketed or plain."""
    if len(key) != _BUCKETED_KEY_SIZE:
        return decode_hex16(key)
    consensus_ns = decode_hex16(key[2:])
    if key[:2] != bucket_prefix(time_bucket(consensus_ns)):
        raise RowLayoutError(f"not a time key: {key!r} (bucket does not match the time)")
    return consensus_ns


def qualifier_for_consensus(consensus_ns: int) -> bytes:
    """The qualifier of a ``tx_by_hash`` or ``tx_by_id`` cell."""
    return hex16(consensus_ns)


TX_HASH_KEY_BYTES = 16
"""``tx_by_hash`` keys hold the first 16 bytes of the 48-byte hash: two transactions sharing them
are as likely as a 128-bit collision (about 10^-17 over 10^11 transactions). Rows written before
held the whole hash (96 hex digits); both start with the same 32 digits, so one prefix scan finds
either (:func:`tx_hash_key_range`)."""


def row_key_for_tx_hash(transaction_hash: bytes) -> bytes:
    """``tx_by_hash``: the first 16 bytes of the record's ``transactionHash`` in lowercase hex."""
    if not transaction_hash:
        raise RowLayoutError("empty transaction hash")
    return transaction_hash[:TX_HASH_KEY_BYTES].hex().encode()


def tx_hash_key_range(hash_prefix: bytes) -> tuple[bytes, bytes]:
    """``[start, end)`` of the ``tx_by_hash`` rows that may hold a hash starting with
    ``hash_prefix`` (a whole hash or the mirror node's 32-byte form): the short key of this layout
    and the whole-hash key of rows written before."""
    start = row_key_for_tx_hash(hash_prefix)
    return start, prefix_end(start)


def tx_hash_row_matches(key: bytes, hash_prefix: bytes) -> bool:
    """Whether the ``tx_by_hash`` row ``key`` may hold a hash starting with ``hash_prefix``: a short
    key shares its bytes with every such hash; a whole-hash key (rows written before) must start
    with the prefix itself."""
    wanted = hash_prefix.hex().encode()
    if len(key) == 2 * TX_HASH_KEY_BYTES:
        return wanted.startswith(key) or key.startswith(wanted)
    return key.startswith(wanted)


def row_key_for_tx_id(payer: str, valid_start_ns: int) -> bytes:
    """``tx_by_id``: ``<payer>/<valid start ns as hex16>``."""
    return check_entity_id(payer).encode() + ACCOUNT_SEPARATOR + hex16(valid_start_ns)


LAST_SYSTEM_ACCOUNT = 1000
"""HAPI reserves entity numbers 1 to 1000 of a network for system accounts and files
(``ledger.numReservedSystemEntities``, hedera-services docs/system-entities.md): the treasury
0.0.2, the node accounts, the fee collector 0.0.98, the staking and node reward accounts 0.0.800
and 0.0.801 (the reference mirror node's ``SystemEntity``). The last three are in nearly every
transaction, so each would be one front of ``account_history`` writes; every account in the range
gets bucketed keys (a rule, not a list of the accounts one network uses)."""
ACCOUNT_BUCKET_MARKS = b"ghijklmnopqrstuv"
"""The letter of each bucket in a system account's keys: after every hex digit, so a bucket's rows
never mix with the account's plain rows (all hex), written before or by any other account."""


def row_key_for_account_history(account: str, consensus_ns: int) -> bytes:
    """``account_history``: ``<account>/<one's complement of the consensus ns as hex16>``; for a
    system account ``<account>/<bucket letter><...>``, e.g. ``0.0.98/pe8fea8d7082f181c``."""
    suffix = hex16(ones_complement(consensus_ns))
    if has_bucketed_history(account):
        suffix = account_bucket_mark(consensus_ns) + suffix
    return account_prefix(account) + suffix


def has_bucketed_history(account: str) -> bool:
    """Whether ``account``'s history rows carry a time bucket (a system account's)."""
    return is_system_number(int(check_entity_id(account).rpartition(".")[2]))


def is_system_number(num: int) -> bool:
    """Whether an entity number is in HAPI's reserved range (:data:`LAST_SYSTEM_ACCOUNT`)."""
    return 0 < num <= LAST_SYSTEM_ACCOUNT


def account_bucket_mark(consensus_ns: int) -> bytes:
    """The letter of the time's bucket in a system account's history key."""
    return bytes([ACCOUNT_BUCKET_MARKS[time_bucket(consensus_ns)]])


def account_prefix(account: str) -> bytes:
    """The prefix all of ``account``'s rows share (the separator stops ``0.0.1`` matching ``0.0.12``)."""
    return check_entity_id(account).encode() + ACCOUNT_SEPARATOR


def decode_account_history_key(key: bytes) -> tuple[str, int]:
    """``(account, consensus ns)`` of an ``account_history`` row key, plain or bucketed."""
    account, sep, tail = key.rpartition(ACCOUNT_SEPARATOR)
    if not sep:
        raise RowLayoutError(f"not an account history key: {key!r}")
    name = check_entity_id(account.decode("ascii", "replace"))
    consensus_ns = ones_complement(decode_hex16(tail[-16:] if len(tail) == 17 else tail))
    if len(tail) == 17 and tail[:1] != account_bucket_mark(consensus_ns):
        raise RowLayoutError(f"not an account history key: {key!r} (bucket does not match the time)")
    return name, consensus_ns


def is_plain_account_history_key(key: bytes) -> bool:
    """Whether ``key`` (an ``account_history`` key) is one of layouts 1 and 2 (no bucket letter)."""
    return len(key) - key.rindex(ACCOUNT_SEPARATOR) - 1 == 16


def plain_account_history_key(key: bytes) -> bytes:
    """The key layouts 1 and 2 gave the ``account_history`` row keyed ``key`` (no bucket letter)."""
    account, consensus_ns = decode_account_history_key(key)
    return account_prefix(account) + hex16(ones_complement(consensus_ns))


def account_history_range(account: str, before: int | None, until: int | None) -> tuple[bytes, bytes]:
    """``[start, end)`` row keys of ``account``'s plain entries with ``until < consensus < before``
    (a system account's bucketed ones are in :func:`account_history_ranges`).

    Either bound may be None (open). Newest first: ``start`` is just older than ``before``.
    """
    prefix = account_prefix(account)
    return _history_range(prefix, prefix + ACCOUNT_BUCKET_MARKS[:1], before, until)


def account_history_ranges(account: str, before: int | None, until: int | None) -> tuple[tuple[bytes, bytes], ...]:
    """Every ``[start, end)`` that may hold ``account``'s entries with ``until < consensus <
    before``: the plain range, then for a system account the range in each bucket (the plain one
    holds its rows written before layout 3)."""
    plain = account_history_range(account, before, until)
    if not has_bucketed_history(account):
        return (plain,)
    prefix = account_prefix(account)
    buckets = (
        _history_range(prefix + bytes([mark]), prefix + bytes([mark + 1]), before, until)
        for mark in ACCOUNT_BUCKET_MARKS
    )
    return (plain, *buckets)


def _history_range(prefix: bytes, open_end: bytes, before: int | None, until: int | None) -> tuple[bytes, bytes]:
    """``[start, end)`` of the keys ``prefix + <inverted time>`` with ``until < time < before``;
    ``open_end`` ends the range when ``until`` is open."""
    if before is not None and before <= 0:
        return prefix, prefix  # nothing is older than time zero
    start = prefix if before is None else prefix + hex16(ones_complement(min(before - 1, MAX_U64)))
    end = open_end if until is None or until < 0 else prefix + hex16(ones_complement(min(until, MAX_U64)))
    return start, end


def time_range(prefix: bytes, before_ns: int | None, from_ns: int) -> tuple[bytes, bytes]:
    """``[start, end)`` of the keys ``prefix + <inverted time>`` at or after ``from_ns`` and before
    ``before_ns`` (None: no end), newest first."""
    start = prefix if before_ns is None else prefix + hex16(ones_complement(before_ns - 1))
    end = prefix_end(prefix) if from_ns <= 0 else prefix + hex16(ones_complement(from_ns) + 1)
    return start, end


def entity_id(shard: int, realm: int, num: int) -> str:
    return f"{shard}.{realm}.{num}"


def check_entity_id(text: str) -> str:
    """``text`` if it is ``shard.realm.num`` in canonical form, else RowLayoutError."""
    if _ENTITY.fullmatch(text) is None:
        raise RowLayoutError(f"not an entity id shard.realm.num: {text!r}")
    return text


_SHARD_BITS, _REALM_BITS, _NUM_BITS = 10, 16, 38
"""The reference's encoded entity id: shard, realm and num in one 64-bit number, in that order."""


def encode_entity(shard: int, realm: int, num: int) -> int | None:
    """The reference's encoded entity id, None when a part does not fit its bits."""
    if not (0 <= shard < 1 << _SHARD_BITS and 0 <= realm < 1 << _REALM_BITS and 0 <= num < 1 << _NUM_BITS):
        return None
    return (shard << (_REALM_BITS + _NUM_BITS)) | (realm << _NUM_BITS) | num


def decode_entity(encoded: int) -> str:
    num = encoded & ((1 << _NUM_BITS) - 1)
    realm = (encoded >> _NUM_BITS) & ((1 << _REALM_BITS) - 1)
    return entity_id(encoded >> (_REALM_BITS + _NUM_BITS), realm, num)


def encode_entity_text(entity: str) -> int:
    """``shard.realm.num`` encoded; RowLayoutError when it does not fit."""
    shard, realm, num = (int(part) for part in entity.split("."))
    encoded = encode_entity(shard, realm, num)
    if encoded is None:
        raise RowLayoutError(f"entity id out of the encodable range: {entity!r}")
    return encoded


def prefix_end(prefix: bytes) -> bytes:
    """The first key after every key that starts with ``prefix`` (an exclusive scan end)."""
    stripped = prefix.rstrip(b"\xff")
    if not stripped:
        raise RowLayoutError("a prefix of only 0xff bytes has no end key")
    return stripped[:-1] + bytes([stripped[-1] + 1])
