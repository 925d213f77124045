"""Times as people and tools write them, to nanoseconds since the epoch: one parser for every input.

Accepted: an integer (ns), the mirror node's ``seconds.nanos`` (:func:`seconds_nanos`, which the
query API reads its timestamps with too), a date (``2024-06-01``: its
midnight, UTC), a stream file's time (``2024-06-01T00_00_02.255573093Z``, ``:`` or ``_``), and ISO
8601 with ``Z`` or an offset (without one: UTC). Anything else is a :class:`ConfigError`.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from hedera_history.errors import ConfigError, FileNameError
from hedera_history.formats.names import parse_timestamp

NS_PER_SECOND = 1_000_000_000
_SECONDS_NANOS = re.compile(r"(\d{1,10})(?:\.(\d{1,9}))?")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def parse_time(text: str) -> int:
    value = text.strip()
    if value.isdigit():
        return int(value)
    mirror = seconds_nanos(value)
    if mirror is not None:
        return mirror
    if len(value) == 10:
        value += "T00:00:00Z"
    try:
        return parse_timestamp(value.replace(":", "_"))
    except FileNameError:
        pass
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as e:
        raise ConfigError(f"not a time: {text!r}") from e
    return datetime_ns(moment)


def seconds_nanos(text: str) -> int | None:
    """ns of the mirror node's timestamp ``seconds[.nanos]`` (``1.5`` is one and a half seconds);
    None when ``text`` is not one. Bare digits are seconds here: :func:`parse_time` reads them as
    ns before it asks this."""
    match = _SECONDS_NANOS.fullmatch(text)
    if match is None:
        return None
    return int(match.group(1)) * NS_PER_SECOND + int((match.group(2) or "").ljust(9, "0"))


def datetime_ns(moment: datetime) -> int:
    """ns since the epoch of ``moment`` (UTC when it names no zone), exact to the microsecond."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * NS_PER_SECOND + delta.microseconds * 1000
