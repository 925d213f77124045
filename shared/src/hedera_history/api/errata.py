"""Errata (HIP-639) in answers: entries an errata inserted into a block, markers read in bulk, and
the original of a corrected entry with the errata accepted for it (docs/errata.md).

``GET /api/v1/errata/{timestamp}`` and JSON-RPC ``getTransactionOriginal`` answer
``original_answer``: what the stream itself had at that consensus time (null when the errata
inserted the entry), the errata accepted for it (oldest first, the last in force), each with its
signed file for re-verification, and what the errata in force did.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable
from typing import Any

from hedera_history.api.errors import NotFoundError
from hedera_history.api.parse import parse_timestamp
from hedera_history.api.query import Query, only
from hedera_history.api.render import render_transaction, timestamp
from hedera_history.errata.cells import ErrataMarker
from hedera_history.errata.read import (
    applied_errata_file,
    errata_history,
    errata_marker,
    inserted_entries,
    marker_in_row,
    mirror_errata_field,
    original_entry,
)
from hedera_history.errors import RowDecodeError
from hedera_history.store import schema as s
from hedera_history.store.decode import StoredTransaction, guarded
from hedera_history.store.reader import HistoryReader
from hedera_history.store.time_rows import read_at

ERRATA_PATH = "/api/v1/errata"

Reader = Callable[[], HistoryReader]


def block_transactions(reader: HistoryReader, number: int) -> tuple[list[StoredTransaction], list[RowDecodeError]]:
    """The block's transactions in consensus order, entries an errata inserted after its last item included."""
    return reader.block_transactions(number, also=inserted_entries(reader.gateway, number))


def markers_at(
    reader: HistoryReader, consensus_times: Iterable[int]
) -> tuple[dict[int, ErrataMarker], dict[int, RowDecodeError]]:
    """The errata markers of the entries at these times (only the corrected ones appear), and the
    times whose marker does not decode."""
    found: dict[int, ErrataMarker] = {}
    broken: dict[int, RowDecodeError] = {}
    rows = read_at(
        reader.gateway, s.TRANSACTIONS, consensus_times, families=(s.TRANSACTION_FAMILY,), qualifier_regex=b"^errata$"
    )
    for consensus_ns, row in rows.items():
        try:
            marker = guarded(s.TRANSACTIONS, row, marker_in_row)
        except RowDecodeError as e:
            broken[consensus_ns] = e
            continue
        if marker is not None:
            found[consensus_ns] = marker
    return found, broken


def original_answer(reader: HistoryReader, consensus_ns: int) -> dict[str, Any] | None:
    """The errata record of the entry at ``consensus_ns``; None when no errata was accepted for it."""
    gateway = reader.gateway
    history = errata_history(gateway, consensus_ns)
    if history is None:
        return None
    original = original_entry(gateway, consensus_ns)
    item = None if original is None else original.item()
    rendered = None
    if original is not None and item is not None:
        stored = StoredTransaction(
            consensus_ns, original.block_number, original.index, item.record_bytes, item.transaction_bytes
        )
        rendered = render_transaction(stored)
    errata = []
    for position, (errata_ns, errata_id) in enumerate(history.errata):
        data = applied_errata_file(gateway, errata_id)
        errata.append(
            {
                "errata_id": errata_id,
                "consensus_timestamp": timestamp(errata_ns),
                "in_force": position == len(history.errata) - 1,
                "file_base64": None if data is None else base64.b64encode(data).decode(),
            }
        )
    return {
        "consensus_timestamp": timestamp(consensus_ns),
        "block_number": None if original is None else original.block_number,
        "index": None if original is None else original.index,
        "errata": mirror_errata_field(errata_marker(gateway, consensus_ns)),
        "original": rendered,
        "errata_applied": errata,
    }


def rest_errata(get_reader: Reader, timestamp_text: str, query: Query) -> dict[str, Any]:
    """``GET /api/v1/errata/{timestamp}``: 404 when no errata was accepted for that time."""
    only(query, set())
    consensus_ns = parse_timestamp(timestamp_text, "timestamp")
    answer = original_answer(get_reader(), consensus_ns)
    if answer is None:
        raise NotFoundError(f"no errata for {timestamp(consensus_ns)}")
    return answer
