"""From a drafted transaction body to a record stream item: sign it, charge the fee through the
ledger, write the ``TransactionRecord`` and the facts the ground truth is made of.

Conventions (synthetic, but shaped like mainnet records): the fee goes one twelfth to the
submitting node's account and the rest to the fee collector 0.0.98; receipts of user
transactions carry an exchange rate; child and scheduled-execution records carry no signature.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from hedera_history import hapi
from hedera_history.errors import GeneratorError
from hedera_history.gen.config_and_output import NS_PER_SECOND
from hedera_history.gen.facts import EmittedLog, GeneratedItem, ItemFacts, TopicMessageFacts
from hedera_history.gen.keys import account_key, compressed_public, ecdsa_signature, ed25519_public_bytes
from hedera_history.gen.ledger import FEE_COLLECTOR, Ledger

_NODE_SHARE = 12
"""The submitting node receives fee // 12."""


@dataclass(frozen=True, slots=True)
class Signer:
    key: ed25519.Ed25519PrivateKey
    public: bytes


@dataclass(frozen=True, slots=True)
class Draft:
    """A transaction body and who and when it is for, before it is signed and recorded."""

    body: hapi.TransactionBody
    payer: int
    valid_start: int
    consensus_ns: int
    node: int | None
    """The submitting node; None for child and scheduled-execution records, which nobody signs."""
    nonce: int = 0
    scheduled: bool = False
    cosigners: tuple[Signer, ...] = ()
    """Keys that sign beside the payer's (an account's new key in the CryptoUpdate that sets it)."""
    ecdsa_cosigners: tuple[ec.EllipticCurvePrivateKey, ...] = ()
    """ECDSA secp256k1 keys that sign too (the key of an EVM-address alias a CryptoCreate sets)."""


def set_timestamp(target: hapi.Timestamp, ns: int) -> None:
    target.seconds, target.nanos = divmod(ns, NS_PER_SECOND)


def set_transaction_id(
    target: hapi.TransactionID, payer: int, valid_start_ns: int, nonce: int = 0, scheduled: bool = False
) -> None:
    target.accountID.accountNum = payer
    set_timestamp(target.transactionValidStart, valid_start_ns)
    if nonce:
        target.nonce = nonce
    if scheduled:
        target.scheduled = True


def fill_amounts(target: Any, changes: dict[int, int]) -> tuple[tuple[int, int], ...]:
    """Append ``AccountAmount``s to the repeated field ``target``, by account, zeros left out."""
    pairs = tuple((account, amount) for account, amount in sorted(changes.items()) if amount)
    for account, amount in pairs:
        entry = target.add()
        entry.accountID.accountNum = account
        entry.amount = amount
    return pairs


@dataclass(frozen=True, slots=True)
class RecordDetails:
    """What a record says beyond its transaction, fee and hbar moves (all optional)."""

    status: str = "SUCCESS"
    created: tuple[int, ...] = ()
    contract: int | None = None
    token_moves: tuple[tuple[int, int, int], ...] = ()
    """(token, account, amount)"""
    nft_moves: tuple[tuple[int, int, int, int], ...] = ()
    """(token, sender, receiver, serial)"""
    fill: Callable[[hapi.TransactionRecord], None] | None = None
    """Writes the kind's own record fields (receipt ids, contract results)."""
    sidecars: tuple[tuple[int, bytes], ...] = ()
    """(sidecar type, serialised TransactionSidecarRecord)"""
    parent_ns: int | None = None
    topic_created: int | None = None
    topic_message: TopicMessageFacts | None = None
    system_file: tuple[int, bytes] | None = None
    automatic_associations: tuple[tuple[int, int], ...] = ()
    """(token, account) associations the transaction made without a TokenAssociate."""
    pending_airdrops: tuple[tuple[int, int, int, int, int], ...] = ()
    """(sender, receiver, token, serial, amount pending after it): serial 0 for a fungible token."""
    token_created: int | None = None
    body_accounts: tuple[int, ...] = ()
    staking_rewards: tuple[tuple[int, int], ...] = ()
    """(account, tinybar) of the record's ``paid_staking_rewards``; the moves carry them."""
    logs: tuple[EmittedLog, ...] = ()
    """The logs the ``fill`` writes into a call's result."""


