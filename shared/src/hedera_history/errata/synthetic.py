"""Synthetic transactions for compensating items: an hbar transfer the network never ran.

A compensating item (HIP-639) only has to carry its side effects; here that is the record's
transfer list. The item still looks like a record stream item: a ``Transaction`` whose body is a
``cryptoTransfer`` paid by a council account, and a ``TransactionRecord`` with the same transfers,
status SUCCESS, at the errata's consensus time.
"""

from __future__ import annotations

from collections.abc import Sequence

from hedera_history import hapi
from hedera_history.errata.codec import NS_PER_SECOND
from hedera_history.errors import ErrataFormatError
from hedera_history.store.keys import check_entity_id

COUNCIL_PAYER = "0.0.2"
"""HIP-639 wants a council payer: 0.0.2 or 0.0.50."""


def synthetic_transfer_item(
    consensus_ns: int, transfers: Sequence[tuple[str, int]], *, memo: str = "", payer: str = COUNCIL_PAYER
) -> bytes:
    """A serialised ``RecordStreamItem`` moving ``transfers`` ((account, tinybar), summing to zero)."""
    if sum(amount for _, amount in transfers) != 0:
        raise ErrataFormatError(f"compensating transfers must sum to zero: {list(transfers)}")
    body = hapi.TransactionBody()
    _set_account(body.transactionID.accountID, payer)
    _set_time(body.transactionID.transactionValidStart, consensus_ns - NS_PER_SECOND)
    body.memo = memo
    record = hapi.TransactionRecord()
    record.receipt.status = hapi.ResponseCodeEnum.Value("SUCCESS")
    _set_time(record.consensusTimestamp, consensus_ns)
    record.transactionID.CopyFrom(body.transactionID)
    record.memo = memo
    for account, amount in sorted(transfers):
        for target in (body.cryptoTransfer.transfers.accountAmounts, record.transferList.accountAmounts):
            entry = target.add()
            _set_account(entry.accountID, account)
            entry.amount = amount
    signed = hapi.SignedTransaction(bodyBytes=body.SerializeToString(deterministic=True))
    transaction = hapi.Transaction(signedTransactionBytes=signed.SerializeToString(deterministic=True))
    item = hapi.RecordStreamItem(transaction=transaction, record=record)
    data: bytes = item.SerializeToString(deterministic=True)
    return data


def _set_account(target: hapi.AccountID, account: str) -> None:
    shard, realm, num = (int(part) for part in check_entity_id(account).split("."))
    target.shardNum, target.realmNum, target.accountNum = shard, realm, num


def _set_time(target: hapi.Timestamp, ns: int) -> None:
    target.seconds, target.nanos = divmod(ns, NS_PER_SECOND)
