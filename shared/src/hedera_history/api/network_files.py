"""``/api/v1/network/exchangerate`` and ``/api/v1/network/fees`` from the history we keep: the
exchange-rate file (0.0.112) and the fee schedule (0.0.111) as of ``timestamp``, rebuilt from their
updates and appends in the stream (``store.reader_files``), read as the reference reads them.

As the reference: ``timestamp`` ``eq`` is ``lte``, ``ne`` is refused; ``timestamp`` in the answer is
when the file last changed; fees are the gas price of ContractCall, ContractCreate and
EthereumTransaction (the first fee data's ``servicedata.gas``, in tinycents per 1000 gas) in tinybars
at the exchange rate in force (the next rate, and the next schedule, once the current expired at
the fee schedule's time), at least 1, by transaction type (``order``, ascending by default). A
file history holds no update of by then is a 404.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf.message import DecodeError

from hedera_history import hapi
from hedera_history.api.errors import NotFoundError
from hedera_history.api.parse import MAX_I64
from hedera_history.api.query import Query, only, order
from hedera_history.api.render import timestamp
from hedera_history.api.transactions_list import parse_filters
from hedera_history.errors import RowDecodeError
from hedera_history.store.file_index import EXCHANGE_RATE_FILE, FEE_SCHEDULE_FILE
from hedera_history.store.reader import HistoryReader
from hedera_history.store.reader_files import FileContent, file_content

Reader = Callable[[], HistoryReader]
SkippedRows = Callable[[Sequence[RowDecodeError]], None]
ExchangeRateSet: Any = type(hapi.TransactionReceipt().exchangeRate)
_FEE_TYPES = {
    name: hapi.basic_types.HederaFunctionality.Value(name)
    for name in ("ContractCall", "ContractCreate", "EthereumTransaction")
}
"""The reference's fee types -> their ``HederaFunctionality`` numbers."""
_FEE_DIVISOR = 1000
_NS = 1_000_000_000


def exchange_rate(get_reader: Reader, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"timestamp"})
    found, rates = _exchange_rates(get_reader(), query, skipped)
    return {
        "current_rate": _rate(rates.currentRate),
        "next_rate": _rate(rates.nextRate),
        "timestamp": timestamp(found.consensus_ns),
    }


def network_fees(get_reader: Reader, query: Query, skipped: SkippedRows) -> dict[str, Any]:
    only(query, {"order", "timestamp"})
    descending = order(query) == "desc"
    reader = get_reader()
    _, rates = _exchange_rates(reader, query, skipped)
    found = _file(reader, FEE_SCHEDULE_FILE, query, skipped)
    try:
        schedules: Any = hapi.basic_types.CurrentAndNextFeeSchedule.FromString(found.content)
    except DecodeError as e:
        raise NotFoundError("Not found") from e
    at_ns = found.consensus_ns
    current = schedules.currentFeeSchedule
    expired = current.HasField("expiryTime") and at_ns > current.expiryTime.seconds * _NS
    schedule = schedules.nextFeeSchedule if expired else current
    rate = rates.nextRate if at_ns > rates.currentRate.expirationTime.seconds * _NS else rates.currentRate
    fees: dict[str, int] = {}
    names = {number: name for name, number in _FEE_TYPES.items()}
    for entry in schedule.transactionFeeSchedule:
        name = names.get(entry.hederaFunctionality)
        if name is None or not entry.fees or rate.centEquiv == 0:
            continue
        fees[name] = max(entry.fees[0].servicedata.gas * rate.hbarEquiv // (rate.centEquiv * _FEE_DIVISOR), 1)
    listed = [{"gas": fees[name], "transaction_type": name} for name in sorted(fees, reverse=descending)]
    return {"fees": listed, "timestamp": timestamp(at_ns)}


def _exchange_rates(reader: HistoryReader, query: Query, skipped: SkippedRows) -> tuple[FileContent, Any]:
    found = _file(reader, EXCHANGE_RATE_FILE, query, skipped)
    try:
        return found, ExchangeRateSet.FromString(found.content)
    except DecodeError as e:
        raise NotFoundError("Not found") from e


def _file(reader: HistoryReader, number: int, query: Query, skipped: SkippedRows) -> FileContent:
    # As the reference: ``eq`` finds the newest content at or before the time.
    conditions = [c if ":" in c or not c else f"lte:{c}" for c in query.get("timestamp", [])]
    filters = parse_filters({"timestamp": [c.replace("eq:", "lte:", 1) for c in conditions]})
    at_ns = filters.high_ns if filters.high_ns < MAX_I64 else None
    found, errors = file_content(reader, f"0.0.{number}", at_ns, since_ns=filters.low_ns)
    skipped(errors)
    if found is None:
        raise NotFoundError("Not found")
    return found


def _rate(rate: Any) -> dict[str, int]:
    return {
        "cent_equivalent": rate.centEquiv,
        "expiration_time": rate.expirationTime.seconds,
        "hbar_equivalent": rate.hbarEquiv,
    }
