"""Contract logs as the mirror node serves them: ``/api/v1/contracts/{contractIdOrAddress}/results/logs``
(the logs a contract emitted) and ``/api/v1/contracts/results/logs`` (every contract's), ordered by
consensus time then the log's index in its transaction's result, newest first by default.

The reference's rules: ``topic0``..``topic3`` (each repeatable: any of the values) need a timestamp
range, an ``eq`` or both ends, at most 7 days wide; ``index`` bounds a position within the
timestamp's end they stand beside (``gt``/``gte`` beside ``timestamp=gte``/``eq``, ``lt``/``lte``
beside ``lte``/``eq``, ``eq`` beside ``eq``), so the range asked is of (timestamp, index) pairs;
``transaction.hash`` (once) names the transaction whose logs are wanted. The logs are read from the
records the contract indexes (``store.contract_index``) point at, never copied into them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from hedera_history.api.contract_results import block_hash_text, find_transaction_by_hash
from hedera_history.api.entity_lookup import resolve_entity
from hedera_history.api.errors import InvalidParamsError
from hedera_history.api.parse import MAX_I64, parse_timestamp
from hedera_history.api.query import Query, integer_bounds, only, operator, order, page_limit
from hedera_history.api.render import timestamp
from hedera_history.api.render_contracts import contract_reference, hex_data
from hedera_history.api.transaction_filters import entity_reference
from hedera_history.errors import RowDecodeError
from hedera_history.store.contract_index import contract_result
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_contracts import ContractEntries, contract_log_entries, contract_result_entries

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]
TOPICS = ("topic0", "topic1", "topic2", "topic3")
MAX_TOPIC_SPAN_NS = 7 * 86_400 * 10**9
"""The widest timestamp range a topic search may span (the reference's ``maxTimestampRange``)."""
MAX_LOG_INDEX = 2**31 - 1
TRANSACTIONS_PER_READ = 100
MAX_READS = 10
"""Pages of transactions one request reads at most (then links on from the last one read)."""
_HEX = re.compile(r"^(?:0x)?([0-9a-fA-F]{1,64})$")
_PARAMETERS = {"index", "limit", "order", "timestamp", "transaction.hash", *TOPICS}


@dataclass(frozen=True, slots=True)
class LogRange:
    """The inclusive (consensus ns, log index) bounds a request leaves, and its topic filters."""

    low: tuple[int, int]
    high: tuple[int, int]
    topics: dict[int, frozenset[bytes]]

    def keeps(self, consensus_ns: int, index: int, topics: Sequence[bytes]) -> bool:
        if not self.low <= (consensus_ns, index) <= self.high:
            return False
        for position, wanted in self.topics.items():
            if position >= len(topics) or _stripped(topics[position]) not in wanted:
                return False
        return True


def contract_logs(get_reader: Reader, contract_text: str, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    """The logs ``contract`` emitted."""
    entity_reference(contract_text, "contractIdOrAddress")  # a bad name is a 400 before any read
    reader = get_reader()
    contract = resolve_entity(reader, contract_text, "contractIdOrAddress")
    return _logs(reader, contract, query, skipped, f"/api/v1/contracts/{contract}/results/logs")


def all_contract_logs(get_reader: Reader, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    """Every contract's logs."""
    return _logs(get_reader(), None, query, skipped, "/api/v1/contracts/results/logs")


def _logs(reader: HistoryReader, contract: str | None, query: Query, skipped: SkippedRows, path: str) -> dict[str, Any]:
    only(query, _PARAMETERS)
    limit = page_limit(query)
    descending = order(query, default="desc") == "desc"
    wanted = parse_log_range(query)
    hashes = query.get("transaction.hash", [])
    if len(hashes) > 1:
        raise InvalidParamsError("Only one transaction.hash filter is allowed")
    if hashes:
        at = _transaction_time(reader, hashes[0])
        if at is None or not wanted.low[0] <= at <= wanted.high[0]:
            return {"logs": [], "links": {"next": None}}
        wanted = LogRange(max(wanted.low, (at, 0)), min(wanted.high, (at, MAX_LOG_INDEX)), wanted.topics)
    found: list[dict[str, Any]] = []
    from_ns, before_ns = wanted.low[0], wanted.high[0] + 1
    more = False
    last_read: int | None = None
    for _ in range(MAX_READS):
        page = _entries(reader, contract, from_ns, before_ns, descending)
        skipped(page.errors)
        stored, errors = reader.transactions(page.entries)
        skipped(errors)
        for transaction in stored:
            logs = _transaction_logs(reader, transaction, contract, wanted)
            found.extend(logs[::-1] if descending else logs)
        more = page.more and bool(page.entries)
        if len(found) >= limit or not more:
            break
        last_read = page.entries[-1].consensus_ns
        before_ns, from_ns = (last_read, from_ns) if descending else (before_ns, last_read + 1)
    next_link = None
    if len(found) >= limit:
        last_log = found[limit - 1]
        next_link = _next_link(path, query, limit, descending, _ns(last_log["timestamp"]), last_log["index"])
    elif more and last_read is not None:
        next_link = _next_link(path, query, limit, descending, last_read, None)
    return {"logs": found[:limit], "links": {"next": next_link}}


def _entries(
    reader: HistoryReader, contract: str | None, from_ns: int, before_ns: int, descending: bool
) -> ContractEntries:
    before = before_ns if before_ns <= MAX_I64 else None
    if contract is None:
        return contract_result_entries(reader, from_ns, before, TRANSACTIONS_PER_READ, descending=descending)
    return contract_log_entries(reader, contract, from_ns, before, TRANSACTIONS_PER_READ, descending=descending)


def _transaction_logs(
    reader: HistoryReader, transaction: Any, contract: str | None, wanted: LogRange
) -> list[dict[str, Any]]:
    record = transaction.record()
    result = contract_result(record)
    if result is None:
        return []
    root_contract, _ = contract_reference(result.contractID)
    rendered: list[dict[str, Any]] = []
    block_hash: str | None = None
    for index, log in enumerate(result.logInfo):
        log_contract, address = contract_reference(log.contractID)
        if contract is not None and log_contract != contract:
            continue
        topics = [bytes(topic) for topic in log.topic]
        if not wanted.keeps(transaction.consensus_ns, index, topics):
            continue
        if block_hash is None:
            block_hash = block_hash_text(reader, transaction.block_number)
        rendered.append(
            {
                "address": address,
                "block_hash": block_hash,
                "block_number": transaction.block_number,
                "bloom": hex_data(bytes(log.bloom)),
                "contract_id": log_contract,
                "data": hex_data(bytes(log.data)),
                "index": index,
                "root_contract_id": root_contract if result.HasField("contractID") else None,
                "timestamp": timestamp(transaction.consensus_ns),
                "topics": [hex_data(topic.rjust(32, b"\x00")) for topic in topics],
                "transaction_hash": hex_data(bytes(record.transactionHash)[:32]),
                "transaction_index": transaction.index,
            }
        )
    return rendered


def parse_log_range(query: Query) -> LogRange:
    """The (timestamp, index) bounds and topic filters of a logs request, with the reference's
    rules on how they combine (a 400 otherwise)."""
    low_ns, high_ns = 0, MAX_I64
    lower_ops: list[str] = []
    upper_ops: list[str] = []
    for condition in query.get("timestamp", []):
        op, value = operator(condition, "timestamp")
        ns = parse_timestamp(value, "timestamp")
        if op in ("gt", "gte", "eq"):
            low_ns = max(low_ns, ns + 1 if op == "gt" else ns)
            lower_ops.append(op)
        if op in ("lt", "lte", "eq"):
            high_ns = min(high_ns, ns - 1 if op == "lt" else ns)
            upper_ops.append(op)
    if lower_ops == ["gte"] and upper_ops == ["lte"] and low_ns == high_ns:
        lower_ops, upper_ops = ["eq"], ["eq"]  # gte:A with lte:A is timestamp=A, as the reference reads it
    for condition in query.get("index", []):
        _check_index_beside_timestamp(operator(condition, "index")[0], lower_ops, upper_ops)
    low_index, high_index = integer_bounds(query.get("index", []), "index", maximum=MAX_LOG_INDEX)
    topics: dict[int, frozenset[bytes]] = {}
    for position, name in enumerate(TOPICS):
        values = query.get(name, [])
        if values:
            topics[position] = frozenset(_topic(value, name) for value in values)
    if topics:
        _check_topic_span(lower_ops, upper_ops, low_ns, high_ns)
    return LogRange((low_ns, low_index), (high_ns, MAX_LOG_INDEX if high_index is None else high_index), topics)


def _check_index_beside_timestamp(op: str, lower_ops: list[str], upper_ops: list[str]) -> None:
    """An index bound needs the timestamp's end it stands beside (the reference's rule)."""
    if op == "eq" and "eq" not in lower_ops:
        raise InvalidParamsError("timestamp must have eq operator")
    if op in ("gt", "gte") and not {"gte", "eq"} & set(lower_ops):
        raise InvalidParamsError("timestamp must have gte or eq operator")
    if op in ("lt", "lte") and not {"lte", "eq"} & set(upper_ops):
        raise InvalidParamsError("timestamp must have lte or eq operator")


def _check_topic_span(lower_ops: list[str], upper_ops: list[str], low_ns: int, high_ns: int) -> None:
    prefix = "Cannot search topics without a valid timestamp range: "
    if "eq" in lower_ops:
        return
    if not lower_ops or not upper_ops:
        raise InvalidParamsError(prefix + "timestamp range must have gt (or gte) and lt (or lte)")
    if high_ns - low_ns > MAX_TOPIC_SPAN_NS:
        raise InvalidParamsError(prefix + "timestamp range must be no more than 7d")


def _topic(value: str, name: str) -> bytes:
    match = _HEX.fullmatch(value)
    if match is None:
        raise InvalidParamsError(f"Invalid parameter: {name}")
    digits = match.group(1).lstrip("0")
    return bytes.fromhex(digits.rjust(len(digits) + len(digits) % 2, "0"))


def _stripped(topic: bytes) -> bytes:
    return topic.lstrip(b"\x00")


def _transaction_time(reader: HistoryReader, text: str) -> int | None:
    found = find_transaction_by_hash(reader, text, "transaction.hash")
    return None if found is None else found.consensus_ns


def _ns(stamp: str) -> int:
    return parse_timestamp(stamp, "timestamp")


def _next_link(path: str, query: Query, limit: int, descending: bool, at_ns: int, index: int | None) -> str:
    """The next page: past (``at_ns``, ``index``), or past every log at ``at_ns`` (``index`` None);
    the far end of the range asked (its index bound too), the topics and the transaction kept."""
    params: list[tuple[str, Any]] = [("limit", limit), ("order", "desc" if descending else "asc")]
    far = ("gt", "gte") if descending else ("lt", "lte")
    for condition in query.get("timestamp", []):
        op, value = operator(condition, "timestamp")
        if op in far or op == "eq":  # an eq keeps its time as the far end
            params.append(("timestamp", condition if op in far else f"{far[1]}:{value}"))
    if index is None:
        params.append(("timestamp", f"{'lt' if descending else 'gt'}:{timestamp(at_ns)}"))
    else:
        params.append(("timestamp", f"{'lte' if descending else 'gte'}:{timestamp(at_ns)}"))
        params.append(("index", f"{'lt' if descending else 'gt'}:{index}"))
    for condition in query.get("index", []):  # a bound at the far end stays beside it
        if operator(condition, "index")[0] in far:
            params.append(("index", condition))
    params.extend((name, value) for name in (*TOPICS, "transaction.hash") for value in query.get(name, []))
    return path + "?" + urlencode(params)


__all__ = ["all_contract_logs", "contract_logs", "parse_log_range"]
