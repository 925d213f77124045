"""``NAME=VALUE`` option values (``--env``, ``--property``, ``--port``) read into a mapping."""

from __future__ import annotations

from collections.abc import Sequence

from hedera_history.errors import NameValueError


def name_values(pairs: Sequence[str], option: str) -> dict[str, str]:
    """Each ``NAME=VALUE`` of ``option`` (a later name wins, an empty value is kept);
    :class:`NameValueError` names the first pair without ``=`` or without a name."""
    found: dict[str, str] = {}
    for pair in pairs:
        name, separator, value = pair.partition("=")
        if not separator or not name:
            raise NameValueError(pair, option)
        found[name] = value
    return found
