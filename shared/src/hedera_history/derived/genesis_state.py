"""Opening balances from a genesis wrapped record block's initial state changes.

Mainnet's history begins before its first record file: the accounts that existed when the
network opened were never created by a transaction in the record stream. Its wrapped genesis
block (HIP-1427, block 0) carries them as ``state_changes`` items beside the record file, one
``ACCOUNTS`` map update per account with its ``tinybar_balance``. The reference mirror node reads
these as the initial state of block 0 (its ``InitialStateReader``) and sets each account's balance
from them, then applies the record file's transfers on top: the initial state is the network
before its first transaction, although the state changes carry a later consensus time.

So the snapshot is taken just before block 0's first transaction, and derived balances apply
block 0's transfers to it like any block's.
"""

from __future__ import annotations

from collections.abc import Iterable

from hedera_history.block import VerifiedBlock
from hedera_history.derived.snapshot import BalanceSnapshot
from hedera_history.formats.block import ItemKind, parse_block
from hedera_history.formats.block_protos import StateChanges
from hedera_history.formats.block_state import STATE_ID_ACCOUNTS
from hedera_history.store.accounts import entity_text

GENESIS_BLOCK = 0


def genesis_snapshot(block: VerifiedBlock) -> BalanceSnapshot | None:
    """The opening balances ``block`` states, when it is a wrapped genesis block carrying initial
    account state changes; None for any other block."""
    if block.block_number != GENESIS_BLOCK or block.wrapped_envelope is None:
        return None
    envelope = parse_block(block.wrapped_envelope, block.record.name)
    changes = [
        item.message(block.record.name).state_changes for item in envelope.items if item.kind == ItemKind.STATE_CHANGES
    ]
    balances = account_balances(changes)
    if not balances:
        return None
    return BalanceSnapshot(block.record.consensus_start - 1, balances)


def account_balances(changes: Iterable[StateChanges]) -> dict[str, int]:
    """Account (``shard.realm.num``) -> tinybar of every ``ACCOUNTS`` map update, the last one
    of an account winning."""
    balances: dict[str, int] = {}
    for state_changes in changes:
        for change in state_changes.state_changes:
            if change.state_id != STATE_ID_ACCOUNTS or change.WhichOneof("change_operation") != "map_update":
                continue
            value = change.map_update.value
            if not value.HasField("account_value"):
                continue
            account = entity_text(value.account_value.account_id)
            if account is not None:
                balances[account] = int(value.account_value.tinybar_balance)
    return balances


__all__ = ["account_balances", "genesis_snapshot"]
