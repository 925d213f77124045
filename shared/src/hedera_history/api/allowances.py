"""The reference's allowance routes from the history we keep: an owner's CryptoApproveAllowance and
CryptoDeleteAllowance transactions and the transfers that spent its allowances (``is_approval``),
from the token index's ``allowance/`` rows, folded oldest first as the reference's importer folds
them:

- an approval sets an allowance (crypto: owner and spender; token: and token) to its amount, granted
  and remaining; an approval of 0 removes it. A transfer the payer made with ``is_approval`` takes
  its amount off the payer's allowance from the debited owner.
- an NFT approval with ``approved_for_all`` sets that flag for owner, spender and token; only those
  set are listed. Single NFTs' approvals are not listed here (the reference lists them on the NFT).

``/allowances/crypto`` newest spender first unless ``order=asc``, paged with ``spender.id``;
``/allowances/tokens`` and ``/allowances/nfts`` by spender then token, oldest first unless
``order=desc``, paged with ``spender.id`` (``account.id`` for NFTs) and ``token.id``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hedera_history.api.entity_bounds import entity_bounds
from hedera_history.api.entity_lookup import resolve_entity
from hedera_history.api.entity_pages import page_of, pair_bounds, pair_page_of
from hedera_history.api.errors import InvalidParamsError, NotServedError
from hedera_history.api.query import Query, only, order, page_limit, single
from hedera_history.api.render import timestamp
from hedera_history.api.transaction_filters import entity_key, entity_reference
from hedera_history.errors import CorruptFileError, RowDecodeError
from hedera_history.formats.transactions import transaction_body
from hedera_history.store.accounts import entity_text
from hedera_history.store.decode import StoredTransaction
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_tokens import allowance_transactions
from hedera_history.store.token_index import ApprovedDebit, approved_debits, token_text

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]
_NO_TOKEN = ""
"""The token of a crypto (hbar) allowance."""


@dataclass
class Allowance:
    spender: str
    token: str
    amount_granted: int
    amount: int
    from_ns: int
    approved_for_all: bool = False


@dataclass(frozen=True)
class SerialGrant:
    """An approval of one NFT: its spender (and the approved-for-all spender who gave it)."""

    spender: str
    delegating_spender: str | None
    consensus_ns: int


@dataclass
class Allowances:
    """An owner's allowances by (spender, token): hbar ones with token ``_NO_TOKEN``; and its single
    NFTs' approvals by (token, serial), None once deleted."""

    crypto: dict[tuple[str, str], Allowance]
    nft: dict[tuple[str, str], Allowance]
    serials: dict[tuple[str, int], SerialGrant | None]


def owner_allowances(transactions: Sequence[StoredTransaction], owner: str) -> Allowances:
    """What ``owner``'s allowance transactions (oldest first) leave."""
    found = Allowances({}, {}, {})
    for stored in transactions:
        try:
            body: Any = transaction_body(stored.transaction_bytes)
        except CorruptFileError:
            continue
        payer = entity_text(body.transactionID.accountID)
        case = body.WhichOneof("data")
        if case == "cryptoApproveAllowance":
            _approve(found, body.cryptoApproveAllowance, owner, payer, stored.consensus_ns)
        elif case == "cryptoDeleteAllowance":
            for nft in body.cryptoDeleteAllowance.nftAllowances:
                token = token_text(nft.token_id)
                if _owner_of(nft, payer) == owner and token is not None:
                    found.serials.update(((token, serial), None) for serial in nft.serial_numbers)
        if payer is not None:
            _spend(found, approved_debits(case, body), owner, payer)
    return found


def _owner_of(allowance: Any, payer: str | None) -> str | None:
    """An allowance's owner: the one it names, else the payer."""
    return entity_text(allowance.owner) if allowance.owner.accountNum > 0 else payer


def _approve(found: Allowances, data: Any, owner: str, payer: str | None, consensus_ns: int) -> None:
    def owned(allowance: Any) -> bool:
        return _owner_of(allowance, payer) == owner

    grants = [(a, _NO_TOKEN) for a in data.cryptoAllowances if owned(a)]
    grants += [(a, token_text(a.tokenId) or _NO_TOKEN) for a in data.tokenAllowances if owned(a)]
    for allowance, token in grants:
        spender = entity_text(allowance.spender)
        if spender is None:
            continue
        if allowance.amount > 0:
            found.crypto[(spender, token)] = Allowance(spender, token, allowance.amount, allowance.amount, consensus_ns)
        else:
            found.crypto.pop((spender, token), None)
    for nft in data.nftAllowances:
        nft_spender, nft_token = entity_text(nft.spender), token_text(nft.tokenId)
        if owned(nft) and nft_spender is not None and nft_token is not None:
            delegating = entity_text(nft.delegating_spender) if nft.HasField("delegating_spender") else None
            grant = SerialGrant(nft_spender, delegating, consensus_ns)
            found.serials.update(((nft_token, serial), grant) for serial in nft.serial_numbers)
        if owned(nft) and nft_spender is not None and nft_token is not None and nft.HasField("approved_for_all"):
            if nft.approved_for_all.value:
                found.nft[(nft_spender, nft_token)] = Allowance(nft_spender, nft_token, 0, 0, consensus_ns, True)
            else:
                found.nft.pop((nft_spender, nft_token), None)


