"""A network's known errata: facts about what its nodes exported, shipped with its preset.

Mainnet has two (docs/errata.md, "Network errata"), both from the reference mirror node
(repo ``xin-hedera/hedera-mirror-node`` commit ``8ea5793b9b3ce269d0e418a7a7f0fc9fbca71d27``, path
``importer/src/main/resources/errata/mainnet/`` and ``migration/ErrataMigration.java``):

- **113 missing transactions**: records the nodes never wrote into any record file. They ship as
  package data, ``data/mainnet-missing-transactions.bin``: the reference's 113 ``.bin`` files
  (each ``int32 length, TransactionRecord, int32 length, Transaction``, big-endian) concatenated
  byte for byte in consensus-time order. The file is pinned by its SHA-256: a changed file is
  refused, not applied.
- **2019 spurious transfers**: a rule, no data. A failed CRYPTOTRANSFER before 2019-12-31 whose
  record lists payer-funded credits the network never made; each such credit and the debit that
  mirrors it are spurious.

Each becomes an ordinary ``ErrataFile`` (no council signatures) that the errata planner applies as
it applies any other: an INSERT for a missing transaction, an UPDATE for a record with spurious
transfers. Its consensus time is one nanosecond after its time of error, so its compensation
(the missing transaction's own transfers; the reversal of the spurious ones) moves derived balances
right after the entry, as the network's state moved. Their authority is the preset: the pinned
data or the rule applied to a record the nodes signed (``NetworkErrata.vouches_for``).
"""

from __future__ import annotations

import hashlib
import struct
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.config import Settings
from hedera_history.errata.codec import (
    encode_errata_body,
    encode_errata_file,
    parse_errata_file,
    record_stream_item_bytes,
)
from hedera_history.errata.errata_file import ErrataFile
from hedera_history.errata.synthetic import synthetic_transfer_item
from hedera_history.errors import CorruptFileError, ErrataFormatError
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.formats.transactions import transaction_body
from hedera_history.networks import network_named
from hedera_history.store.accounts import entity_text

NS_PER_SECOND = 1_000_000_000
MAX_PART_BYTES = 65_536
"""The reference reads each record and transaction with this bound."""
_LENGTH = struct.Struct(">i")

MAINNET = "mainnet"
MAINNET_MISSING_RESOURCE = "mainnet-missing-transactions.bin"
MAINNET_MISSING_SHA256 = "736393591e85e681edcf206536144b413f9d051a7ff55d0fb11280bbb435a087"
MAINNET_MISSING_COUNT = 113
MAINNET_SOURCE = (
    "xin-hedera/hedera-mirror-node@8ea5793b9b3ce269d0e418a7a7f0fc9fbca71d27:"
    "importer/src/main/resources/errata/mainnet/missingtransactions/"
)

SPURIOUS_BEFORE_NS = 1_577_836_799_000_000_000
"""2019-12-31T23:59:59Z: the rule looks at transactions before this time (the bug was fixed on
2019-10-03; the reference's bound is the end of 2019)."""
SPURIOUS_SELF_CREDIT_TIMES = frozenset({1_570_118_944_399_195_000, 1_570_120_372_315_307_000})
"""The two times where a credit to the payer itself is spurious too."""
FEE_ACCOUNTS = frozenset({98, *range(3, 28)})
"""0.0.98 and the node accounts 0.0.3..0.0.27: fee credits are real, never spurious."""
SUCCESS = 22
SPURIOUS_MEMO = "mainnet 2019 spurious transfers reversed"


@dataclass(frozen=True)
class NetworkErrataAuthority:
    """Why a network errata holds: the preset that ships it, not council and node signatures."""

    network: str
    source: str
    """Where the data comes from (repository, commit, path)."""
    data_sha256: str
    """The pinned SHA-256 of the shipped data."""


