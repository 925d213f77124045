"""The ground truth of the token service state, accounts' keys and memos, and schedules: the
``token_state`` section of a stream generated with ``GeneratorConfig.tokens``
(docs/generator.md describes each field)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hedera_history.gen.account_player import AccountPlayer
from hedera_history.gen.evm_accounts import EvmAccount
from hedera_history.gen.ledger import Ledger
from hedera_history.gen.token_ledger import TokenLedger
from hedera_history.gen.truth import account, token_balances


def token_state(
    ledger: Ledger,
    accounts: AccountPlayer,
    genesis_balances: Mapping[int, Mapping[int, int]],
    by_block: Mapping[str, dict[str, dict[str, int]]],
    evm_accounts: Mapping[int, EvmAccount],
) -> dict[str, Any]:
    tokens = ledger.tokens
    return {
        "tokens": {
            account(t): {
                "type": "FUNGIBLE_COMMON" if info.fungible else "NON_FUNGIBLE_UNIQUE",
                "name": info.name,
                "symbol": info.symbol,
                "memo": info.memo,
                "decimals": info.decimals,
                "treasury": account(info.treasury),
                "created_ns": info.created_ns,
                "total_supply": info.supply,
            }
            for t, info in sorted(tokens.tokens.items())
        },
        "associations": {
            account(t): [account(a) for a in sorted(held)] for t, held in sorted(tokens.associations.items())
        },
        "balances": {
            "genesis": token_balances(genesis_balances),
            "by_block": dict(by_block),
            "final": token_balances(tokens.all_balances()),
        },
        "nft_owners": {
            account(t): {str(serial): account(owner) for serial, owner in sorted(owners.items())}
            for t, owners in sorted(tokens.nft_owners.items())
        },
        "allowances": {
            "hbar": [
                {"owner": account(o), "spender": account(s), "amount": amount}
                for (o, s), amount in sorted(tokens.hbar_allowances.items())
            ],
            "token": [
                {"token": account(t), "owner": account(o), "spender": account(s), "amount": amount}
                for (t, o, s), amount in sorted(tokens.token_allowances.items())
            ],
            "nft": _nft_allowances(tokens),
        },
        "pending_airdrops": [
            {"sender": account(s), "receiver": account(r), "token": account(t), "serial": serial or None, "amount": a}
            for (s, r, t, serial), a in sorted(tokens.pending.items())
        ],
        "schedules": {
            account(s.schedule): {
                "creator": account(s.creator),
                "payer": account(s.payer),
                "created_ns": s.created_ns,
                "signatures": [account(a) for a in s.signatures],
                "executed_ns": s.executed_ns,
            }
            for s in sorted(tokens.schedules.values(), key=lambda s: s.schedule)
        },
        "account_keys": _account_keys(ledger, accounts, evm_accounts),
        "evm_accounts": {
            account(num): {
                "evm_address": "0x" + held.evm_address.hex(),
                "ecdsa_key": held.ecdsa_key.hex() if held.ecdsa_key is not None else None,
                "created_ns": held.created_ns,
            }
            for num, held in sorted(evm_accounts.items())
        },
    }


def _nft_allowances(tokens: TokenLedger) -> list[dict[str, Any]]:
    by_spender: dict[tuple[int, int, int], list[int]] = {}
    for (token, serial), spender in tokens.nft_spenders.items():
        owner = tokens.nft_owners[token].get(serial)
        if owner is not None:
            by_spender.setdefault((token, owner, spender), []).append(serial)
    rows: list[dict[str, Any]] = [
        {"token": account(t), "owner": account(o), "spender": account(s), "serials": sorted(serials)}
        for (t, o, s), serials in sorted(by_spender.items())
    ]
    rows += [
        {"token": account(t), "owner": account(o), "spender": account(s), "approved_for_all": True}
        for t, o, s in sorted(tokens.nft_approved_for_all)
    ]
    return rows


def _account_keys(
    ledger: Ledger, accounts: AccountPlayer, evm_accounts: Mapping[int, EvmAccount]
) -> dict[str, list[dict[str, Any]]]:
    """Every account's Ed25519 key (hex), memo and automatic association slots, from genesis or
    its creation on, with one entry more per CryptoUpdate (``from_ns`` its consensus time); the
    accounts an EVM address names have no Ed25519 key (``evm_accounts`` holds theirs)."""
    contracts = set(ledger.contracts) | set(evm_accounts)
    keyed = {}
    for num in sorted(ledger.hbar):
        if num in contracts:
            continue
        states = accounts.states.get(num) or [accounts.state_of(num)]
        keyed[account(num)] = [
            {
                "from_ns": state.from_ns,
                "key": state.key.hex(),
                "memo": state.memo,
                "max_automatic_token_associations": state.max_automatic_token_associations,
            }
            for state in states
        ]
    return keyed
