"""The reference's NFT routes from the history we keep (``store.token_index``'s ``nft/`` and
``nftowner/`` rows): ``/tokens/{tokenId}/nfts/{serialNumber}``, ``/tokens/{tokenId}/nfts`` (highest
serial first unless ``order=asc``, ``account.id`` and ``serialnumber`` filters, paged with
``serialnumber``) and ``/accounts/{id}/nfts`` (by token then serial, highest first unless
``order=asc``, ``token.id`` and ``serialnumber`` filters, paged with both) and
``/tokens/{tokenId}/nfts/{serialNumber}/transactions`` (the NFT's mint, transfers and burn, newest
first unless ``order=asc``, ``timestamp`` ranges, paged with ``timestamp``).

An NFT's owner is the receiver of its newest transfer (its mint's is the treasury), none after a
burn or wipe (``deleted``); its metadata and creation time come from its mint, when the history kept
holds it (else ``""`` and null); ``deleted`` is also true once its token is deleted. Its ``spender``
(and ``delegating_spender``) come from its owner's CryptoApproveAllowance naming its serial after it
last moved, unless a CryptoDeleteAllowance took it back (``api.allowances``).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from hedera_history.api.allowances import SerialGrant, owner_allowances
from hedera_history.api.entity_bounds import entity_bounds, entity_id
from hedera_history.api.entity_lookup import resolve_entity
from hedera_history.api.entity_pages import page_of, pair_bounds, pair_page_of
from hedera_history.api.errors import InvalidParamsError, NotFoundError, NotServedError
from hedera_history.api.parse import MAX_I64, parse_int
from hedera_history.api.query import Query, integer_bounds, only, order, page_limit
from hedera_history.api.render import UNSIGNED, render_transactions, timestamp
from hedera_history.api.token_state import token_state
from hedera_history.api.transaction_filters import entity_key, entity_reference
from hedera_history.api.transactions_list import parse_filters
from hedera_history.api.unsigned_blocks import mark_unsigned
from hedera_history.errors import CorruptFileError, RowDecodeError
from hedera_history.formats.transactions import transaction_body
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_tokens import (
    NftState,
    account_nft_serials,
    allowance_transactions,
    nft_history,
    token_nfts,
)

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]
_TOO_MANY = "more NFT rows than one answer reads from history"


def get_nft(get_reader: Reader, token_text_in: str, serial_text: str, query: Query) -> dict[str, Any]:
    only(query, set())
    token = entity_id(token_text_in, "tokenId")
    serial = serial_number(serial_text)
    reader = get_reader()
    nfts, _ = token_nfts(reader, token, serial, None)
    if serial not in nfts:
        raise NotFoundError("Not found")
    return render_nfts(reader, [nfts[serial]])[0]


def list_token_nfts(get_reader: Reader, token_text_in: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"account.id", "limit", "order", "serialnumber"})
    token = entity_id(token_text_in, "tokenId")
    limit = page_limit(query)
    descending = order(query, default="desc") == "desc"
    low, high = integer_bounds(query.get("serialnumber", []), "serialnumber", maximum=MAX_I64, low=1)
    owners = entity_bounds(query, "account.id") if "account.id" in query else None
    reader = get_reader()
    nfts, whole = token_nfts(reader, token, None, None)
    if not whole:
        raise NotServedError(_TOO_MANY)
    page, next_link = page_of(
        (
            nft
            for nft in nfts.values()
            if low <= nft.serial <= (MAX_I64 if high is None else high) and _owned_in(nft, owners)
        ),
        sort_key=lambda nft: nft.serial,
        cursor=lambda nft: nft.serial,
        name="serialnumber",
        limit=limit,
        descending=descending,
        path=f"/api/v1/tokens/{token}/nfts",
        kept=[("account.id", value) for value in query.get("account.id", [])],
    )
    return {"nfts": render_nfts(reader, page), "links": {"next": next_link}}


def list_account_nfts(get_reader: Reader, account_text: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"limit", "order", "serialnumber", "spender.id", "token.id"})
    entity_reference(account_text, "idOrAliasOrEvmAddress")
    if "spender.id" in query:
        raise NotServedError("spender.id: NFTs are indexed by owner, not by spender")
    limit = page_limit(query)
    descending = order(query, default="desc") == "desc"
    token_low, token_high = entity_bounds(query, "token.id")
    low, high = integer_bounds(query.get("serialnumber", []), "serialnumber", maximum=MAX_I64, low=1)
    reader = get_reader()
    account = resolve_entity(reader, account_text, "idOrAliasOrEvmAddress")
    held, whole = account_nft_serials(reader, account, None)
    if not whole:
        raise NotServedError(_TOO_MANY)
    page, next_link = pair_page_of(
        held,
        key=lambda pair: (entity_key(pair[0]), pair[1]),
        cursor=lambda pair: pair,
        names=("token.id", "serialnumber"),
        within=pair_bounds(
            (token_low, low), (token_high, MAX_I64 if high is None else high), by_first="token.id" in query
        ),
        limit=limit,
        descending=descending,
        path=f"/api/v1/accounts/{account}/nfts",
    )
    states: list[NftState] = []
    for token, serial in page:
        nfts, _ = token_nfts(reader, token, serial, None)
        if serial in nfts:
            states.append(nfts[serial])
    return {"nfts": render_nfts(reader, states), "links": {"next": next_link}}


def nft_transactions(
    get_reader: Reader, token_text_in: str, serial_text: str, query: Query, skipped: SkippedRows
) -> dict[str, Any]:
    only(query, {"limit", "order", "timestamp"})
    token = entity_id(token_text_in, "tokenId")
    serial = serial_number(serial_text)
    limit = page_limit(query)
    descending = order(query, default="desc") == "desc"
    times = parse_filters({"timestamp": list(query.get("timestamp", []))})
    reader = get_reader()
    rows = nft_history(reader, token, serial, times.low_ns, times.high_ns)
    skipped(rows.errors)
    if not rows.whole:
        raise NotServedError(_TOO_MANY)
    moves = rows.values if descending else list(reversed(rows.values))
    page = moves[:limit]
    stored, errors = reader.transactions([consensus_ns for _, consensus_ns in page])
    rendered, render_errors = render_transactions(stored)
    skipped([*errors, *render_errors])
    mark_unsigned(reader, rendered)
    transfers = [_nft_transfer(r, token, serial) for r in rendered]
    next_link = None
    if len(moves) > limit:
        side = "lt" if descending else "gt"
        params = [("limit", limit), ("order", "desc" if descending else "asc")]
        params.append(("timestamp", f"{side}:{timestamp(page[-1][1])}"))
        next_link = f"/api/v1/tokens/{token}/nfts/{serial}/transactions?" + urlencode(params)
    return {"transactions": transfers, "links": {"next": next_link}}


def _nft_transfer(rendered: dict[str, Any], token: str, serial: int) -> dict[str, Any]:
    """The reference's ``NftTransactionTransfer``: the transaction's move of the NFT (and
    ``unsigned`` when its block was stored unsigned)."""
    moved = next(
        (t for t in rendered["nft_transfers"] if t["token_id"] == token and t["serial_number"] == serial),
        {"sender_account_id": None, "receiver_account_id": None, "is_approval": False},
    )
    return {
        "consensus_timestamp": rendered["consensus_timestamp"],
        "is_approval": moved["is_approval"],
        "nonce": rendered["nonce"],
        "receiver_account_id": moved["receiver_account_id"],
        "sender_account_id": moved["sender_account_id"],
        "transaction_id": rendered["transaction_id"],
        "type": rendered["name"],
    } | ({UNSIGNED: True} if rendered.get(UNSIGNED) else {})


def _owned_in(nft: NftState, owners: tuple[tuple[int, int, int], tuple[int, int, int]] | None) -> bool:
    if owners is None:
        return True
    return nft.owner is not None and owners[0] <= entity_key(nft.owner) <= owners[1]


def render_nfts(reader: HistoryReader, nfts: Sequence[NftState]) -> list[dict[str, Any]]:
    """The reference's ``Nft`` of each, its mint read for its metadata (one request for all)."""
    mints, _ = reader.transactions(sorted({nft.first_ns for nft in nfts}))
    by_time = {mint.consensus_ns: mint for mint in mints}
    deleted_tokens = {token for token in {nft.token for nft in nfts} if token_state(reader, token).deleted}
    granted = {owner: _serial_grants(reader, owner) for owner in {nft.owner for nft in nfts} if owner is not None}
    rendered = []
    for nft in nfts:
        mint = by_time.get(nft.first_ns)
        metadata = None if mint is None else _minted_metadata(mint.transaction_bytes, mint.record(), nft.serial)
        grant = None if nft.owner is None else granted[nft.owner].get((nft.token, nft.serial))
        if grant is not None and grant.consensus_ns < nft.modified_ns:
            grant = None  # given before the NFT last moved: a transfer clears it
        rendered.append(
            {
                "account_id": nft.owner,
                "created_timestamp": None if metadata is None else timestamp(nft.first_ns),
                "delegating_spender": None if grant is None else grant.delegating_spender,
                "deleted": nft.owner is None or nft.token in deleted_tokens,
                "metadata": base64.b64encode(metadata or b"").decode(),
                "modified_timestamp": timestamp(nft.modified_ns),
                "serial_number": nft.serial,
                "spender": None if grant is None else grant.spender,
                "token_id": nft.token,
            }
        )
    return rendered


def _serial_grants(reader: HistoryReader, owner: str) -> dict[tuple[str, int], SerialGrant | None]:
    """The approvals ``owner`` gave for single NFTs (and deleted), by (token, serial)."""
    transactions, _, _ = allowance_transactions(reader, owner, None)
    return owner_allowances(transactions, owner).serials


def _minted_metadata(transaction_bytes: bytes, record: Any, serial: int) -> bytes | None:
    """The metadata a TokenMint gave ``serial``, None when the transaction is not its mint."""
    try:
        body: Any = transaction_body(transaction_bytes)
    except CorruptFileError:
        return None
    if body.WhichOneof("data") != "tokenMint":
        return None
    serials = list(record.receipt.serialNumbers)
    metadata = list(body.tokenMint.metadata)
    if serial not in serials or serials.index(serial) >= len(metadata):
        return None
    return bytes(metadata[serials.index(serial)])


def serial_number(text: str) -> int:
    try:
        return parse_int(text, "serialNumber", minimum=1, maximum=MAX_I64)
    except InvalidParamsError as e:
        raise InvalidParamsError("Invalid parameter: serialNumber") from e