@dataclass(frozen=True)
class NetworkErrata:
    """Everything a network's preset knows to be wrong in its record stream."""

    authority: NetworkErrataAuthority
    missing: tuple[ErrataFile, ...]
    """INSERT errata for the records never exported, in consensus-time order."""
    rule: Callable[[RecordItem], ErrataFile | None] | None = None
    """The errata a stored record needs by rule (None: it needs none)."""
    rule_before_ns: int = 0
    """The rule only looks at items before this time."""
    _missing_ids: frozenset[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_missing_ids", frozenset(e.errata_id for e in self.missing))

    def errata_for_item(self, item: RecordItem) -> ErrataFile | None:
        if self.rule is None or item.consensus_ns >= self.rule_before_ns:
            return None
        return self.rule(item)

    def vouches_for(self, errata: ErrataFile, original: RecordItem | None) -> bool:
        """True when the preset makes exactly this errata: one of the shipped missing transactions
        (nothing stored there), or the rule applied to the stored ``original``."""
        if original is None:
            return errata.errata_id in self._missing_ids
        made = self.errata_for_item(original)
        return made is not None and made.errata_id == errata.errata_id


def network_errata_for(settings: Settings) -> NetworkErrata | None:
    """The errata of the network preset ``settings.network`` names (None: custom, or none shipped)."""
    preset = network_named(settings.network)
    return network_errata(preset.errata if preset is not None else None)


def network_errata(name: str | None) -> NetworkErrata | None:
    """The errata shipped for the network ``name`` (None: the network has none)."""
    if name == MAINNET:
        return mainnet_errata()
    return None


@cache
def mainnet_errata() -> NetworkErrata:
    data = resources.files("hedera_history.errata").joinpath("data", MAINNET_MISSING_RESOURCE).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != MAINNET_MISSING_SHA256:
        raise ErrataFormatError(
            f"SHA-256 expected {MAINNET_MISSING_SHA256} but got {digest}", file=MAINNET_MISSING_RESOURCE
        )
    items = tuple(parse_missing_transactions(data, MAINNET_MISSING_RESOURCE))
    if len(items) != MAINNET_MISSING_COUNT:
        raise ErrataFormatError(
            f"expected {MAINNET_MISSING_COUNT} transactions but got {len(items)}", file=MAINNET_MISSING_RESOURCE
        )
    authority = NetworkErrataAuthority(MAINNET, MAINNET_SOURCE, MAINNET_MISSING_SHA256)
    return NetworkErrata(
        authority=authority,
        missing=tuple(missing_transaction_errata(item, MAINNET) for item in items),
        rule=lambda item: spurious_transfer_errata(item, MAINNET),
        rule_before_ns=SPURIOUS_BEFORE_NS,
    )


def parse_missing_transactions(data: bytes, name: str) -> Iterator[RecordItem]:
    """The (record, transaction) pairs of one or more reference ``missingtransactions`` files."""
    pos = 0
    while pos < len(data):
        record, pos = _length_and_bytes(data, pos, "record", name)
        transaction, pos = _length_and_bytes(data, pos, "transaction", name)
        try:
            parsed = hapi.TransactionRecord.FromString(record)
        except DecodeError as e:
            raise ErrataFormatError(f"record at byte {pos}: TransactionRecord does not parse: {e}", file=name) from e
        stamp = parsed.consensusTimestamp
        yield RecordItem(transaction, record, int(stamp.seconds) * NS_PER_SECOND + int(stamp.nanos))


def _length_and_bytes(data: bytes, pos: int, what: str, name: str) -> tuple[bytes, int]:
    if pos + _LENGTH.size > len(data):
        raise ErrataFormatError(f"{what} length at byte {pos}: expected 4 bytes but the data ends", file=name)
    (length,) = _LENGTH.unpack_from(data, pos)
    if not 1 <= length <= MAX_PART_BYTES or pos + _LENGTH.size + length > len(data):
        raise ErrataFormatError(f"{what} length at byte {pos}: {length} is out of bounds", file=name)
    start = pos + _LENGTH.size
    return data[start : start + length], start + length


def missing_transaction_errata(item: RecordItem, network: str) -> ErrataFile:
    """INSERT the item; its own transfers compensate derived balances (the network applied them)."""
    item_bytes = record_stream_item_bytes(item)
    return _network_errata_file(item.consensus_ns, item_bytes, item_bytes, network, "missing")


def spurious_transfers(item: RecordItem) -> tuple[tuple[str, int], ...]:
    """The hbar transfers of ``item``'s record that the 2019 rule says never happened: credits (not
    to a fee account, not to the payer except at two known times) of a failed CRYPTOTRANSFER paid by
    its payer, and every debit of the same amount negated. Empty when the item does not match."""
    if item.consensus_ns >= SPURIOUS_BEFORE_NS:
        return ()
    try:
        record = hapi.TransactionRecord.FromString(item.record_bytes)
        body = transaction_body(item.transaction_bytes)
    except (DecodeError, CorruptFileError):
        return ()
    if record.receipt.status == SUCCESS or body.WhichOneof("data") != "cryptoTransfer":
        return ()
    payer = record.transactionID.accountID.accountNum
    amounts = [
        (entity_text(a.accountID), a.accountID.accountNum, int(a.amount)) for a in record.transferList.accountAmounts
    ]
    credits = [
        (account, amount)
        for account, num, amount in amounts
        if account is not None
        and amount > 0
        and num not in FEE_ACCOUNTS
        and (num != payer or item.consensus_ns in SPURIOUS_SELF_CREDIT_TIMES)
    ]
    credited = {amount for _, amount in credits}
    debits = [(account, amount) for account, _, amount in amounts if account is not None and -amount in credited]
    return (*credits, *debits)


def spurious_transfer_errata(item: RecordItem, network: str) -> ErrataFile | None:
    """UPDATE the item to its record without the spurious transfers, and reverse them in derived
    balances; None when the rule does not match."""
    spurious = spurious_transfers(item)
    if not spurious:
        return None
    record = hapi.TransactionRecord.FromString(item.record_bytes)
    remaining = Counter(spurious)
    kept = []
    for entry in record.transferList.accountAmounts:
        account = entity_text(entry.accountID)
        pair = (account or "", int(entry.amount))
        if remaining[pair] > 0:
            remaining[pair] -= 1
        else:
            kept.append(entry)
    del record.transferList.accountAmounts[:]
    record.transferList.accountAmounts.extend(kept)
    corrected = RecordItem(item.transaction_bytes, record.SerializeToString(deterministic=True), item.consensus_ns)
    reversal = synthetic_transfer_item(
        item.consensus_ns + 1, [(account, -amount) for account, amount in spurious], memo=SPURIOUS_MEMO
    )
    return _network_errata_file(item.consensus_ns, record_stream_item_bytes(corrected), reversal, network, "spurious")


def _network_errata_file(
    time_of_error: int, correct_item: bytes, compensation: bytes, network: str, kind: str
) -> ErrataFile:
    errata_ns = time_of_error + 1
    body = encode_errata_body(time_of_error, correct_item, [compensation])
    return parse_errata_file(encode_errata_file(errata_ns, body), f"network/{network}/{kind}/{time_of_error}.errata")
