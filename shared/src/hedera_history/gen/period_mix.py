"""Which transactions a period holds, and in what order.

A period is a list of groups; a group is one kind of transaction and fills one or more record
stream items (a call with its child record, an original with its duplicate, a schedule with its
execution, an address-book update with its appends). Every kind appears early in the stream when
the periods have room (the coverage list), the rest is a weighted random mix.
"""

from __future__ import annotations

import random
from enum import Enum


class TxKind(Enum):
    HBAR_TRANSFER = "hbar_transfer"
    TOKEN_TRANSFER = "token_transfer"
    NFT_TRANSFER = "nft_transfer"
    CRYPTO_CREATE = "crypto_create"
    CONTRACT_CREATE = "contract_create"
    CONTRACT_CALL = "contract_call"
    CONTRACT_CALL_WITH_CHILD = "contract_call_with_child"
    FAILED_TRANSFER = "failed_transfer"
    DUPLICATE = "duplicate"
    SCHEDULED_TRANSFER = "scheduled_transfer"
    ADDRESS_BOOK_UPDATE = "address_book_update"
    TOPIC_CREATE = "topic_create"
    TOPIC_MESSAGE = "topic_message"
    TOPIC_CHUNKED_MESSAGE = "topic_chunked_message"
    EXCHANGE_RATE_UPDATE = "exchange_rate_update"
    FEE_SCHEDULE_UPDATE = "fee_schedule_update"
    TOKEN_CREATE = "token_create"
    TOKEN_ASSOCIATE = "token_associate"
    TOKEN_MINT = "token_mint"
    TOKEN_BURN = "token_burn"
    CREATED_TOKEN_TRANSFER = "created_token_transfer"
    APPROVE_ALLOWANCE = "approve_allowance"
    APPROVED_TRANSFER = "approved_transfer"
    TOKEN_AIRDROP = "token_airdrop"
    TOKEN_CLAIM_AIRDROP = "token_claim_airdrop"
    TOKEN_CANCEL_AIRDROP = "token_cancel_airdrop"
    CRYPTO_UPDATE = "crypto_update"
    SCHEDULE_PENDING = "schedule_pending"
    SCHEDULE_SIGN = "schedule_sign"
    EVM_ACCOUNT_CREATE = "evm_account_create"
    LAZY_CREATE = "lazy_create"
    EVM_ACCOUNT_TRANSFER = "evm_account_transfer"


GROUP_SIZE = {
    TxKind.CONTRACT_CALL_WITH_CHILD: 2,
    TxKind.DUPLICATE: 2,
    TxKind.SCHEDULED_TRANSFER: 2,
    TxKind.TOPIC_CHUNKED_MESSAGE: 3,
    TxKind.FEE_SCHEDULE_UPDATE: 2,
    TxKind.SCHEDULE_SIGN: 2,
    TxKind.LAZY_CREATE: 2,
}
"""Items per group; 1 when not listed. An address-book update takes one item per file chunk."""

COVERAGE = (
    TxKind.HBAR_TRANSFER,
    TxKind.CONTRACT_CREATE,
    TxKind.TOKEN_TRANSFER,
    TxKind.NFT_TRANSFER,
    TxKind.CRYPTO_CREATE,
    TxKind.CONTRACT_CALL,
    TxKind.CONTRACT_CALL_WITH_CHILD,
    TxKind.FAILED_TRANSFER,
    TxKind.DUPLICATE,
    TxKind.SCHEDULED_TRANSFER,
)

