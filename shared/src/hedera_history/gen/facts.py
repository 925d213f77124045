"""What the generator knows about each item it wrote: the ground truth of one transaction."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TopicMessageFacts:
    """A ConsensusSubmitMessage as the network numbered and hashed it."""

    topic: int
    sequence_number: int
    running_hash: bytes
    """Version 3 (``verify.topic_running_hash``)."""
    message: bytes
    chunk: tuple[int, int] | None = None
    """(number, total) of a chunked message; its first chunk's transaction id is the initial one."""


@dataclass(frozen=True, slots=True)
class EmittedLog:
    """One log of a call's result: the contract that emitted it, its topics (32 bytes each), its data."""

    contract: int
    topics: tuple[bytes, ...]
    data: bytes


@dataclass(frozen=True, slots=True)
class ItemFacts:
    """One record stream item as the generator meant it (accounts are ``0.0.<num>`` by ``num``)."""

    consensus_ns: int
    transaction_hash: bytes
    payer: int
    valid_start_ns: int
    nonce: int
    scheduled: bool
    type: str
    """The ``TransactionBody`` oneof name, e.g. ``cryptoTransfer``."""
    status: str
    """``ResponseCodeEnum`` name of the receipt status."""
    fee: int
    """The record's ``transactionFee`` (tinybar charged)."""
    memo: str
    node: int | None
    """The body's ``nodeAccountID``; None for child and scheduled records."""
    hbar_transfers: tuple[tuple[int, int], ...]
    """The record's transfer list: (account, tinybar), by account."""
    token_transfers: tuple[tuple[int, int, int], ...] = ()
    """(token, account, amount) of fungible token transfers."""
    nft_transfers: tuple[tuple[int, int, int, int], ...] = ()
    """(token, sender, receiver, serial number)."""
    created: tuple[int, ...] = ()
    """Accounts and contracts the record names as created (receipt, or ``createdContractIDs``)."""
    contract: int | None = None
    """The contract a contract call or create targets."""
    parent_consensus_ns: int | None = None
    sidecar_types: tuple[int, ...] = ()
    topic_created: int | None = None
    """The topic a ConsensusCreateTopic created."""
    topic_message: TopicMessageFacts | None = None
    system_file: tuple[int, bytes] | None = None
    """(file, contents) of a FileUpdate or FileAppend of 0.0.111 or 0.0.112 (``gen.network_files``)."""
    automatic_associations: tuple[tuple[int, int], ...] = ()
    """(token, account) of the record's ``automatic_token_associations``."""
    pending_airdrops: tuple[tuple[int, int, int, int, int], ...] = ()
    """(sender, receiver, token, serial, amount) of the record's ``new_pending_airdrops`` (serial 0:
    fungible; amount: what is pending after the airdrop)."""
    token_created: int | None = None
    body_accounts: tuple[int, ...] = ()
    """Accounts the body names besides the payer and the record's lists: allowance spenders, the
    other side of a claimed or cancelled airdrop."""
    staking_rewards: tuple[tuple[int, int], ...] = ()
    """(account, tinybar) of the record's ``paid_staking_rewards`` (``GeneratorConfig.staking_rewards``)."""
    logs: tuple[EmittedLog, ...] = ()
    """The logs of a call's result, in order (``GeneratorConfig.contract_logs``)."""

    def accounts_touched(self) -> tuple[int, ...]:
        """The accounts whose history lists this item (docs/generator.md defines the rule).

        The payer, every account in the hbar and token transfer lists, NFT senders and receivers,
        accounts associated automatically, both sides of a new pending airdrop, the accounts the
        body names (``body_accounts``), accounts and contracts created, and the contract a call or
        create targets; sorted by number.
        """
        touched = {self.payer}
        touched.update(account for account, _ in self.hbar_transfers)
        touched.update(account for _, account, _ in self.token_transfers)
        for _, sender, receiver, _ in self.nft_transfers:
            touched.update(account for account in (sender, receiver) if account)  # 0: a mint or a burn
        touched.update(account for _, account in self.automatic_associations)
        for sender, receiver, _, _, _ in self.pending_airdrops:
            touched.update((sender, receiver))
        touched.update(self.body_accounts)
        touched.update(self.created)
        if self.contract is not None:
            touched.add(self.contract)
        return tuple(sorted(touched))


@dataclass(frozen=True, slots=True)
class GeneratedItem:
    """One record stream item: the exact bytes of its two fields, its sidecar records, its facts."""

    transaction_bytes: bytes
    record_bytes: bytes
    sidecar_records: tuple[bytes, ...]
    """Serialised ``TransactionSidecarRecord`` messages, in the order they go into the sidecar file."""
    facts: ItemFacts
