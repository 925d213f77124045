"""Which accounts a transaction touches: the one definition behind ``account_history``.

An account's history lists a transaction when the account is, from the record (what happened):
  * the payer (``transactionID.accountID``);
  * in the hbar transfer list, or a token transfer list (fungible amounts, NFT sender or receiver);
  * paid a staking reward; a custom-fee collector or effective payer; auto-associated to a token;
    sender or receiver of a new pending airdrop;
  * the account or contract the receipt names (created, or targeted, e.g. ``contractID``);
  * the contract called or created, a contract created during the call, the sender of the EVM call;
and, from the body (what was asked, so also when it failed), the account or contract the
transaction is about: the account updated or deleted and its beneficiary, the contract updated,
deleted or called (and the beneficiary of a deletion), the account a token operation freezes /
unfreezes / grants or revokes KYC / wipes / associates / dissociates, a token's treasury (create,
update), allowance owners and spenders (approve, delete), the owner rejecting tokens, senders and
receivers of cancelled or claimed airdrops, the payer named by a schedule create, a node's account
(node create, update), the account of a deleted live hash.

Amounts are taken only from the record: the transfers a failed transaction asked for did not
happen, so they do not put it in the intended receiver's history (the mirror node agrees).
Accounts and contracts share one entity number space, so both appear as ``shard.realm.num``.
Left out on purpose: the submitting node (``nodeAccountID``; its fee is in the transfer list),
configuration references (proxy, staked-to, auto-renew accounts), non-account entities (tokens,
topics, files, schedules), and ids given only as an alias or EVM address (the record's transfer
list and receipt carry the resolved numbers).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.errors import CorruptFileError, RowLayoutError
from hedera_history.formats.transactions import transaction_body
from hedera_history.speedups import transaction_body_bytes as compiled_body_bytes
from hedera_history.store.keys import entity_id

# TransactionBody ``data`` case -> fields of that body holding an AccountID or ContractID.
_BODY_TARGETS: dict[str, tuple[str, ...]] = {
    "cryptoUpdateAccount": ("accountIDToUpdate",),
    "cryptoDelete": ("deleteAccountID", "transferAccountID"),
    "cryptoDeleteLiveHash": ("accountOfLiveHash",),
    "contractCall": ("contractID",),
    "contractUpdateInstance": ("contractID",),
    "contractDeleteInstance": ("contractID", "transferAccountID", "transferContractID"),
    "systemDelete": ("contractID",),
    "systemUndelete": ("contractID",),
    "tokenFreeze": ("account",),
    "tokenUnfreeze": ("account",),
    "tokenGrantKyc": ("account",),
    "tokenRevokeKyc": ("account",),
    "tokenWipe": ("account",),
    "tokenAssociate": ("account",),
    "tokenDissociate": ("account",),
    "tokenCreation": ("treasury",),
    "tokenUpdate": ("treasury",),
    "tokenReject": ("owner",),
    "scheduleCreate": ("payerAccountID",),
    "nodeCreate": ("account_id",),
    "nodeUpdate": ("account_id",),
}


def decode_transaction_body(transaction_bytes: bytes) -> Any:
    """``formats.transactions.transaction_body``, the one decoder, as the row builders call it: a
    transaction of the common shape has its body's bytes found by the compiled core
    (``speedups.transaction_body_bytes``) and only the body parsed."""
    body_bytes = None if compiled_body_bytes is None else compiled_body_bytes(transaction_bytes)
    if body_bytes is None:
        return transaction_body(transaction_bytes)
    try:
        return hapi.TransactionBody.FromString(body_bytes)
    except DecodeError as e:
        raise CorruptFileError(f"transaction body does not decode: {e}") from e


def accounts_touched(body: Any | None, record: Any) -> frozenset[str]:
    """Entity ids (``shard.realm.num``) whose history lists this transaction.

    ``body`` is a ``TransactionBody`` (None when it could not be decoded), ``record`` its
    ``TransactionRecord``.
    """
    return frozenset(entity_id(*numbers) for numbers in touched_entities(body, record))


EntityNumbers = tuple[int, int, int]
"""``(shard, realm, num)`` of an account or contract given by number."""


def touched_entities(body: Any | None, record: Any) -> set[EntityNumbers]:
    """:func:`accounts_touched` as numbers, for row building: one pass over the decoded messages,
    the common fields read directly, the rare ones only when present (``speedups.transaction_rows``
    reads the record's part from its bytes)."""
    found = record_entities(record)
    if body is not None:
        found.update(body_entities(body, body.WhichOneof("data")))
    return found


def body_entities(body: Any, case: str | None) -> list[EntityNumbers]:
    """The body's part of :func:`touched_entities`: its payer and :func:`case_entities`."""
    payer = body.transactionID.accountID
    found = [(payer.shardNum, payer.realmNum, payer.accountNum)] if payer.accountNum > 0 else []
    return found + case_entities(body, case)


def case_entities(body: Any, case: str | None) -> list[EntityNumbers]:
    """The accounts and contracts the body's ``data`` case (``case``) names besides the payer,
    those given by a positive number."""
    if case not in _BODY_CASES:
        return []
    return [numbers for numbers in map(_numbers, _body_accounts(body, case)) if numbers is not None]


def record_entities(record: Any) -> set[EntityNumbers]:
    """The record's part of :func:`touched_entities`: the accounts and contracts it names."""
    found: set[EntityNumbers] = set()
    add = found.add
    # An id given as an alias or EVM address reads as number 0 (its oneof holds the other case),
    # so ``num > 0`` is exactly "given by a positive number" for both AccountID and ContractID.
    accounts = [a.accountID for a in record.transferList.accountAmounts]
    accounts.append(record.transactionID.accountID)
    receipt = record.receipt
    accounts.append(receipt.accountID)
    contracts = [receipt.contractID]
    for token_list in record.tokenTransferLists:
        accounts.extend([a.accountID for a in token_list.transfers])
        for nft in token_list.nftTransfers:
            accounts.append(nft.senderAccountID)
            accounts.append(nft.receiverAccountID)
    accounts.extend([a.accountID for a in record.paid_staking_rewards])
    for fee in record.assessed_custom_fees:
        accounts.append(fee.fee_collector_account_id)
        accounts.extend(fee.effective_payer_account_id)
    accounts.extend([a.account_id for a in record.automatic_token_associations])
    for pending in record.new_pending_airdrops:
        accounts.append(pending.pending_airdrop_id.sender_id)
        accounts.append(pending.pending_airdrop_id.receiver_id)
    for result_field in _CONTRACT_RESULTS:
        if record.HasField(result_field):
            result = getattr(record, result_field)
            contracts.append(result.contractID)
            contracts.extend(result.createdContractIDs)
            accounts.append(result.sender_id)
    for account in accounts:
        num = account.accountNum
        if num > 0:
            add((account.shardNum, account.realmNum, num))
    for contract in contracts:
        num = contract.contractNum
        if num > 0:
            add((contract.shardNum, contract.realmNum, num))
    return found


_CONTRACT_RESULTS = ("contractCallResult", "contractCreateResult")
_BODY_CASES = frozenset(
    (*_BODY_TARGETS, "cryptoApproveAllowance", "cryptoDeleteAllowance", "tokenCancelAirdrop", "tokenClaimAirdrop")
)
"""Body cases that name an account or contract besides the payer."""


def _body_accounts(body: Any, case: str) -> Iterable[Any]:
    data = getattr(body, case)
    for field in _BODY_TARGETS.get(case, ()):
        yield getattr(data, field)
    if case == "cryptoApproveAllowance":
        for allowance in (*data.cryptoAllowances, *data.tokenAllowances):
            yield allowance.owner
            yield allowance.spender
        for nft in data.nftAllowances:
            yield from (nft.owner, nft.spender, nft.delegating_spender)
    elif case == "cryptoDeleteAllowance":
        yield from (nft.owner for nft in data.nftAllowances)
    elif case in ("tokenCancelAirdrop", "tokenClaimAirdrop"):
        for pending in data.pending_airdrops:
            yield from (pending.sender_id, pending.receiver_id)


def _numbers(identifier: Any) -> EntityNumbers | None:
    descriptor_name = identifier.DESCRIPTOR.name
    if descriptor_name == "AccountID":
        num = identifier.accountNum
    elif descriptor_name == "ContractID":
        num = identifier.contractNum
    else:
        raise RowLayoutError(f"not an AccountID or ContractID: {descriptor_name}")
    return (identifier.shardNum, identifier.realmNum, num) if num > 0 else None


def entity_text(identifier: Any) -> str | None:
    """``shard.realm.num`` of an AccountID or ContractID given by number, else None."""
    descriptor_name = identifier.DESCRIPTOR.name
    if descriptor_name == "AccountID":
        if identifier.WhichOneof("account") != "accountNum" or identifier.accountNum <= 0:
            return None
        return entity_id(identifier.shardNum, identifier.realmNum, identifier.accountNum)
    if descriptor_name == "ContractID":
        if identifier.WhichOneof("contract") != "contractNum" or identifier.contractNum <= 0:
            return None
        return entity_id(identifier.shardNum, identifier.realmNum, identifier.contractNum)
    raise RowLayoutError(f"not an AccountID or ContractID: {descriptor_name}")