class ItemWriter:
    """Signs, charges and records drafted transactions against one ledger."""

    def __init__(self, seed: int, ledger: Ledger) -> None:
        self.seed = seed
        self.ledger = ledger
        self._signers: dict[int, Signer] = {}
        self._generations: dict[int, int] = {}
        self._rates: dict[int, Any] = {}

    def finish(
        self,
        draft: Draft,
        fee: int,
        moves: dict[int, int],
        details: RecordDetails = RecordDetails(),
        *,
        fee_node: int | None = None,
    ) -> GeneratedItem:
        """Sign (when a node submitted it), charge the fee, move ``moves`` through the ledger and
        write the record with ``details``; ``fee_node`` takes the node's share when the draft has
        no node."""
        body, payer, consensus_ns = draft.body, draft.payer, draft.consensus_ns
        body_bytes = body.SerializeToString()
        signed_transaction = hapi.SignedTransaction(bodyBytes=body_bytes)
        if draft.node is not None:
            for signer in (self.signer(payer), *draft.cosigners):
                pair = signed_transaction.sigMap.sigPair.add()
                pair.pubKeyPrefix = signer.public
                pair.ed25519 = signer.key.sign(body_bytes)
            for ecdsa_key in draft.ecdsa_cosigners:
                pair = signed_transaction.sigMap.sigPair.add()
                pair.pubKeyPrefix = compressed_public(ecdsa_key)
                pair.ECDSA_secp256k1 = ecdsa_signature(ecdsa_key, body_bytes)
        signed_bytes = signed_transaction.SerializeToString()
        transaction_bytes = hapi.Transaction(signedTransactionBytes=signed_bytes).SerializeToString()
        transaction_hash = hashlib.sha384(signed_bytes).digest()

        changes = dict(moves)
        if fee:
            collector = draft.node if draft.node is not None else fee_node
            if collector is None:
                raise GeneratorError("a fee needs a node account to go to")
            node_share = fee // _NODE_SHARE
            changes[payer] = changes.get(payer, 0) - fee
            changes[collector] = changes.get(collector, 0) + node_share
            changes[FEE_COLLECTOR] = changes.get(FEE_COLLECTOR, 0) + fee - node_share
        self.ledger.transfer_hbar(changes.items())

        record = hapi.TransactionRecord()
        record.receipt.status = hapi.ResponseCodeEnum.Value(details.status)
        if draft.node is not None:
            record.receipt.exchangeRate.CopyFrom(self._exchange_rates(consensus_ns))
        record.transactionHash = transaction_hash
        set_timestamp(record.consensusTimestamp, consensus_ns)
        set_transaction_id(record.transactionID, payer, draft.valid_start, draft.nonce, draft.scheduled)
        record.memo = body.memo
        record.transactionFee = fee
        hbar_transfers = fill_amounts(record.transferList.accountAmounts, changes)
        token_moves, nft_moves = details.token_moves, details.nft_moves
        _add_token_records(record, details)
        for rewarded, reward in details.staking_rewards:
            record.paid_staking_rewards.add(accountID=hapi.AccountID(accountNum=rewarded), amount=reward)
        if details.fill is not None:
            details.fill(record)

        facts = ItemFacts(
            consensus_ns=consensus_ns,
            transaction_hash=transaction_hash,
            payer=payer,
            valid_start_ns=draft.valid_start,
            nonce=draft.nonce,
            scheduled=draft.scheduled,
            type=body.WhichOneof("data") or "",
            status=details.status,
            fee=fee,
            memo=body.memo,
            node=draft.node,
            hbar_transfers=hbar_transfers,
            token_transfers=token_moves,
            nft_transfers=nft_moves,
            created=details.created,
            contract=details.contract,
            parent_consensus_ns=details.parent_ns,
            sidecar_types=tuple(sorted({kind for kind, _ in details.sidecars})),
            topic_created=details.topic_created,
            topic_message=details.topic_message,
            system_file=details.system_file,
            automatic_associations=details.automatic_associations,
            pending_airdrops=details.pending_airdrops,
            token_created=details.token_created,
            body_accounts=details.body_accounts,
            staking_rewards=details.staking_rewards,
            logs=details.logs,
        )
        return GeneratedItem(
            transaction_bytes=transaction_bytes,
            record_bytes=record.SerializeToString(),
            sidecar_records=tuple(data for _, data in details.sidecars),
            facts=facts,
        )

    def _exchange_rates(self, consensus_ns: int) -> Any:
        """The ``ExchangeRateSet`` receipts carry, changing on the hour as mainnet's does."""
        expiry = (consensus_ns // NS_PER_SECOND // 3600 + 1) * 3600
        rates = self._rates.get(expiry)
        if rates is None:
            holder = hapi.TransactionReceipt()
            rates = holder.exchangeRate
            rates.currentRate.hbarEquiv = 30_000
            rates.currentRate.centEquiv = 180_000
            rates.currentRate.expirationTime.seconds = expiry
            rates.nextRate.hbarEquiv = 30_000
            rates.nextRate.centEquiv = 181_000
            rates.nextRate.expirationTime.seconds = expiry + 3600
            self._rates = {expiry: rates}
        return rates

    def signer(self, account: int) -> Signer:
        """The Ed25519 key (and its raw public bytes) account ``0.0.<account>`` holds now."""
        signer = self._signers.get(account)
        if signer is None:
            key = account_key(self.seed, account)
            signer = self._signers[account] = Signer(key, ed25519_public_bytes(key))
        return signer

    def next_key(self, account: int) -> Signer:
        """The key a CryptoUpdate gives the account next (not in force until :meth:`rekey`)."""
        generation = self._generations.get(account, 0) + 1
        key = account_key(self.seed, account, generation)
        return Signer(key, ed25519_public_bytes(key))

    def rekey(self, account: int, signer: Signer) -> None:
        """The account's transactions are signed with ``signer`` from now on."""
        self._generations[account] = self._generations.get(account, 0) + 1
        self._signers[account] = signer


def _add_token_records(record: hapi.TransactionRecord, details: RecordDetails) -> None:
    """The record's token transfer lists (one per token, by number), automatic associations and
    new pending airdrops."""
    token_moves, nft_moves = details.token_moves, details.nft_moves
    for token in sorted({move[0] for move in token_moves} | {move[0] for move in nft_moves}):
        token_list = record.tokenTransferLists.add()
        token_list.token.tokenNum = token
        fill_amounts(token_list.transfers, {account: amount for t, account, amount in token_moves if t == token})
        for _, sender, receiver, serial in (move for move in nft_moves if move[0] == token):
            nft = token_list.nftTransfers.add()
            if sender:  # a mint's serials come from no account, a burn's go to none
                nft.senderAccountID.accountNum = sender
            if receiver:
                nft.receiverAccountID.accountNum = receiver
            nft.serialNumber = serial
    for token, account in details.automatic_associations:
        association = record.automatic_token_associations.add()
        association.token_id.tokenNum = token
        association.account_id.accountNum = account
    for sender, receiver, token, serial, amount in details.pending_airdrops:
        pending = record.new_pending_airdrops.add()
        set_pending_airdrop_id(pending.pending_airdrop_id, sender, receiver, token, serial)
        if not serial:
            pending.pending_airdrop_value.amount = amount


def set_pending_airdrop_id(target: Any, sender: int, receiver: int, token: int, serial: int) -> None:
    """A ``PendingAirdropId``: an NFT's serial, or (serial 0) a fungible token."""
    target.sender_id.accountNum = sender
    target.receiver_id.accountNum = receiver
    if serial:
        target.non_fungible_token.token_ID.tokenNum = token
        target.non_fungible_token.serial_number = serial
    else:
        target.fungible_token_type.tokenNum = token
