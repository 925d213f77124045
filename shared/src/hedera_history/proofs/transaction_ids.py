"""What a transaction proof is asked for: a transaction id (with nonce and scheduled, as the
reference's ``/transactions/{id}/stateproof``) or a consensus time."""

from __future__ import annotations

from dataclasses import dataclass

from hedera_history import hapi
from hedera_history.transaction_ids import format_transaction_id, parse_transaction_id


@dataclass(frozen=True, slots=True)
class TransactionQuery:
    """``payer`` and ``valid_start_ns`` of a transaction id, or a ``consensus_ns`` alone."""

    payer: str | None = None
    valid_start_ns: int | None = None
    nonce: int = 0
    scheduled: bool = False
    consensus_ns: int | None = None

    @classmethod
    def parse(cls, transaction_id: str, *, nonce: int = 0, scheduled: bool = False) -> TransactionQuery:
        """``0.0.8-1568411631-396440000`` (the reference's form) or ``0.0.8@1568411631.396440000``."""
        payer, valid_start_ns = parse_transaction_id(transaction_id)
        return cls(payer, valid_start_ns, nonce, scheduled)

    @classmethod
    def at(cls, consensus_ns: int) -> TransactionQuery:
        return cls(consensus_ns=consensus_ns)

    def matches(self, record: hapi.TransactionRecord, consensus_ns: int) -> bool:
        if self.consensus_ns is not None:
            return consensus_ns == self.consensus_ns
        tid = record.transactionID
        account = tid.accountID
        start = tid.transactionValidStart
        return (
            f"{account.shardNum}.{account.realmNum}.{account.accountNum}" == self.payer
            and start.seconds * 1_000_000_000 + start.nanos == self.valid_start_ns
            and tid.nonce == self.nonce
            and tid.scheduled == self.scheduled
        )

    def __str__(self) -> str:
        if self.consensus_ns is not None:
            return f"at {self.consensus_ns}"
        assert self.valid_start_ns is not None and self.payer is not None
        return (
            f"{format_transaction_id(self.payer, self.valid_start_ns)} (nonce {self.nonce}, scheduled {self.scheduled})"
        )