def _spend(found: Allowances, debits: list[ApprovedDebit], owner: str, payer: str) -> None:
    """The payer spent ``owner``'s allowance for what its transfers took under approval."""
    for debit in debits:
        allowance = found.crypto.get((payer, debit.token or _NO_TOKEN))
        if debit.owner == owner and allowance is not None:
            allowance.amount = max(0, allowance.amount - debit.amount)


def _read(get_reader: Reader, account_text: str, skipped: SkippedRows) -> tuple[str, Allowances]:
    entity_reference(account_text, "idOrAliasOrEvmAddress")
    reader = get_reader()
    owner = resolve_entity(reader, account_text, "idOrAliasOrEvmAddress")
    transactions, whole, errors = allowance_transactions(reader, owner, None)
    skipped(errors)
    if not whole:
        raise NotServedError("more allowance transactions than one answer folds from history")
    return owner, owner_allowances(transactions, owner)


def crypto_allowances(get_reader: Reader, account_text: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"limit", "order", "spender.id"})
    limit = page_limit(query)
    descending = order(query, default="desc") == "desc"
    low, high = entity_bounds(query, "spender.id")
    owner, found = _read(get_reader, account_text, skipped)
    page, next_link = page_of(
        (a for (_, token), a in found.crypto.items() if token == _NO_TOKEN and low <= entity_key(a.spender) <= high),
        cursor=lambda a: a.spender,
        name="spender.id",
        limit=limit,
        descending=descending,
        path=f"/api/v1/accounts/{owner}/allowances/crypto",
    )
    return {"allowances": [_render(owner, a, with_token=False) for a in page], "links": {"next": next_link}}


def token_allowances(get_reader: Reader, account_text: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"limit", "order", "spender.id", "token.id"})
    owner, found = _read(get_reader, account_text, skipped)
    listed = [a for (_, token), a in found.crypto.items() if token != _NO_TOKEN]
    return _pairs_page(query, listed, "spender.id", f"/api/v1/accounts/{owner}/allowances/tokens", owner)


def nft_allowances(get_reader: Reader, account_text: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"account.id", "limit", "order", "owner", "token.id"})
    if (single(query, "owner") or "true") not in ("true", "false"):
        raise InvalidParamsError("Invalid parameter: owner")
    if single(query, "owner") == "false":
        raise NotServedError("owner=false: allowances are indexed by their owner, not their spender")
    owner, found = _read(get_reader, account_text, skipped)
    return _pairs_page(
        query, list(found.nft.values()), "account.id", f"/api/v1/accounts/{owner}/allowances/nfts", owner
    )


def _pairs_page(query: Query, listed: list[Allowance], spender_name: str, path: str, owner: str) -> dict[str, Any]:
    """A page of allowances by (spender, token), paged with both (``entity_pages.pair_page_of``)."""
    spender_low, spender_high = entity_bounds(query, spender_name)
    token_low, token_high = entity_bounds(query, "token.id")
    page, next_link = pair_page_of(
        listed,
        key=lambda a: (entity_key(a.spender), entity_key(a.token)),
        cursor=lambda a: (a.spender, a.token),
        names=(spender_name, "token.id"),
        within=pair_bounds((spender_low, token_low), (spender_high, token_high), by_first=spender_name in query),
        limit=page_limit(query),
        descending=order(query) == "desc",
        path=path,
    )
    nft = spender_name == "account.id"
    return {"allowances": [_render(owner, a, with_token=True, nft=nft) for a in page], "links": {"next": next_link}}


def _render(owner: str, allowance: Allowance, *, with_token: bool, nft: bool = False) -> dict[str, Any]:
    rendered: dict[str, Any] = {"owner": owner, "spender": allowance.spender}
    if nft:
        rendered["approved_for_all"] = allowance.approved_for_all
    else:
        rendered.update(amount=allowance.amount, amount_granted=allowance.amount_granted)
    rendered["timestamp"] = {"from": timestamp(allowance.from_ns), "to": None}
    if with_token:
        rendered["token_id"] = allowance.token
    return rendered
