"""Which accounts each kind of transaction touches (the definition in store/accounts.py)."""

from __future__ import annotations

from typing import Any

import pytest
from hedera_history import hapi
from hedera_history.errors import CorruptFileError, RowLayoutError
from hedera_history.store.accounts import accounts_touched, decode_transaction_body, entity_text

from .builders import account, body, contract, transfer_list

PAYER = 1001
START = 1_700_000_000_000_000_000


def new_body() -> Any:
    return body(PAYER, START)


def new_record(b: Any | None = None, *fee_transfers: tuple[int, int]) -> Any:
    record = hapi.TransactionRecord(transferList=transfer_list(*fee_transfers))
    record.transactionID.CopyFrom((b or new_body()).transactionID)
    return record


def touched(b: Any | None, record: Any) -> set[str]:
    return set(accounts_touched(b, record))


def test_payer_and_fee_transfers() -> None:
    b = new_body()
    record = new_record(b, (PAYER, -5), (3, 1), (98, 4))
    assert touched(b, record) == {"0.0.1001", "0.0.3", "0.0.98"}


def test_crypto_transfer_hbar_fungible_and_nft() -> None:
    b = new_body()
    b.cryptoTransfer.transfers.CopyFrom(transfer_list((PAYER, -10), (2002, 10)))
    tokens = b.cryptoTransfer.tokenTransfers.add()
    tokens.token.tokenNum = 5000
    tokens.transfers.add(accountID=account(3003), amount=-1)
    tokens.transfers.add(accountID=account(3004), amount=1)
    nft = tokens.nftTransfers.add(senderAccountID=account(4001), receiverAccountID=account(4002), serialNumber=1)
    assert nft.serialNumber == 1
    record = new_record(b, (PAYER, -12), (2002, 10), (98, 2))
    record.tokenTransferLists.add().CopyFrom(tokens)
    assert touched(b, record) == {
        "0.0.1001",
        "0.0.2002",
        "0.0.3003",
        "0.0.3004",
        "0.0.4001",
        "0.0.4002",
        "0.0.98",
    }


def test_a_failed_transfer_does_not_reach_the_intended_receiver() -> None:
    b = new_body()
    b.cryptoTransfer.transfers.CopyFrom(transfer_list((PAYER, -10), (2002, 10)))
    record = new_record(b, (PAYER, -2), (98, 2))
    record.receipt.status = hapi.ResponseCodeEnum.Value("INSUFFICIENT_ACCOUNT_BALANCE")
    assert touched(b, record) == {"0.0.1001", "0.0.98"}


def test_a_failed_operation_on_an_account_is_in_its_history() -> None:
    b = new_body()
    b.tokenFreeze.account.CopyFrom(account(2002))
    record = new_record(b)
    record.receipt.status = hapi.ResponseCodeEnum.Value("TOKEN_NOT_ASSOCIATED_TO_ACCOUNT")
    assert "0.0.2002" in touched(b, record)


def test_crypto_create_lists_the_new_account() -> None:
    b = new_body()
    b.cryptoCreateAccount.initialBalance = 100
    b.cryptoCreateAccount.staked_account_id.CopyFrom(account(800))  # configuration, not a party
    record = new_record(b, (PAYER, -102), (98, 2))
    record.receipt.accountID.CopyFrom(account(5005))
    assert touched(b, record) == {"0.0.1001", "0.0.5005", "0.0.98"}


def test_contract_call_lists_contract_created_contracts_and_evm_sender() -> None:
    b = new_body()
    b.contractCall.contractID.CopyFrom(contract(1002))
    record = new_record(b)
    record.receipt.contractID.CopyFrom(contract(1002))
    record.contractCallResult.contractID.CopyFrom(contract(1002))
    record.contractCallResult.createdContractIDs.add().CopyFrom(contract(1003))
    record.contractCallResult.sender_id.CopyFrom(account(7007))
    assert touched(b, record) == {"0.0.1001", "0.0.1002", "0.0.1003", "0.0.7007"}


def test_contract_create_lists_the_new_contract() -> None:
    b = new_body()
    b.contractCreateInstance.gas = 100
    b.contractCreateInstance.auto_renew_account_id.CopyFrom(account(6006))  # configuration
    record = new_record(b)
    record.contractCreateResult.contractID.CopyFrom(contract(1004))
    assert touched(b, record) == {"0.0.1001", "0.0.1004"}


def test_contract_delete_lists_contract_and_beneficiary() -> None:
    b = new_body()
    b.contractDeleteInstance.contractID.CopyFrom(contract(1002))
    b.contractDeleteInstance.transferAccountID.CopyFrom(account(2002))
    assert touched(b, new_record(b)) == {"0.0.1001", "0.0.1002", "0.0.2002"}


def test_crypto_update_and_delete() -> None:
    b = new_body()
    b.cryptoUpdateAccount.accountIDToUpdate.CopyFrom(account(2002))
    b.cryptoUpdateAccount.proxyAccountID.CopyFrom(account(9))  # configuration
    assert touched(b, new_record(b)) == {"0.0.1001", "0.0.2002"}
    b = new_body()
    b.cryptoDelete.deleteAccountID.CopyFrom(account(2002))
    b.cryptoDelete.transferAccountID.CopyFrom(account(2003))
    assert touched(b, new_record(b)) == {"0.0.1001", "0.0.2002", "0.0.2003"}


