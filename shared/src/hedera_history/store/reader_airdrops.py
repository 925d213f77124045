"""Read paths of the airdrop index (``store.airdrop_index``): an account's pending airdrops, sent or
received, as of now. As on every read path, only complete blocks count and rows an errata removed
do not exist.

An account's airdrops on one side are one key range, ordered as the reference orders them (the
other account, the token, the serial number); each airdrop's changes are adjacent, oldest first.
A page is a scan of that range in chunks until ``limit`` airdrops are pending after their last
change; then the records of their newest additions (one request) give each fungible airdrop its
amount: the record states what is pending after the airdrop, and the reference takes it as is.
Newest first, the range is read whole (there are no reverse scans) and folded the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from hedera_history.errors import RowDecodeError
from hedera_history.store.airdrop_index import ADDED, AirdropId, account_prefix, airdrop_id, decode_airdrop_key
from hedera_history.store.decode import AccountHistoryEntry
from hedera_history.store.gateway import StoredRow
from hedera_history.store.index_scan import scan_index
from hedera_history.store.keys import hex16, prefix_end
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import pointed_value


@dataclass(frozen=True, slots=True)
class PendingAirdrop:
    airdrop: AirdropId
    amount: int
    """The fungible amount pending (0 for an NFT)."""
    since_ns: int
    """The consensus time of the newest airdrop that left it pending."""


@dataclass(frozen=True, slots=True)
class AirdropPage:
    airdrops: tuple[PendingAirdrop, ...]
    """In the order asked."""
    more: bool
    """The range may hold more pending airdrops past the last one."""
    errors: tuple[RowDecodeError, ...] = ()


@dataclass(slots=True)
class _Changes:
    airdrop: AirdropId
    additions: list[AccountHistoryEntry] = field(default_factory=list)
    """Since the last removal, oldest first; empty when the airdrop is not pending."""


def pending_airdrops(
    reader: HistoryReader,
    side: bytes,
    account: int,
    others: tuple[int, int | None],
    accept: Callable[[AirdropId], bool],
    limit: int,
    *,
    descending: bool = False,
) -> AirdropPage:
    """Up to ``limit`` airdrops pending on ``side`` of ``account`` whose other account is in
    ``others`` (inclusive; None: no end) and that ``accept`` keeps."""
    errors: list[RowDecodeError] = []
    prefix = account_prefix(side, account)
    low, high = others
    key_range = (prefix + hex16(low), prefix_end(prefix) if high is None else prefix + hex16(high + 1))
    found: list[_Changes] = []
    more = False
    for changes in _folded(reader, key_range, errors):
        if not changes.additions or not accept(changes.airdrop):
            continue
        if not descending and len(found) == limit:
            more = True
            break
        found.append(changes)
    if descending:
        more = len(found) > limit
        found = found[::-1][:limit]
    return AirdropPage(_with_amounts(reader, found, errors), more, tuple(errors))


def _folded(reader: HistoryReader, key_range: tuple[bytes, bytes], errors: list[RowDecodeError]) -> Iterator[_Changes]:
    """Each airdrop in the range with its additions since its last removal, in key order."""
    current: _Changes | None = None
    for (found, change), entry in scan_index(reader, key_range, _decode_change, errors):
        if current is None or current.airdrop != found:
            if current is not None:
                yield current
            current = _Changes(found)
        if change == ADDED:
            current.additions.append(entry)
        else:
            current.additions.clear()
    if current is not None:
        yield current


def _decode_change(row: StoredRow) -> tuple[tuple[AirdropId, bytes], AccountHistoryEntry] | None:
    found, consensus_ns, change = decode_airdrop_key(row.key)
    return pointed_value(row, (found, change), consensus_ns)


def _with_amounts(
    reader: HistoryReader, found: list[_Changes], errors: list[RowDecodeError]
) -> tuple[PendingAirdrop, ...]:
    """Each pending airdrop with its amount: a fungible one's from its newest addition's record."""
    newest = [changes.additions[-1] for changes in found if changes.airdrop.serial == 0]
    transactions, read_errors = reader.transactions(newest)
    errors.extend(read_errors)
    records = {t.consensus_ns: t.record() for t in transactions}
    answers: list[PendingAirdrop] = []
    for changes in found:
        since_ns = changes.additions[-1].consensus_ns
        record = records.get(since_ns) if changes.airdrop.serial == 0 else None
        amounts = (
            []
            if record is None
            else [
                p.pending_airdrop_value.amount
                for p in record.new_pending_airdrops
                if airdrop_id(p.pending_airdrop_id) == changes.airdrop
            ]
        )
        answers.append(PendingAirdrop(changes.airdrop, amounts[-1] if amounts else 0, since_ns))
    return tuple(answers)
