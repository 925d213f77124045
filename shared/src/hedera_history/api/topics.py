"""The reference's topic routes from the history we keep: ``/topics/{id}`` folded from the topic's
create, updates and deletion (``store.reader_entities``, which the topic index fills), and its
messages (``/topics/{id}/messages``, ``/topics/{id}/messages/{sequenceNumber}``,
``/topics/messages/{timestamp}``) from the ConsensusSubmitMessage transactions, by sequence number
(``store.reader_topics``): sequence number, running hash and its version from the record's receipt,
chunk info and message from the body, payer from the transaction id.

As the reference: messages oldest first unless ``order=desc``, ``limit`` 25 (at most 100), paged by
``links.next`` with ``sequencenumber=gt:`` (``lt:`` newest first), ``timestamp`` and
``sequencenumber`` ranges, ``encoding=utf-8`` for the message as text (else base64); a topic with no
creation, change or message in history is a 404.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from hedera_history import hapi
from hedera_history.api.entities import entity_string
from hedera_history.api.entity_state import render_key
from hedera_history.api.errors import InvalidParamsError, NotFoundError
from hedera_history.api.parse import MAX_I64, parse_int, parse_timestamp
from hedera_history.api.query import Query, integer_bounds, only, order, page_limit, single
from hedera_history.api.render import timestamp
from hedera_history.api.transaction_filters import entity_reference
from hedera_history.api.transactions_list import parse_filters
from hedera_history.errors import CorruptFileError, RowDecodeError
from hedera_history.formats.transactions import transaction_body
from hedera_history.store.decode import StoredTransaction
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_entities import entity_changes
from hedera_history.store.reader_topics import TopicMessage, first_sequence_at, topic_messages
from hedera_history.store.topic_index import topic_text

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]
_ENCODINGS = {"base64": "base64", "utf-8": "utf-8", "utf8": "utf-8"}


def get_topic(get_reader: Reader, topic_text_in: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, set())
    topic = _topic_id(topic_text_in)
    changes = entity_changes(get_reader(), topic)
    skipped(changes.errors)
    if not changes.transactions:
        raise NotFoundError("Not found")
    state: dict[str, Any] = {
        "admin_key": None,
        "auto_renew_account": None,
        "auto_renew_period": None,
        "created_timestamp": None,
        "deleted": False,
        "fee_exempt_key_list": [],
        "fee_schedule_key": None,
        "memo": "",
        "submit_key": None,
    }
    for change in reversed(changes.transactions):
        _apply_change(state, change)
    fees_since = state.pop("_fees_ns", None)
    return {
        **state,
        # Without the creation in history, the reference's placeholder for a topic with no fee row.
        "custom_fees": {"created_timestamp": timestamp(fees_since or 0), "fixed_fees": []},
        "timestamp": {"from": timestamp(changes.transactions[0].consensus_ns), "to": None},
        "topic_id": topic,
    }


def _apply_change(state: dict[str, Any], change: StoredTransaction) -> None:
    try:
        body: Any = transaction_body(change.transaction_bytes)
    except CorruptFileError:
        return
    case = body.WhichOneof("data")
    if case == "consensusDeleteTopic":
        state["deleted"] = True
        return
    if case not in ("consensusCreateTopic", "consensusUpdateTopic"):
        return
    data = getattr(body, case)
    creating = case == "consensusCreateTopic"
    if creating:
        state["created_timestamp"] = timestamp(change.consensus_ns)
        state["_fees_ns"] = change.consensus_ns
        state["memo"] = data.memo
    elif data.HasField("memo"):
        state["memo"] = data.memo.value
    for field, name in (
        ("adminKey", "admin_key"),
        ("submitKey", "submit_key"),
        ("fee_schedule_key", "fee_schedule_key"),
    ):
        if data.HasField(field):
            state[name] = render_key(bytes(getattr(data, field).SerializeToString()))
    if data.HasField("autoRenewPeriod"):
        state["auto_renew_period"] = data.autoRenewPeriod.seconds
    if data.HasField("autoRenewAccount"):
        state["auto_renew_account"] = entity_string(data.autoRenewAccount, "accountNum")


def list_topic_messages(get_reader: Reader, topic_text_in: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"encoding", "limit", "order", "sequencenumber", "timestamp"})
    topic = _topic_id(topic_text_in)
    encoding = _encoding(query)
    limit = page_limit(query)
    descending = order(query) == "desc"
    low, high = integer_bounds(query.get("sequencenumber", []), "sequencenumber", maximum=MAX_I64)
    times = parse_filters({"timestamp": list(query.get("timestamp", []))})
    reader = get_reader()
    if times.low_ns > 0:
        low = max(low, first_sequence_at(reader, topic, times.low_ns, low, high))
    if times.high_ns < MAX_I64:
        below = first_sequence_at(reader, topic, times.high_ns + 1, low, high) - 1
        high = below if high is None else min(high, below)
    messages: tuple[TopicMessage, ...] = ()
    more = False
    if high is None or low <= high:
        page = topic_messages(reader, topic, low, high, limit, descending=descending)
        skipped(page.errors)
        messages, more = page.messages, page.more
    if not messages and not _topic_in_history(reader, topic):
        raise NotFoundError(f"No such topic id - {topic}")
    next_link = None
    if more and messages:
        last = messages[-1].sequence_number
        params: list[tuple[str, Any]] = [("limit", limit), ("order", "desc" if descending else "asc")]
        if encoding != "base64":
            params.append(("encoding", encoding))
        params.append(("sequencenumber", f"lt:{last}" if descending else f"gt:{last}"))
        bound = low if descending else high
        if descending and low > 0:
            params.append(("sequencenumber", f"gte:{bound}"))
        elif not descending and high is not None:
            params.append(("sequencenumber", f"lte:{bound}"))
        next_link = f"/api/v1/topics/{topic}/messages?" + urlencode(params)
    return {"messages": [render_message(m, encoding) for m in messages], "links": {"next": next_link}}


def _topic_in_history(reader: HistoryReader, topic: str) -> bool:
    """History holds a creation, change or message of the topic."""
    return bool(
        entity_changes(reader, topic, limit=1).transactions or topic_messages(reader, topic, 0, None, 1).messages
    )


def get_topic_message(get_reader: Reader, topic_text_in: str, sequence_text: str, query: Query) -> dict[str, Any]:
    only(query, set())
    topic = _topic_id(topic_text_in)
    sequence = parse_int(sequence_text, "sequenceNumber", maximum=MAX_I64)
    page = topic_messages(get_reader(), topic, sequence, sequence, 1)
    if not page.messages:
        raise NotFoundError("Not found")
    return render_message(page.messages[0], "base64")


def topic_message_at(get_reader: Reader, timestamp_text: str, query: Query) -> dict[str, Any]:
    only(query, set())
    consensus_ns = parse_timestamp(timestamp_text, "timestamp")
    stored = get_reader().transaction(consensus_ns)
    if stored is not None:
        record = stored.record()
        if record.receipt.topicSequenceNumber > 0:
            return render_message(TopicMessage(record.receipt.topicSequenceNumber, stored), "base64")
    raise NotFoundError("Not found")


def render_message(message: TopicMessage, encoding: str) -> dict[str, Any]:
    stored = message.transaction
    record: Any = stored.record()
    body: Any = transaction_body(stored.transaction_bytes)
    submit = body.consensusSubmitMessage
    payload = bytes(submit.message)
    receipt = record.receipt
    transaction_id = record.transactionID
    return {
        "chunk_info": _chunk_info(submit.chunkInfo) if submit.HasField("chunkInfo") else None,
        "consensus_timestamp": timestamp(stored.consensus_ns),
        "message": payload.decode("utf-8", "replace") if encoding == "utf-8" else base64.b64encode(payload).decode(),
        "payer_account_id": entity_string(transaction_id.accountID, "accountNum"),
        "running_hash": base64.b64encode(bytes(receipt.topicRunningHash)).decode(),
        "running_hash_version": receipt.topicRunningHashVersion,
        "sequence_number": message.sequence_number,
        "topic_id": topic_text(submit.topicID),
    }


def _chunk_info(chunk: Any) -> dict[str, Any]:
    initial: hapi.TransactionID = chunk.initialTransactionID
    start = initial.transactionValidStart
    return {
        "initial_transaction_id": {
            "account_id": entity_string(initial.accountID, "accountNum"),
            "nonce": initial.nonce,
            "scheduled": initial.scheduled,
            "transaction_valid_start": timestamp(start.seconds * 1_000_000_000 + start.nanos),
        },
        "number": chunk.number,
        "total": chunk.total,
    }


def _topic_id(text: str) -> str:
    found = entity_reference(text, "topicId")
    if isinstance(found, bytes):
        raise InvalidParamsError("Invalid parameter: topicId")
    return found


def _encoding(query: Query) -> str:
    text = (single(query, "encoding") or "base64").lower()
    if text not in _ENCODINGS:
        raise InvalidParamsError("Invalid parameter: encoding")
    return _ENCODINGS[text]
