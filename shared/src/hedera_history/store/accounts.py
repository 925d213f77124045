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
from hedera_history.errors import CorruptFileError
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
    """The ``TransactionBody`` of a serialised ``Transaction``.

    Newer transactions carry ``signedTransactionBytes`` (a ``SignedTransaction`` holding
    ``bodyBytes``); older ones ``bodyBytes`` directly, or the deprecated ``body``.
    """
    try:
        transaction = hapi.Transaction.FromString(transaction_bytes)
        if transaction.signedTransactionBytes:
            signed = hapi.SignedTransaction.FromString(transaction.signedTransactionBytes)
            return hapi.TransactionBody.FromString(signed.bodyBytes)
        if transaction.bodyBytes:
            return hapi.TransactionBody.FromString(transaction.bodyBytes)
        return transaction.body
    except DecodeError as e:
        raise CorruptFileError(f"transaction body cannot be decoded: {e}") from e


def accounts_touched(body: Any | None, record: Any) -> frozenset[str]:
    """Entity ids (``shard.realm.num``) whose history lists this transaction.

    ``body`` is a ``TransactionBody`` (None when it could not be decoded), ``record`` its
    ``TransactionRecord``.
    """
    ids: list[Any] = []
    ids.append(record.transactionID.accountID)
    ids.append(record.receipt.accountID)
    ids.append(record.receipt.contractID)
    ids.extend(_transfer_accounts(record.transferList, record.tokenTransferLists))
    ids.extend(a.accountID for a in record.paid_staking_rewards)
    for fee in record.assessed_custom_fees:
        ids.append(fee.fee_collector_account_id)
        ids.extend(fee.effective_payer_account_id)
    ids.extend(a.account_id for a in record.automatic_token_associations)
    for pending in record.new_pending_airdrops:
        ids.extend((pending.pending_airdrop_id.sender_id, pending.pending_airdrop_id.receiver_id))
    for result in (record.contractCallResult, record.contractCreateResult):
        ids.append(result.contractID)
        ids.extend(result.createdContractIDs)
        ids.append(result.sender_id)
    if body is not None:
        ids.append(body.transactionID.accountID)
        ids.extend(_body_accounts(body))
    return frozenset(filter(None, (entity_text(i) for i in ids)))


def _body_accounts(body: Any) -> Iterable[Any]:
    case = body.WhichOneof("data")
    if case is None:
        return
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


def _transfer_accounts(transfers: Any, token_transfers: Iterable[Any]) -> Iterable[Any]:
    yield from (a.accountID for a in transfers.accountAmounts)
    for token_list in token_transfers:
        yield from (a.accountID for a in token_list.transfers)
        for nft in token_list.nftTransfers:
            yield from (nft.senderAccountID, nft.receiverAccountID)


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
    raise TypeError(f"not an AccountID or ContractID: {descriptor_name}")