_MIX = {
    TxKind.HBAR_TRANSFER: 50,
    TxKind.TOKEN_TRANSFER: 14,
    TxKind.NFT_TRANSFER: 8,
    TxKind.CRYPTO_CREATE: 3,
    TxKind.CONTRACT_CREATE: 2,
    TxKind.CONTRACT_CALL: 10,
    TxKind.CONTRACT_CALL_WITH_CHILD: 3,
    TxKind.FAILED_TRANSFER: 4,
    TxKind.DUPLICATE: 3,
    TxKind.SCHEDULED_TRANSFER: 3,
}
TOPIC_MIX = {TxKind.TOPIC_MESSAGE: 30, TxKind.TOPIC_CHUNKED_MESSAGE: 4}
"""Added to the mix of a stream with topics (``GeneratorConfig.topics``): HCS is most of mainnet."""
TOKENS_COVERAGE = (
    TxKind.TOKEN_CREATE,
    TxKind.TOKEN_CREATE,
    TxKind.CRYPTO_UPDATE,
    TxKind.TOKEN_ASSOCIATE,
    TxKind.TOKEN_MINT,
    TxKind.TOKEN_MINT,
    TxKind.CREATED_TOKEN_TRANSFER,
    TxKind.APPROVE_ALLOWANCE,
    TxKind.APPROVED_TRANSFER,
    TxKind.TOKEN_AIRDROP,
    TxKind.TOKEN_AIRDROP,
    TxKind.TOKEN_CLAIM_AIRDROP,
    TxKind.TOKEN_CANCEL_AIRDROP,
    TxKind.TOKEN_BURN,
    TxKind.SCHEDULE_PENDING,
    TxKind.SCHEDULE_SIGN,
    TxKind.EVM_ACCOUNT_CREATE,
    TxKind.LAZY_CREATE,
    TxKind.EVM_ACCOUNT_TRANSFER,
)
"""The token service kinds a stream with ``GeneratorConfig.tokens`` plays first: a kind whose
precondition does not hold yet plays the kind that makes it hold (``gen.token_player``)."""
TOKENS_MIX = {
    TxKind.CREATED_TOKEN_TRANSFER: 14,
    TxKind.TOKEN_CREATE: 1,
    TxKind.TOKEN_ASSOCIATE: 3,
    TxKind.TOKEN_MINT: 3,
    TxKind.TOKEN_BURN: 1,
    TxKind.APPROVE_ALLOWANCE: 2,
    TxKind.APPROVED_TRANSFER: 3,
    TxKind.TOKEN_AIRDROP: 3,
    TxKind.TOKEN_CLAIM_AIRDROP: 1,
    TxKind.TOKEN_CANCEL_AIRDROP: 1,
    TxKind.CRYPTO_UPDATE: 2,
    TxKind.SCHEDULE_PENDING: 1,
    TxKind.SCHEDULE_SIGN: 1,
    TxKind.EVM_ACCOUNT_CREATE: 1,
    TxKind.LAZY_CREATE: 1,
    TxKind.EVM_ACCOUNT_TRANSFER: 2,
}
"""Added to the mix of a stream with ``GeneratorConfig.tokens``: token transfers are most of
mainnet's token service traffic, creates and allowances a small share."""
NETWORK_FILES_MIX = {TxKind.EXCHANGE_RATE_UPDATE: 2, TxKind.FEE_SCHEDULE_UPDATE: 1}
"""Added to the mix of a stream with network file updates (``GeneratorConfig.network_files``)."""


def group_size(kind: TxKind, book_chunks: int) -> int:
    if kind is TxKind.ADDRESS_BOOK_UPDATE:
        return book_chunks
    return GROUP_SIZE.get(kind, 1)


def plan_period(
    rng: random.Random,
    capacity: int,
    pending_coverage: list[TxKind],
    *,
    address_book_update: bool = False,
    book_chunks: int = 2,
    extra_mix: dict[TxKind, int] | None = None,
) -> list[TxKind]:
    """The groups of one period, filling exactly ``capacity`` items.

    Kinds of ``pending_coverage`` that fit are placed and removed from it; the rest of the
    period is drawn from the mix (with ``extra_mix`` added). The address-book update, when asked
    for, must fit.
    """
    mix = _MIX if not extra_mix else {**_MIX, **extra_mix}
    kinds, weights = tuple(mix), tuple(mix.values())
    groups: list[TxKind] = []
    left = capacity
    if address_book_update:
        groups.append(TxKind.ADDRESS_BOOK_UPDATE)
        left -= book_chunks
    for kind in list(pending_coverage):
        size = group_size(kind, book_chunks)
        if size <= left:
            groups.append(kind)
            pending_coverage.remove(kind)
            left -= size
    while left > 0:
        kind = rng.choices(kinds, weights)[0]
        if group_size(kind, book_chunks) > left:
            kind = TxKind.HBAR_TRANSFER
        groups.append(kind)
        left -= group_size(kind, book_chunks)
    rng.shuffle(groups)
    return groups
