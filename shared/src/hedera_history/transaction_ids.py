"""Transaction ids as clients write them, in one place: ``0.0.1001-1657701968-41986003`` (the mirror
node's form) or ``0.0.1001@1657701968.41986003`` (the SDKs'). In both, the part after the seconds
is a count of nanoseconds, as the SDKs read it (``.5`` is 5 ns, not half a second)."""

from __future__ import annotations

import re

from hedera_history.errors import ConfigError

NS_PER_SECOND = 1_000_000_000
_TRANSACTION_ID = re.compile(r"(\d{1,10})\.(\d{1,10})\.(\d{1,19})(?:-(\d{1,10})-(\d{1,9})|@(\d{1,10})\.(\d{1,9}))")


def parse_transaction_id(text: str) -> tuple[str, int]:
    """(payer ``shard.realm.num``, valid start in ns); :class:`ConfigError` for anything else."""
    match = _TRANSACTION_ID.fullmatch(text.strip())
    if match is None:
        raise ConfigError(f"not a transaction id: expected shard.realm.num-seconds-nanos, got {text[:80]!r}")
    shard, realm, num, seconds, nanos, at_seconds, at_nanos = match.groups()
    if at_seconds is not None:
        seconds, nanos = at_seconds, at_nanos
    return f"{int(shard)}.{int(realm)}.{int(num)}", int(seconds) * NS_PER_SECOND + int(nanos)


def format_transaction_id(payer: str, valid_start_ns: int) -> str:
    """The mirror node's form, nanoseconds padded to nine digits."""
    seconds, nanos = divmod(valid_start_ns, NS_PER_SECOND)
    return f"{payer}-{seconds}-{nanos:09d}"
