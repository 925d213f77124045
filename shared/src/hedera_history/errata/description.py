"""The readable TOML description of an errata file (``hedera-history errata create``, docs/errata.md)
turned into the unsigned errata file it asks for."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from pathlib import Path
from typing import Any

from hedera_history.errata.codec import (
    encode_errata_body,
    encode_errata_file,
    parse_record_stream_item,
    record_stream_item_bytes,
)
from hedera_history.errata.synthetic import synthetic_transfer_item
from hedera_history.errors import ConfigError
from hedera_history.formats.parsed_files import RecordItem
from hedera_history.store.keys import check_entity_id
from hedera_history.times import datetime_ns
from hedera_history.times import parse_time as parse_text_time


def errata_from_description(document: dict[str, Any], base: Path) -> bytes:
    """The errata file a description asks for (unsigned)."""
    consensus_ns = parse_time(document.get("consensus_time"), "consensus_time")
    time_of_error = parse_time(document.get("consensus_time_of_error"), "consensus_time_of_error")
    correct: bytes | None = None
    if "correct_item" in document:
        correct = _item_bytes(_table(document["correct_item"], "correct_item"), base, "correct_item")
        parse_record_stream_item(correct, "correct_item", "description")
    compensating = []
    for index, entry in enumerate(document.get("compensating_items", [])):
        where = f"compensating_items[{index}]"
        spec = _table(entry, where)
        if "transfers" in spec:
            transfers = [_transfer(t, f"{where}.transfers") for t in spec["transfers"]]
            compensating.append(synthetic_transfer_item(consensus_ns, transfers, memo=str(spec.get("memo", ""))))
        else:
            compensating.append(_item_bytes(spec, base, where))
    unknown = set(document) - {"consensus_time", "consensus_time_of_error", "correct_item", "compensating_items"}
    if unknown:
        raise ConfigError(f"errata description: unknown keys {', '.join(sorted(unknown))}")
    return encode_errata_file(consensus_ns, encode_errata_body(time_of_error, correct, compensating))


def parse_time(value: Any, what: str) -> int:
    """Nanoseconds from an integer, a TOML datetime (microseconds only) or any text
    :func:`hedera_history.times.parse_time` takes."""
    if isinstance(value, bool) or value is None:
        raise ConfigError(f"errata description: {what} is missing")
    if isinstance(value, int):
        return value
    if isinstance(value, datetime):
        return datetime_ns(value)
    try:
        return parse_text_time(str(value))
    except ConfigError as e:
        raise ConfigError(f"errata description: {what}: {e}") from e


def _table(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"errata description: {what} must be a table")
    return value


def _item_bytes(spec: dict[str, Any], base: Path, what: str) -> bytes:
    if "file" in spec:
        path = base / str(spec["file"])
        try:
            return path.read_bytes()
        except OSError as e:
            raise ConfigError(f"errata description: {what}.file: {e}") from e
    if "record_stream_item" in spec:
        return _base64(spec["record_stream_item"], f"{what}.record_stream_item")
    if "record" in spec:
        transaction = _base64(spec.get("transaction", ""), f"{what}.transaction")
        record = _base64(spec["record"], f"{what}.record")
        return record_stream_item_bytes(RecordItem(transaction, record, 0))
    raise ConfigError(f"errata description: {what} needs file, record_stream_item, or record (+ transaction)")


def _base64(value: Any, what: str) -> bytes:
    try:
        return base64.b64decode(str(value), validate=True)
    except (binascii.Error, ValueError) as e:
        raise ConfigError(f"errata description: {what} is not base64: {e}") from e


def _transfer(value: Any, what: str) -> tuple[str, int]:
    spec = _table(value, what)
    try:
        return check_entity_id(str(spec["account"])), int(spec["amount"])
    except (KeyError, ValueError, TypeError) as e:
        raise ConfigError(f"errata description: {what} needs account = 'shard.realm.num' and amount = tinybar") from e
