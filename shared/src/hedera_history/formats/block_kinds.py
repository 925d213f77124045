"""What each kind of transaction adds to its record, from its outputs, its body and the state changes.

One function per body case, each as the reference mirror node's transformer of that transaction
type (``downloader/block/transformer/*Transformer.java``): most fill only the receipt, and only
when the transaction succeeded. Where the reference fails the whole block because the block
lacks what it expects (an account create without its output, a token create with no token in
state), the field is left unset instead: the rest of the record stands.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hedera_history import hapi
from hedera_history.formats.block_state import StateContext
from hedera_history.formats.block_transactions import BlockTransaction
from hedera_history.formats.evm import EVM_ADDRESS_BYTES, keccak256, long_zero_number

RUNNING_HASH_VERSION = 3
"""The topic running hash version a submit's receipt states: blocks no longer carry it, and the
reference sets the version in force since HAPI 0.30."""

IDENTICAL_SCHEDULE_ALREADY_CREATED = hapi.ResponseCodeEnum.Value("IDENTICAL_SCHEDULE_ALREADY_CREATED")


class Transformation:
    """One transaction being turned into its record."""

    __slots__ = ("context", "record", "successful", "transaction")

    def __init__(self, transaction: BlockTransaction, record: Any, context: StateContext, successful: bool) -> None:
        self.transaction = transaction
        self.record = record
        self.context = context
        self.successful = successful

    @property
    def receipt(self) -> Any:
        return self.record.receipt


def _crypto_create(t: Transformation) -> None:
    if not t.successful:
        return
    alias = t.transaction.body.cryptoCreateAccount.alias
    if len(alias) == EVM_ADDRESS_BYTES:
        t.record.evm_address = alias
    output = t.transaction.output("account_create")
    if output is not None:
        t.receipt.accountID.CopyFrom(output.account_create.created_account_id)


def _crypto_update(t: Transformation) -> None:
    if not t.successful:
        return
    target = t.transaction.body.cryptoUpdateAccount.accountIDToUpdate
    which = target.WhichOneof("account")
    if which == "accountNum":
        t.receipt.accountID.CopyFrom(target)
    elif which == "alias":
        resolved = t.context.account_ids.get(bytes(target.alias))
        if resolved is not None:
            t.receipt.accountID.CopyFrom(resolved)


def _contract_call(t: Transformation) -> None:
    result = t.record.contractCallResult
    if result.HasField("contractID"):
        t.receipt.contractID.CopyFrom(result.contractID)


def _contract_target(t: Transformation, contract_id: Any) -> None:
    """The receipt's contract for an update or delete: the body's, its number read from a
    long-zero address in the same shard and realm, or the contract state holds at that address."""
    if not t.successful:
        return
    if contract_id.WhichOneof("contract") != "evm_address":
        t.receipt.contractID.CopyFrom(contract_id)
        return
    address = bytes(contract_id.evm_address)
    number = long_zero_number(address)
    if number is not None:
        t.receipt.contractID.CopyFrom(
            hapi.basic_types.ContractID(
                shardNum=contract_id.shardNum, realmNum=contract_id.realmNum, contractNum=number
            )
        )
        return
    resolved = t.context.contract_ids.get(address)
    if resolved is not None:
        t.receipt.contractID.CopyFrom(resolved)


def _contract_update(t: Transformation) -> None:
    _contract_target(t, t.transaction.body.contractUpdateInstance.contractID)


def _contract_delete(t: Transformation) -> None:
    _contract_target(t, t.transaction.body.contractDeleteInstance.contractID)


def _ethereum(t: Transformation) -> None:
    body = t.transaction.body.ethereumTransaction
    if not body.HasField("call_data"):
        # The hash of the signed Ethereum transaction; with its call data in a file, the hash is
        # of the transaction with that data in place, which needs the file (left unset).
        t.record.ethereum_hash = keccak256(body.ethereum_data)
    record = t.record
    if not record.HasField("contractCallResult") and not record.HasField("contractCreateResult"):
        return
    result = record.contractCallResult if record.HasField("contractCallResult") else record.contractCreateResult
    if result.gasUsed == 0:
        t.receipt.ClearField("contractID")
    sender = t.context.account(result.sender_id)
    if sender is not None:
        result.signer_nonce.value = sender.ethereum_nonce


def _file_create(t: Transformation) -> None:
    if t.successful and (file_id := t.context.new_file_id()) is not None:
        t.receipt.fileID.CopyFrom(file_id)


def _node_create(t: Transformation) -> None:
    if t.successful and (node_id := t.context.new_node_id()) is not None:
        t.receipt.node_id = node_id


def _registered_node_create(t: Transformation) -> None:
    if t.successful and (node_id := t.context.new_registered_node_id()) is not None:
        t.receipt.registered_node_id = node_id


def _topic_create(t: Transformation) -> None:
    if t.successful and (topic_id := t.context.new_topic_id()) is not None:
        t.receipt.topicID.CopyFrom(topic_id)


def _topic_submit(t: Transformation) -> None:
    if not t.successful:
        return
    t.receipt.topicRunningHashVersion = RUNNING_HASH_VERSION
    message = None
    for trace in t.transaction.trace_data:
        if trace.WhichOneof("data") == "submit_message_trace_data":
            data = trace.submit_message_trace_data
            message = (bytes(data.running_hash), data.sequence_number)
            break
    if message is None:
        found = t.context.topic_message(t.transaction.body.consensusSubmitMessage.topicID)
        if found is None:
            return
        message = (found.running_hash, found.sequence_number)
    t.receipt.topicRunningHash, t.receipt.topicSequenceNumber = message


def _schedule_create(t: Transformation) -> None:
    if not t.successful and t.transaction.result.status != IDENTICAL_SCHEDULE_ALREADY_CREATED:
        return
    output = t.transaction.output("create_schedule")
    if output is None:
        return
    created = output.create_schedule
    t.receipt.scheduleID.CopyFrom(created.schedule_id)
    if created.HasField("scheduled_transaction_id"):
        t.receipt.scheduledTransactionID.CopyFrom(created.scheduled_transaction_id)


def _schedule_sign(t: Transformation) -> None:
    if not t.successful:
        return
    output = t.transaction.output("sign_schedule")
    if output is not None and output.sign_schedule.HasField("scheduled_transaction_id"):
        t.receipt.scheduledTransactionID.CopyFrom(output.sign_schedule.scheduled_transaction_id)


def _token_create(t: Transformation) -> None:
    if not t.successful:
        return
    t.receipt.newTotalSupply = t.transaction.body.tokenCreation.initialSupply
    token_id = t.context.new_token_id()
    if token_id is not None:
        t.receipt.tokenID.CopyFrom(token_id)


def _total_supply(t: Transformation, token_id: Any, change: int) -> None:
    supply = t.context.track_token_supply(token_id, change)
    if supply is not None:
        t.receipt.newTotalSupply = supply


def _token_mint(t: Transformation) -> None:
    if not t.successful:
        return
    serials = sorted(
        nft.serialNumber for transfers in t.transaction.result.token_transfer_lists for nft in transfers.nftTransfers
    )
    t.receipt.serialNumbers.extend(serials)
    body = t.transaction.body.tokenMint
    _total_supply(t, body.token, -(body.amount + len(body.metadata)))


def _token_burn(t: Transformation) -> None:
    if t.successful:
        body = t.transaction.body.tokenBurn
        _total_supply(t, body.token, body.amount + len(body.serialNumbers))


def _token_wipe(t: Transformation) -> None:
    if t.successful:
        body = t.transaction.body.tokenWipe
        _total_supply(t, body.token, body.amount + len(body.serialNumbers))


def _token_airdrop(t: Transformation) -> None:
    """Pending airdrops: what the body sends that the result shows no account receiving."""
    if not t.successful:
        return
    credited: set[tuple[bytes, bytes]] = set()
    for transfers in t.transaction.result.token_transfer_lists:
        token = transfers.token.SerializeToString(deterministic=True)
        credited.update(
            (token, a.accountID.SerializeToString(deterministic=True)) for a in transfers.transfers if a.amount > 0
        )
        credited.update(
            (token, n.receiverAccountID.SerializeToString(deterministic=True)) for n in transfers.nftTransfers
        )
    for transfers in t.transaction.body.tokenAirdrop.token_transfers:
        token = transfers.token.SerializeToString(deterministic=True)
        senders = [a.accountID for a in transfers.transfers if a.amount < 0]
        sender = senders[-1] if senders else hapi.AccountID()
        for amount in transfers.transfers:
            if amount.amount < 0 or (token, amount.accountID.SerializeToString(deterministic=True)) in credited:
                continue
            pending = t.record.new_pending_airdrops.add()
            airdrop_id = pending.pending_airdrop_id
            airdrop_id.receiver_id.CopyFrom(amount.accountID)
            airdrop_id.sender_id.CopyFrom(sender)
            airdrop_id.fungible_token_type.CopyFrom(transfers.token)
            tracked = t.context.track_pending_airdrop(airdrop_id, amount.amount)
            pending.pending_airdrop_value.amount = tracked if tracked is not None else amount.amount
        for nft in transfers.nftTransfers:
            if (token, nft.receiverAccountID.SerializeToString(deterministic=True)) in credited:
                continue
            airdrop_id = t.record.new_pending_airdrops.add().pending_airdrop_id
            airdrop_id.sender_id.CopyFrom(nft.senderAccountID)
            airdrop_id.receiver_id.CopyFrom(nft.receiverAccountID)
            airdrop_id.non_fungible_token.token_ID.CopyFrom(transfers.token)
            airdrop_id.non_fungible_token.serial_number = nft.serialNumber


def _util_prng(t: Transformation) -> None:
    if not t.successful:
        return
    output = t.transaction.output("util_prng")
    if output is None:
        return
    prng = output.util_prng
    which = prng.WhichOneof("entropy")
    if which == "prng_number":
        t.record.prng_number = prng.prng_number
    elif which == "prng_bytes":
        t.record.prng_bytes = prng.prng_bytes


KIND_TRANSFORMS: dict[str, Callable[[Transformation], None]] = {
    "consensusCreateTopic": _topic_create,
    "consensusSubmitMessage": _topic_submit,
    "contractCall": _contract_call,
    "contractDeleteInstance": _contract_delete,
    "contractUpdateInstance": _contract_update,
    "cryptoCreateAccount": _crypto_create,
    "cryptoUpdateAccount": _crypto_update,
    "ethereumTransaction": _ethereum,
    "fileCreate": _file_create,
    "nodeCreate": _node_create,
    "registeredNodeCreate": _registered_node_create,
    "scheduleCreate": _schedule_create,
    "scheduleSign": _schedule_sign,
    "tokenAirdrop": _token_airdrop,
    "tokenBurn": _token_burn,
    "tokenCreation": _token_create,
    "tokenMint": _token_mint,
    "tokenWipe": _token_wipe,
    "util_prng": _util_prng,
}
"""Body case -> what that kind adds; every other kind gets the common fields only."""
