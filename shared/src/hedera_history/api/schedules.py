"""The reference's schedule routes from the history we keep (``store.reader_schedules``):
``/schedules/{scheduleId}`` and ``/schedules``.

A schedule is folded from its transactions: the successful ScheduleCreate whose receipt names it
(``consensus_timestamp``; the payer of its transaction id as ``creator_account_id``; from its body
the ``payer_account_id``, the creator when none, ``admin_key``, ``memo``, ``expiration_time``,
``wait_for_expiry`` and the scheduled body as ``transaction_body``), the signature maps of that
creation and of each successful ScheduleSign (``signatures``, oldest first), a successful
ScheduleDelete (``deleted``) and the record of its execution, which names it in ``scheduleRef``
(``executed_timestamp``). As the reference: listed by schedule id (``order=desc`` newest first),
``limit`` 25 (at most 100), ``schedule.id`` and ``account.id`` (the creator) filters with
``eq``/``ne``/``gt``/``gte``/``lt``/``lte``, ``links.next`` by ``schedule.id``; an unknown
schedule is a 404.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.api.entities import entity_string
from hedera_history.api.entity_bounds import bounds, entity_code
from hedera_history.api.entity_state import render_key
from hedera_history.api.errors import NotFoundError
from hedera_history.api.query import Query, only, order, page_limit
from hedera_history.api.render import timestamp
from hedera_history.errors import CorruptFileError, RowDecodeError
from hedera_history.formats.transactions import transaction_body
from hedera_history.store.decode import StoredTransaction
from hedera_history.store.keys import decode_entity, encode_entity
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_schedules import ScheduleHistory, schedule_history, schedules_page
from hedera_history.store.schedule_index import CREATED, DELETED, EXECUTED, SIGNED

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]
_SIGNATURE_TYPES = {
    "contract": "CONTRACT",
    "ed25519": "ED25519",
    "RSA_3072": "RSA_3072",
    "ECDSA_384": "ECDSA_384",
    "ECDSA_secp256k1": "ECDSA_SECP256K1",
}


def get_schedule(get_reader: Reader, schedule_text: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, set())
    schedule = entity_code(schedule_text, "scheduleId")
    found, errors = schedule_history(get_reader(), schedule)
    skipped(errors)
    if found is None:
        raise NotFoundError("Not found")
    return render_schedule(found)


def list_schedules(get_reader: Reader, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"account.id", "limit", "order", "schedule.id"})
    limit = page_limit(query)
    descending = order(query) == "desc"
    ids = bounds(query.get("schedule.id", []), "schedule.id", entity=True, allow_ne=True)
    creators = bounds(query.get("account.id", []), "account.id", entity=True, allow_ne=True)
    schedules: tuple[ScheduleHistory, ...] = ()
    more = False
    if not ids.empty and not creators.empty:

        def accept(history: ScheduleHistory) -> bool:
            payer = history.changes[0][1].record().transactionID.accountID
            creator = encode_entity(payer.shardNum, payer.realmNum, payer.accountNum)
            return ids.holds(history.schedule) and creator is not None and creators.holds(creator)

        page = schedules_page(get_reader(), ids.low or 0, ids.high, accept, limit, descending=descending)
        skipped(page.errors)
        schedules, more = page.schedules, page.more
    next_link = None
    if more and schedules:
        params: list[tuple[str, Any]] = [("limit", limit), ("order", "desc" if descending else "asc")]
        params.extend(("account.id", value) for value in query.get("account.id", []))
        kept = ("gt", "gte") if descending else ("lt", "lte")
        params.extend(
            ("schedule.id", value) for value in query.get("schedule.id", []) if value.partition(":")[0] in (*kept, "ne")
        )
        last = decode_entity(schedules[-1].schedule)
        params.append(("schedule.id", f"{'lt' if descending else 'gt'}:{last}"))
        next_link = "/api/v1/schedules?" + urlencode(params)
    return {"schedules": [render_schedule(h) for h in schedules], "links": {"next": next_link}}


def render_schedule(history: ScheduleHistory) -> dict[str, Any]:
    creation = history.changes[0][1]
    body: Any = _body(creation)
    create = body.scheduleCreate if body is not None else hapi.TransactionBody().scheduleCreate
    creator = _creator(creation)
    payer = entity_string(create.payerAccountID, "accountNum") if create.HasField("payerAccountID") else None
    executed = next((t.consensus_ns for change, t in history.changes if change == EXECUTED), None)
    expiry = create.expiration_time
    expires = timestamp(expiry.seconds * 10**9 + expiry.nanos) if create.HasField("expiration_time") else None
    return {
        "admin_key": render_key(bytes(create.adminKey.SerializeToString())) if create.HasField("adminKey") else None,
        "consensus_timestamp": timestamp(creation.consensus_ns),
        "creator_account_id": creator,
        "deleted": any(change == DELETED for change, _ in history.changes),
        "executed_timestamp": None if executed is None else timestamp(executed),
        "expiration_time": expires,
        "memo": create.memo,
        "payer_account_id": payer or creator,
        "schedule_id": decode_entity(history.schedule),
        "signatures": [
            signature
            for change, transaction in history.changes
            if change in (CREATED, SIGNED)
            for signature in _signatures(transaction)
        ],
        "transaction_body": base64.b64encode(create.scheduledTransactionBody.SerializeToString()).decode(),
        "wait_for_expiry": create.wait_for_expiry,
    }


def _body(transaction: StoredTransaction) -> Any | None:
    try:
        return transaction_body(transaction.transaction_bytes)
    except CorruptFileError:
        return None


def _creator(creation: StoredTransaction) -> str | None:
    """The payer of the creating transaction."""
    record: Any = creation.record()
    return entity_string(record.transactionID.accountID, "accountNum")


def _signatures(transaction: StoredTransaction) -> list[dict[str, Any]]:
    """The transaction's signature pairs, each public key prefix once, by prefix."""
    pairs: dict[bytes, dict[str, Any]] = {}
    for pair in _signature_map(transaction.transaction_bytes).sigPair:
        prefix = bytes(pair.pubKeyPrefix)
        kind = pair.WhichOneof("signature")
        pairs.setdefault(
            prefix,
            {
                "consensus_timestamp": timestamp(transaction.consensus_ns),
                "public_key_prefix": base64.b64encode(prefix).decode(),
                "signature": base64.b64encode(bytes(getattr(pair, kind)) if kind else b"").decode(),
                "type": _SIGNATURE_TYPES.get(kind or "", "UNKNOWN"),
            },
        )
    return [pairs[prefix] for prefix in sorted(pairs)]


def _signature_map(transaction_bytes: bytes) -> Any:
    """The ``SignatureMap`` of a serialised ``Transaction`` (empty when it carries none or does not
    decode)."""
    try:
        transaction = hapi.Transaction.FromString(transaction_bytes)
        if transaction.signedTransactionBytes:
            return hapi.SignedTransaction.FromString(transaction.signedTransactionBytes).sigMap
        return transaction.sigMap
    except DecodeError:  # a transaction that does not decode has no signatures to show
        return hapi.Transaction().sigMap