@pytest.mark.parametrize(
    "case",
    [
        "tokenFreeze",
        "tokenUnfreeze",
        "tokenGrantKyc",
        "tokenRevokeKyc",
        "tokenWipe",
        "tokenAssociate",
        "tokenDissociate",
    ],
)
def test_token_operations_on_an_account(case: str) -> None:
    b = new_body()
    getattr(b, case).account.CopyFrom(account(2002))
    assert touched(b, new_record(b)) == {"0.0.1001", "0.0.2002"}


def test_token_create_lists_treasury_but_not_the_token() -> None:
    b = new_body()
    b.tokenCreation.treasury.CopyFrom(account(2002))
    b.tokenCreation.autoRenewAccount.CopyFrom(account(2003))  # configuration
    record = new_record(b)
    record.receipt.tokenID.tokenNum = 5000
    assert touched(b, record) == {"0.0.1001", "0.0.2002"}


def test_allowances_list_owners_and_spenders() -> None:
    b = new_body()
    b.cryptoApproveAllowance.cryptoAllowances.add(owner=account(2001), spender=account(2002), amount=5)
    b.cryptoApproveAllowance.tokenAllowances.add(owner=account(2003), spender=account(2004), amount=5)
    b.cryptoApproveAllowance.nftAllowances.add(owner=account(2005), spender=account(2006))
    assert touched(b, new_record(b)) == {"0.0.1001", *(f"0.0.{n}" for n in range(2001, 2007))}
    b = new_body()
    b.cryptoDeleteAllowance.nftAllowances.add(owner=account(2007))
    assert touched(b, new_record(b)) == {"0.0.1001", "0.0.2007"}


def test_airdrops_list_senders_and_receivers() -> None:
    b = new_body()
    tokens = b.tokenAirdrop.token_transfers.add()
    tokens.transfers.add(accountID=account(PAYER), amount=-1)
    tokens.transfers.add(accountID=account(2002), amount=1)
    record = new_record(b)
    record.tokenTransferLists.add().CopyFrom(tokens)  # delivered to 0.0.2002 (already associated)
    pending = record.new_pending_airdrops.add()
    pending.pending_airdrop_id.sender_id.CopyFrom(account(PAYER))
    pending.pending_airdrop_id.receiver_id.CopyFrom(account(2003))
    assert touched(b, record) == {"0.0.1001", "0.0.2002", "0.0.2003"}
    b = new_body()
    claim = b.tokenClaimAirdrop.pending_airdrops.add()
    claim.sender_id.CopyFrom(account(2004))
    claim.receiver_id.CopyFrom(account(PAYER))
    assert touched(b, new_record(b)) == {"0.0.1001", "0.0.2004"}


def test_staking_rewards_custom_fees_and_auto_associations() -> None:
    b = new_body()
    record = new_record(b)
    record.paid_staking_rewards.add(accountID=account(2001), amount=7)
    fee = record.assessed_custom_fees.add(amount=1)
    fee.fee_collector_account_id.CopyFrom(account(2002))
    fee.effective_payer_account_id.add().CopyFrom(account(2003))
    record.automatic_token_associations.add().account_id.CopyFrom(account(2004))
    assert touched(b, record) == {"0.0.1001", "0.0.2001", "0.0.2002", "0.0.2003", "0.0.2004"}


def test_schedule_create_payer_and_node_accounts() -> None:
    b = new_body()
    b.scheduleCreate.payerAccountID.CopyFrom(account(2002))
    assert touched(b, new_record(b)) == {"0.0.1001", "0.0.2002"}
    b = new_body()
    b.nodeCreate.account_id.CopyFrom(account(2003))
    assert touched(b, new_record(b)) == {"0.0.1001", "0.0.2003"}


def test_submitting_node_aliases_and_empty_ids_are_left_out() -> None:
    b = new_body()  # nodeAccountID 0.0.3
    b.cryptoUpdateAccount.accountIDToUpdate.CopyFrom(hapi.AccountID(alias=b"\x02" * 33))
    record = new_record(b)
    record.transferList.accountAmounts.add(accountID=hapi.AccountID(), amount=-1)
    assert touched(b, record) == {"0.0.1001"}


def test_shard_and_realm_are_kept() -> None:
    record = new_record()
    record.transferList.accountAmounts.add(accountID=hapi.AccountID(shardNum=1, realmNum=2, accountNum=3), amount=1)
    assert "1.2.3" in touched(None, record)


def test_record_alone_when_the_body_is_unknown() -> None:
    record = new_record(None, (2002, 5))
    assert touched(None, record) == {"0.0.1001", "0.0.2002"}


def test_body_decodes_from_every_transaction_form() -> None:
    b = new_body()
    b.memo = "three forms"
    signed = hapi.SignedTransaction(bodyBytes=b.SerializeToString())
    forms = [
        hapi.Transaction(signedTransactionBytes=signed.SerializeToString()),
        hapi.Transaction(bodyBytes=b.SerializeToString()),
        hapi.Transaction(body=b),
    ]
    for form in forms:
        assert decode_transaction_body(form.SerializeToString()).memo == "three forms"
    with pytest.raises(CorruptFileError):
        decode_transaction_body(b"\xff\xff\xff")


def test_an_id_that_is_no_account_or_contract_is_a_layout_error() -> None:
    with pytest.raises(RowLayoutError):
        entity_text(hapi.basic_types.TokenID(tokenNum=5))
